/* The election of lib/etcd-election.h: a lease kept alive, a key under the prefix, the lowest
 * create_revision leads. Every etcd call holds a link to the election, cut when it is freed,
 * so an answer arriving later finds nothing to touch. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/etcd-election.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define RETRY_USEC     (250 * 1000ULL) /* a failed call or a broken watch, tried again */
#define CAMPAIGN_TRIES 6               /* a grant or a put that fails this often: lost */

typedef struct elink
{
  ebb_election *e; /* NULL once the election is freed */
  unsigned refs;
} elink;

struct ebb_election
{
  ebb_etcd *etcd;
  sd_event *event;
  elink *self;
  char *range_key, *range_end, *value, *key;
  int64_t ttl_sec, lease, epoch, leader_epoch;
  int64_t seen_epoch; /* the leader last reported by EBB_ELECTION_LEADER_SEEN */
  uint64_t keepalive_usec, deadline_usec, last_renew_usec;
  char *leader_value;
  unsigned tries; /* of the campaign step under way */
  bool campaigning, leader, lost, keepalive_in_flight, check_in_flight, check_again;
  sd_event_source *keepalive_src, *deadline_src, *rewatch_src;
  ebb_etcd_watch *watch;
  ebb_election_fn fn;
  void *userdata;
};

typedef struct call
{
  elink *l;
  uint64_t sent_usec;
  void (*resigned) (const ebb_error *err, void *ud);
  void *ud;
} call;

static void check (ebb_election *e);
static int grant (ebb_election *e, ebb_error **err);
static int put_key (ebb_election *e, ebb_error **err);

/* An int64 member as the gateway's proto3 mapping writes it: a decimal string (JSON numbers
 * may lose digits above 2^53 in other readers). */
static void
add_int64 (json_object *o, const char *key, int64_t v)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRId64, v);
  ebb_json_add_string (o, key, buf);
}

/* {"key":..,"range_end":..} for the whole election prefix (base64). */
static json_object *
prefix_range (ebb_election *e)
{
  json_object *b = json_object_new_object ();
  cleanup_free char *k = ebb_etcd_b64 (e->range_key, strlen (e->range_key));
  cleanup_free char *end = ebb_etcd_b64 (e->range_end, strlen (e->range_end));
  ebb_json_add_string (b, "key", k);
  ebb_json_add_string (b, "range_end", end);
  return b;
}
static void start_watch (ebb_election *e);

/* Starts an etcd call whose answer goes to done with a call holding a link to e. */
static int
start_call (ebb_election *e, const char *path, json_object *body, ebb_etcd_done_fn done,
            ebb_error **err)
{
  call *k = ebb_xcalloc (1, sizeof *k);
  k->l = e->self;
  k->sent_usec = ebb_now_usec ();
  e->self->refs++;
  int r = ebb_etcd_call (e->etcd, path, body, done, k, err);
  json_object_put (body);
  if (r < 0)
    {
      e->self->refs--;
      free (k);
    }
  return r;
}

/* Ends a call: returns its election, or NULL when it was freed meanwhile. */
static ebb_election *
end_call (call *k, uint64_t *sent_usec)
{
  elink *l = k->l;
  ebb_election *e = l->e;
  if (sent_usec)
    *sent_usec = k->sent_usec;
  if (--l->refs == 0 && !e)
    free (l);
  return e;
}

static const char *
msg_of (const ebb_error *err)
{
  return err && err->msg ? err->msg : "";
}

/* Final: stops every source and reports LOST with why. e may be freed by the callback. */
static void lose (ebb_election *e, const char *fmt, ...) EBB_PRINTF (2, 3);
static void
lose (ebb_election *e, const char *fmt, ...)
{
  if (e->lost)
    return;
  e->lost = true;
  e->leader = false;
  sd_event_source_set_enabled (e->keepalive_src, SD_EVENT_OFF);
  sd_event_source_set_enabled (e->deadline_src, SD_EVENT_OFF);
  sd_event_source_set_enabled (e->rewatch_src, SD_EVENT_OFF);
  ebb_etcd_watch_stop (e->watch);
  e->watch = NULL;
  va_list ap;
  va_start (ap, fmt);
  char *why = NULL;
  if (vasprintf (&why, fmt, ap) < 0)
    why = NULL;
  va_end (ap);
  ebb_error *err = NULL;
  ebb_error_set (&err, EBB_ETIMEDOUT, "%s", why ? why : "lost");
  free (why);
  ebb_log_warn ("election: lost: %s", msg_of (err));
  e->fn (e, EBB_ELECTION_LOST, err, e->userdata);
  ebb_error_free (&err);
}

static int
on_deadline (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_election *e = ud;
  (void)s;
  (void)usec;
  lose (e, "the lease was not renewed for %" PRIu64 " ms", e->deadline_usec / 1000);
  return 0;
}

/* Renewed within the deadline, by the clock now. */
static bool
fresh (const ebb_election *e)
{
  return !e->lost && ebb_now_usec () < e->last_renew_usec + e->deadline_usec;
}

static void
arm (sd_event_source *s, uint64_t at_usec)
{
  sd_event_source_set_time (s, at_usec);
  sd_event_source_set_enabled (s, SD_EVENT_ONESHOT);
}

/* A campaign step (grant, put) failed: tries again from the rewatch timer (on_rewatch resumes
 * the campaign where it stopped, at the next endpoint), unless etcd refused our credentials or
 * it failed CAMPAIGN_TRIES times. Returns true when it will try again. */
static bool
retry_step (ebb_election *e, const ebb_error *err)
{
  if (!err || err->code == EACCES || ++e->tries >= CAMPAIGN_TRIES)
    return false;
  ebb_log_info ("election: %s; trying again", msg_of (err));
  arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC);
  return true;
}

static void
on_keepalive (json_object *res, const ebb_error *err, void *ud)
{
  uint64_t sent;
  ebb_election *e = end_call (ud, &sent);
  free (ud);
  if (!e || e->lost)
    return;
  e->keepalive_in_flight = false;
  json_object *r = NULL;
  int64_t ttl = 0;
  if (err)
    {
      ebb_log_info ("election: keepalive: %s", msg_of (err));
      arm (e->keepalive_src, ebb_now_usec () + RETRY_USEC);
      return;
    }
  json_object_object_get_ex (res, "result", &r);
  if (ebb_etcd_get_int64 (r, "TTL", &ttl, NULL) < 0 || ttl <= 0)
    {
      lose (e, "the lease expired");
      return;
    }
  /* The lease lives at least TTL from when this keepalive was sent. */
  e->last_renew_usec = sent;
  arm (e->deadline_src, sent + e->deadline_usec);
  arm (e->keepalive_src, sent + e->keepalive_usec);
}

static int
on_keepalive_tick (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_election *e = ud;
  (void)s;
  (void)usec;
  if (e->lost || e->keepalive_in_flight)
    return 0;
  json_object *b = json_object_new_object ();
  add_int64 (b, "ID", e->lease);
  cleanup_error ebb_error *err = NULL;
  if (start_call (e, "/v3/lease/keepalive", b, on_keepalive, &err) < 0)
    arm (e->keepalive_src, ebb_now_usec () + RETRY_USEC);
  else
    e->keepalive_in_flight = true;
  return 0;
}

/* The first key by create_revision is the leader. */
static void
on_range (json_object *res, const ebb_error *err, void *ud)
{
  ebb_election *e = end_call (ud, NULL);
  free (ud);
  if (!e || e->lost)
    return;
  e->check_in_flight = false;
  json_object *kvs = NULL, *kv = NULL;
  if (err)
    {
      ebb_log_info ("election: range: %s", msg_of (err));
      arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC); /* checks again */
      return;
    }
  if (json_object_object_get_ex (res, "kvs", &kvs) && json_object_array_length (kvs) > 0)
    kv = json_object_array_get_idx (kvs, 0);
  const char *k64 = NULL, *v64 = NULL;
  int64_t rev = 0;
  ebb_json_get_string (kv, "key", 0, NULL, &k64, NULL);
  ebb_json_get_string (kv, "value", 0, NULL, &v64, NULL);
  ebb_etcd_get_int64 (kv, "create_revision", &rev, NULL);
  cleanup_free char *key = k64 ? ebb_etcd_unb64 (k64, NULL) : NULL;
  if (!key)
    {
      lose (e, "no election key left (ours expired)");
      return;
    }
  bool changed = rev != e->leader_epoch;
  if (changed)
    {
      free (e->leader_value);
      e->leader_value = v64 ? ebb_etcd_unb64 (v64, NULL) : ebb_xstrdup ("");
      e->leader_epoch = rev;
      ebb_log_info ("election: leader %s at epoch %" PRId64, e->leader_value, rev);
    }
  bool again = e->check_again;
  e->check_again = false;
  if (strcmp (key, e->key) == 0 && !e->leader && fresh (e))
    {
      e->leader = true;
      e->fn (e, EBB_ELECTION_LEADER, NULL, e->userdata);
      return; /* e may be gone */
    }
  /* A check asked again meanwhile runs first; the leader is reported once the last one has
   * answered, by what was reported before, not by this answer's change (the change may have
   * been seen by an earlier answer of the same burst). */
  if (again)
    check (e);
  else if (strcmp (key, e->key) != 0 && e->seen_epoch != e->leader_epoch)
    {
      e->seen_epoch = e->leader_epoch;
      e->fn (e, EBB_ELECTION_LEADER_SEEN, NULL, e->userdata);
    }
}

static void
check (ebb_election *e)
{
  if (e->check_in_flight)
    {
      e->check_again = true;
      return;
    }
  json_object *b = prefix_range (e);
  ebb_json_add_string (b, "sort_order", "ASCEND");
  ebb_json_add_string (b, "sort_target", "CREATE");
  add_int64 (b, "limit", 1);
  cleanup_error ebb_error *err = NULL;
  if (start_call (e, "/v3/kv/range", b, on_range, &err) < 0)
    arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC);
  else
    e->check_in_flight = true;
}

/* A watch message: any change under the prefix may change the leader; our own key deleted
 * means we are out. */
static void
on_watch_msg (json_object *msg, void *ud)
{
  ebb_election *e = ud;
  json_object *r = NULL, *evs = NULL, *c = NULL;
  json_object_object_get_ex (msg, "result", &r);
  if (json_object_object_get_ex (r, "canceled", &c) && json_object_get_boolean (c))
    {
      ebb_etcd_watch_stop (e->watch);
      e->watch = NULL;
      arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC);
      return;
    }
  if (!json_object_object_get_ex (r, "events", &evs))
    return; /* "created", progress */
  for (size_t i = 0; i < json_object_array_length (evs); i++)
    {
      json_object *ev = json_object_array_get_idx (evs, i), *kv = NULL;
      const char *type = NULL, *k64 = NULL;
      ebb_json_get_string (ev, "type", 0, NULL, &type, NULL);
      json_object_object_get_ex (ev, "kv", &kv);
      ebb_json_get_string (kv, "key", 0, NULL, &k64, NULL);
      cleanup_free char *key = k64 ? ebb_etcd_unb64 (k64, NULL) : NULL;
      if (type && strcmp (type, "DELETE") == 0 && key && strcmp (key, e->key) == 0)
        {
          lose (e, "our election key was deleted");
          return;
        }
    }
  check (e);
}

static void
on_watch_end (const ebb_error *err, void *ud)
{
  ebb_election *e = ud;
  e->watch = NULL;
  ebb_log_info ("election: watch ended: %s", err ? msg_of (err) : "closed by etcd");
  arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC);
}

static void
start_watch (ebb_election *e)
{
  json_object *b = prefix_range (e);
  cleanup_error ebb_error *err = NULL;
  e->watch = ebb_etcd_watch_start (e->etcd, b, on_watch_msg, on_watch_end, e, &err);
  json_object_put (b);
  if (!e->watch)
    arm (e->rewatch_src, ebb_now_usec () + RETRY_USEC);
}

/* A broken watch (or a failed range): watch again, then check, so a change in between is
 * not missed. */
static int
on_rewatch (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_election *e = ud;
  (void)s;
  (void)usec;
  if (e->lost)
    return 0;
  if (e->lease == 0 || e->epoch == 0)
    {
      /* The campaign, resumed where a failure stopped it. */
      cleanup_error ebb_error *err = NULL;
      if ((e->lease == 0 ? grant (e, &err) : put_key (e, &err)) < 0)
        lose (e, "campaign: %s", ebb_error_msg (&err));
      return 0;
    }
  if (!e->watch)
    start_watch (e);
  check (e);
  return 0;
}

/* The key is there: its create_revision is our epoch. */
static void
on_txn (json_object *res, const ebb_error *err, void *ud)
{
  ebb_election *e = end_call (ud, NULL);
  free (ud);
  if (!e || e->lost || (err && retry_step (e, err)))
    return;
  e->tries = 0;
  json_object *hdr = NULL, *resps = NULL, *rr = NULL, *kvs = NULL;
  json_object_object_get_ex (res, "header", &hdr);
  json_object_object_get_ex (res, "responses", &resps);
  bool ok = false;
  json_object *succ = NULL;
  if (json_object_object_get_ex (res, "succeeded", &succ) && json_object_get_boolean (succ))
    ebb_etcd_get_int64 (hdr, "revision", &e->epoch, NULL);
  else if (resps && json_object_array_length (resps) > 0
           && json_object_object_get_ex (json_object_array_get_idx (resps, 0), "response_range",
                                         &rr)
           && json_object_object_get_ex (rr, "kvs", &kvs) && json_object_array_length (kvs) > 0)
    /* Put already (a retried txn): the key keeps its first revision. */
    ebb_etcd_get_int64 (json_object_array_get_idx (kvs, 0), "create_revision", &e->epoch, NULL);
  ok = e->epoch > 0;
  if (!ok)
    {
      lose (e, "put the election key: %s", err ? msg_of (err) : "no revision");
      return;
    }
  ebb_log_info ("election: candidate %s at epoch %" PRId64, e->key, e->epoch);
  start_watch (e);
  check (e);
}

/* Puts our key with our lease unless it exists (a retried put keeps its first revision). */
static int
put_key (ebb_election *e, ebb_error **err)
{
  cleanup_free char *k = ebb_etcd_b64 (e->key, strlen (e->key));
  cleanup_free char *v = ebb_etcd_b64 (e->value, strlen (e->value));
  json_object *cmp = json_object_new_object (), *put = json_object_new_object ();
  json_object *rng = json_object_new_object (), *b = json_object_new_object ();
  ebb_json_add_string (cmp, "target", "CREATE");
  ebb_json_add_string (cmp, "result", "EQUAL");
  ebb_json_add_string (cmp, "key", k);
  add_int64 (cmp, "create_revision", 0);
  ebb_json_add_string (put, "key", k);
  ebb_json_add_string (put, "value", v);
  add_int64 (put, "lease", e->lease);
  ebb_json_add_string (rng, "key", k);
  json_object *a = json_object_new_array ();
  json_object_array_add (a, cmp);
  json_object_object_add (b, "compare", a);
  json_object *op = json_object_new_object ();
  json_object_object_add (op, "request_put", put);
  a = json_object_new_array ();
  json_object_array_add (a, op);
  json_object_object_add (b, "success", a);
  op = json_object_new_object ();
  json_object_object_add (op, "request_range", rng);
  a = json_object_new_array ();
  json_object_array_add (a, op);
  json_object_object_add (b, "failure", a);
  return start_call (e, "/v3/kv/txn", b, on_txn, err);
}

static void
on_grant (json_object *res, const ebb_error *err, void *ud)
{
  uint64_t sent;
  ebb_election *e = end_call (ud, &sent);
  free (ud);
  if (!e || e->lost || (err && retry_step (e, err)))
    return;
  e->tries = 0;
  if (err || ebb_etcd_get_int64 (res, "ID", &e->lease, NULL) != 1 || e->lease == 0)
    {
      lose (e, "grant a lease: %s", err ? msg_of (err) : "no lease id");
      return;
    }
  free (e->key);
  e->key = ebb_xasprintf ("%s%" PRIx64, e->range_key, (uint64_t)e->lease);
  e->last_renew_usec = sent;
  arm (e->deadline_src, sent + e->deadline_usec);
  arm (e->keepalive_src, sent + e->keepalive_usec);
  cleanup_error ebb_error *perr = NULL;
  if (put_key (e, &perr) < 0)
    lose (e, "put the election key: %s", ebb_error_msg (&perr));
}

/* See etcd-election.h. */
int
ebb_election_campaign (ebb_election *e, ebb_error **err)
{
  if (e->campaigning || e->lost)
    return ebb_error_set (err, EINVAL, "election: campaigned already");
  if (grant (e, err) < 0)
    return ebb_error_wrap (err, "election");
  e->campaigning = true;
  return 0;
}

static int
grant (ebb_election *e, ebb_error **err)
{
  json_object *b = json_object_new_object ();
  add_int64 (b, "TTL", e->ttl_sec);
  return start_call (e, "/v3/lease/grant", b, on_grant, err);
}

static void
on_revoke (json_object *res, const ebb_error *err, void *ud)
{
  call *k = ud;
  void (*done) (const ebb_error *, void *) = k->resigned;
  void *dud = k->ud;
  end_call (k, NULL);
  free (k);
  (void)res;
  if (done)
    done (err, dud);
}

/* See etcd-election.h. */
void
ebb_election_resign (ebb_election *e, void (*done) (const ebb_error *err, void *ud), void *ud)
{
  e->leader = false;
  e->lost = true; /* final, as a lost lease, but nobody is told: the caller asked */
  sd_event_source_set_enabled (e->keepalive_src, SD_EVENT_OFF);
  sd_event_source_set_enabled (e->deadline_src, SD_EVENT_OFF);
  sd_event_source_set_enabled (e->rewatch_src, SD_EVENT_OFF);
  ebb_etcd_watch_stop (e->watch);
  e->watch = NULL;
  ebb_error *err = NULL;
  if (e->lease == 0)
    ebb_error_set (&err, ENOENT, "election: no lease to revoke");
  else
    {
      /* Revoking the lease deletes the key with it: standbys see the DELETE at once. */
      json_object *b = json_object_new_object ();
      add_int64 (b, "ID", e->lease);
      call *k = ebb_xcalloc (1, sizeof *k);
      k->l = e->self;
      k->resigned = done;
      k->ud = ud;
      e->self->refs++;
      if (ebb_etcd_call (e->etcd, "/v3/lease/revoke", b, on_revoke, k, &err) < 0)
        {
          e->self->refs--;
          free (k);
        }
      json_object_put (b);
    }
  if (err && done)
    done (err, ud);
  ebb_error_free (&err);
}

/* See etcd-election.h. */
bool
ebb_election_is_leader (const ebb_election *e)
{
  return e->leader && fresh (e);
}

/* See etcd-election.h. */
int64_t
ebb_election_epoch (const ebb_election *e)
{
  return e->epoch;
}

/* See etcd-election.h. */
const char *
ebb_election_leader (const ebb_election *e, int64_t *epoch)
{
  if (epoch)
    *epoch = e->leader_epoch;
  return e->leader_value;
}

static int
add_timer (ebb_election *e, sd_event_source **s, sd_event_time_handler_t fn)
{
  int r = sd_event_add_time (e->event, s, CLOCK_MONOTONIC, 0, 1000, fn, e);
  if (r >= 0)
    sd_event_source_set_enabled (*s, SD_EVENT_OFF);
  return r;
}

/* See etcd-election.h. */
ebb_election *
ebb_election_new (ebb_etcd *etcd, sd_event *event, const ebb_election_config *cfg,
                  ebb_election_fn fn, void *userdata, ebb_error **err)
{
  int64_t ttl = cfg->ttl_sec > 0 ? cfg->ttl_sec : EBB_ELECTION_DEFAULT_TTL_SEC;
  uint64_t ka = cfg->keepalive_usec ? cfg->keepalive_usec : EBB_ELECTION_DEFAULT_KEEPALIVE_USEC;
  uint64_t dl = cfg->renew_deadline_usec ? cfg->renew_deadline_usec
                                         : EBB_ELECTION_DEFAULT_RENEW_DEADLINE_USEC;
  if (!cfg->prefix || !*cfg->prefix || !cfg->value || !*cfg->value || !fn)
    return ebb_error_set (err, EINVAL, "election: a prefix, a value and a callback are needed"),
           NULL;
  if (dl >= (uint64_t)ttl * 1000000 || ka >= dl)
    return ebb_error_set (err, EINVAL,
                          "election: need keepalive < renew deadline < TTL (%" PRIu64
                          " ms, %" PRIu64 " ms, %" PRId64 " s)",
                          ka / 1000, dl / 1000, ttl),
           NULL;
  ebb_election *e = ebb_xcalloc (1, sizeof *e);
  e->etcd = etcd;
  e->event = sd_event_ref (event);
  e->self = ebb_xcalloc (1, sizeof *e->self);
  e->self->e = e;
  e->range_key = ebb_xasprintf ("%selection/", cfg->prefix);
  e->range_end = ebb_etcd_prefix_end (e->range_key);
  e->value = ebb_xstrdup (cfg->value);
  e->key = ebb_xstrdup ("");
  e->ttl_sec = ttl;
  e->keepalive_usec = ka;
  e->deadline_usec = dl;
  e->fn = fn;
  e->userdata = userdata;
  int r;
  if ((r = add_timer (e, &e->keepalive_src, on_keepalive_tick)) < 0
      || (r = add_timer (e, &e->deadline_src, on_deadline)) < 0
      || (r = add_timer (e, &e->rewatch_src, on_rewatch)) < 0)
    {
      ebb_election_free (e);
      return ebb_error_set_errno (err, -r, "election: timers"), NULL;
    }
  return e;
}

/* See etcd-election.h. */
void
ebb_election_free (ebb_election *e)
{
  if (!e)
    return;
  ebb_etcd_watch_stop (e->watch);
  sd_event_source_disable_unref (e->keepalive_src);
  sd_event_source_disable_unref (e->deadline_src);
  sd_event_source_disable_unref (e->rewatch_src);
  e->self->e = NULL;
  if (e->self->refs == 0)
    free (e->self);
  free (e->range_key);
  free (e->range_end);
  free (e->value);
  free (e->key);
  free (e->leader_value);
  sd_event_unref (e->event);
  free (e);
}
