/* Timed delivery of the policy's messages, for a policy whose ops say timed_probes
 * (peacock): its PROBE and WAKE actions reach their nodes after their delays, in the order
 * of those delays, as in ebb-sim. Peacock rotates probes in rounds: every probe marked in
 * one round travels in one message whose first probe (the carrier) arrives one network
 * delay after the round's boundary and delivers the round's others; a carrier delivered at
 * once, or before an earlier round's, finds the probes of the wrong round (the policy
 * aborts).
 *
 * The messages wait in a binary min-heap (lib/heap.h) keyed on (due, seq): due on the policy's
 * clock (CLOCK_MONOTONIC seconds, ebb_ctl_pol_now), seq counting emissions, so messages due at the
 * same instant keep the order the policy emitted them in. One sd-event CLOCK_MONOTONIC timer
 * on the controller's loop is armed for the earliest; when it fires, every message due is
 * delivered in order, each at its due time and drained before the next (as ebb-sim drains
 * after every event), including those the deliveries add that are due already; then it is
 * armed for the next.
 *
 * The policy is told the message's due time, not the time the timer fired (ebb_ctl_pol_at:
 * never behind a time it was given already). Peacock computes the next round from `now` at
 * a carrier's delivery (floor(now / interval) + 1) and the delays of the probes it passes on
 * from it: a timer that fires late, or a loop turn that came first, then shifts nothing, and
 * a controller that fell behind by more than a round catches up round by round in order, as
 * ebb-sim would, instead of merging rounds.
 *
 * Nothing of this is stored: at a restart (or a new policy instance) the probes in flight
 * are gone, and their tasks, still pending in the store and in memory, are queued again as
 * new policy jobs (ebb_ctl_rebuild). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "controller/ctl.h"
#include "controller/sched.h"
#include "lib/heap.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

EBB_HEAP_FUNCS (ebb_ctl_timed_heap, ebb_ctl_timed, due, 2, 64)

static int
on_timer (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_ctl *c = ud;
  (void)s, (void)usec;
  c->timed_armed_usec = 0; /* a one-shot timer: off until armed again */
  ebb_ctl_timed_run (c, (double)ebb_now_usec () / 1e6);
  return 0; /* the post source commits and sends what the deliveries decided */
}

/* Arms the timer for the earliest message (off when none). Without an event loop (a unit
 * test driving the core by hand) nothing is armed: ebb_ctl_timed_run delivers. */
static void
arm (ebb_ctl *c)
{
  if (!c->event)
    return;
  if (c->timed.n == 0)
    {
      if (c->timed_armed_usec && c->timed_src)
        sd_event_source_set_enabled (c->timed_src, SD_EVENT_OFF);
      c->timed_armed_usec = 0;
      return;
    }
  /* Rounded up: the timer never fires before the message is due. At least 1: 0 means off. */
  double due = ceil (c->timed.ev[0].due * 1e6);
  uint64_t usec = due >= 1 ? (uint64_t)due : 1;
  if (usec == c->timed_armed_usec)
    return;
  int r;
  /* Accuracy 1 us: sd-event's default (250 ms) would let it coalesce the wake-up far past
   * a 0.5 ms network delay and across rotation rounds. */
  if (!c->timed_src)
    r = sd_event_add_time (c->event, &c->timed_src, CLOCK_MONOTONIC, usec, 1, on_timer, c);
  else
    {
      r = sd_event_source_set_time (c->timed_src, usec);
      if (r >= 0)
        r = sd_event_source_set_enabled (c->timed_src, SD_EVENT_ONESHOT);
    }
  if (r < 0)
    {
      /* Not expected (memory); the periodic tick delivers them late rather than never. */
      ebb_log_err ("policy message timer: %s", strerror (-r));
      c->timed_armed_usec = 0;
      return;
    }
  c->timed_armed_usec = usec;
}

/* See sched.h. */
void
ebb_ctl_timed_push (ebb_ctl *c, double due, const ebb_ctl_pevent *e)
{
  ebb_ctl_timed m = { .due = due, .seq = c->timed_seq++, .ev = *e };
  ebb_ctl_timed_heap_push (&c->timed, &m);
  arm (c);
}

/* See sched.h. */
bool
ebb_ctl_timed_pop (ebb_ctl *c, double now, ebb_ctl_timed *out)
{
  if (c->timed.n == 0 || c->timed.ev[0].due > now)
    return false;
  *out = ebb_ctl_timed_heap_pop (&c->timed);
  return true;
}

/* See sched.h. */
size_t
ebb_ctl_timed_run (ebb_ctl *c, double now)
{
  size_t n = 0;
  /* Not from inside a drain (the timer runs from the loop, never from a policy event): a
   * delivery there would only queue its actions behind the drain's. */
  ebb_ctl_timed m;
  while (!c->in_drain && c->pol && ebb_ctl_timed_pop (c, now, &m))
    {
      ebb_ctl_deliver (c, &m.ev, ebb_ctl_pol_at (c, m.due));
      c->timed_delivered++;
      n++;
      /* Its actions (LAUNCH, the next round's carrier) and the events they cause, before
       * the next message: it may be the one just pushed. */
      ebb_ctl_drain (c);
    }
  arm (c);
  return n;
}

/* See sched.h. */
void
ebb_ctl_timed_clear (ebb_ctl *c)
{
  c->timed.n = 0;
  arm (c);
}

/* See sched.h. */
void
ebb_ctl_timed_free (ebb_ctl *c)
{
  c->timed_src = sd_event_source_disable_unref (c->timed_src);
  c->timed_armed_usec = 0;
  ebb_ctl_timed_heap_free (&c->timed);
}
