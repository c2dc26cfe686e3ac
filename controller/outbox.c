/* The outbox: every command to an agent is an asynchronous HTTP call through curl multi,
 * with a request id and the task's generation. A call is recorded when it is decided (in
 * the store's transaction of its decision: the task's row, or the calls table for what the
 * task's row does not show), waits here, and leaves at ebb_ctl_flush, the one place where
 * calls are released, after the commit of that transaction. It is retried with backoff
 * while the node is ready, and its answer goes to the handler the scheduler routed its kind
 * to (ebb_ctl_outbox_route; sched-calls.c). A node's calls wait until its agent answered this
 * leader's fence. Over 700 lines: every agent call starts in this file (checked by
 * tests/test-controller-layers.sh), the fence and the reads included. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define RETRY_MIN_USEC 100000ULL
#define MAX_ATTEMPTS   50

typedef ebb_ctl_call call;

static void call_start (call *k);

/* The call got its answer (or will never get one): its row in the calls table goes. */
static void
call_end (call *k)
{
  if (k->seq)
    ebb_ctl_store_call_done (k->c, k->job, k->idx, k->seq);
}

/* Out of c->retrying (nothing when it is not there). */
static void
retrying_unlink (call *k)
{
  if (k->retry_prev)
    k->retry_prev->retry_next = k->retry_next;
  else if (k->c->retrying == k)
    k->c->retrying = k->retry_next;
  if (k->retry_next)
    k->retry_next->retry_prev = k->retry_prev;
  k->retry_prev = k->retry_next = NULL;
}

static void
call_free (call *k)
{
  retrying_unlink (k);
  ebb_ctl_job *j = ebb_ctl_job_find (k->c, k->job);
  if (j && j->ncalls > 0)
    j->ncalls--;
  sd_event_source_disable_unref (k->retry);
  json_object_put (k->body);
  free (k->path);
  free (k);
}

/* See outbox.h. */
ebb_ctl_task *
ebb_ctl_call_task (ebb_ctl_call *k)
{
  ebb_ctl_job *j = ebb_ctl_job_find (k->c, k->job);
  if (!j || k->idx >= j->ntasks)
    return NULL;
  ebb_ctl_task *t = &j->tasks[k->idx];
  return t->generation == k->generation ? t : NULL;
}

static int
on_retry (sd_event_source *s, uint64_t usec, void *ud)
{
  call *k = ud;
  (void)s, (void)usec;
  k->retry = sd_event_source_disable_unref (k->retry);
  retrying_unlink (k);
  if (!ebb_ctl_leading (k->c))
    {
      /* A retry due when the lease lapsed (a pause, etcd out of reach) does not leave: the
       * flush of this loop iteration deposes this instance. */
      call_free (k);
      return 0;
    }
  call_start (k);
  return 0;
}

/* Retries with exponential backoff while the node is ready and the task still wants it. */
static void
call_retry (call *k, const char *why)
{
  ebb_ctl *c = k->c;
  c->m.agent_errors++;
  ebb_ctl_node *n = c->nodes[k->node];
  if (k->attempt >= MAX_ATTEMPTS || n->state == NODE_LOST || c->stopping)
    {
      ebb_log_warn ("agent %s: %s %s: giving up after %u attempts: %s", n->name,
                    k->body ? "POST" : "DELETE", k->path, k->attempt, why);
      if (!c->stopping)
        call_end (k);
      call_free (k);
      return;
    }
  uint64_t d = RETRY_MIN_USEC << (k->attempt < 16 ? k->attempt : 16);
  if (d > c->cfg->retry_max_usec)
    d = c->cfg->retry_max_usec;
  if (k->attempt == 1)
    ebb_log_info ("agent %s: %s: %s; retrying", n->name, k->path, why);
  c->m.agent_retries++;
  if (sd_event_add_time_relative (c->event, &k->retry, CLOCK_MONOTONIC, d, 1000, on_retry, k) < 0)
    {
      call_free (k);
      return;
    }
  /* Listed, so that a process ending meanwhile (stopped, deposed) frees it. */
  k->retry_next = c->retrying;
  if (c->retrying)
    c->retrying->retry_prev = k;
  c->retrying = k;
}

/* The error code of the agent's 409 answer res, "" for another answer. */
static const char *
agent_conflict (const ebb_http_result *res)
{
  json_object *v;
  return res->status == 409 && res->json && json_object_object_get_ex (res->json, "error", &v)
                 && json_object_is_type (v, json_type_string)
             ? json_object_get_string (v)
             : "";
}

/* Whether res is the agent's 409 "busy" or "in_progress": it is acting on the task now. */
static bool
agent_busy (const ebb_http_result *res)
{
  const char *code = agent_conflict (res);
  return strcmp (code, "busy") == 0 || strcmp (code, "in_progress") == 0;
}

/* See outbox.h. */
void
ebb_ctl_outbox_on_fence (ebb_ctl *c, ebb_ctl_fence_handler fn)
{
  c->on_fence = fn;
}

/* See outbox.h. */
void
ebb_ctl_outbox_route (ebb_ctl *c, ebb_ctl_call_kind kind, ebb_ctl_call_handler on_answer,
                      bool retry_busy)
{
  c->call_routes[kind] = (ebb_ctl_call_route){ on_answer, retry_busy };
}

/* Whether res is the agent's 409 "stale_leader": it saw a higher epoch than ours, so a newer
 * leader fenced it and this instance is deposed (doc/ha.md). */
static bool
agent_stale (const ebb_http_result *res)
{
  return strcmp (agent_conflict (res), "stale_leader") == 0;
}

/* The end of an attempt: a transport error, 5xx or 429 is tried again here; an answer goes
 * to the handler the scheduler routed its kind to (ebb_ctl_outbox_route). */
static void
on_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  call *k = ud;
  if (!err && agent_stale (res))
    {
      ebb_ctl_depose (k->c, "an agent refused a call as from a stale leader");
      call_free (k);
      return;
    }
  if (err || res->status >= 500 || res->status == 429)
    {
      if (err && err->code == ECANCELED)
        {
          call_free (k);
          return;
        }
      cleanup_free char *why
          = err ? ebb_xstrdup (err->msg) : ebb_xasprintf ("HTTP %ld", res->status);
      call_retry (k, why);
      return;
    }
  const ebb_ctl_call_route *r = &k->c->call_routes[k->kind];
  if ((r->retry_busy && agent_busy (res) && ebb_ctl_call_task (k))
      || (r->on_answer && r->on_answer (k, res)))
    {
      call_retry (k, "agent busy");
      return;
    }
  call_end (k);
  call_free (k);
}

/* How every call to an agent goes: the token, the CA, and our epoch (every call mutates: the
 * agent checks it). */
static ebb_http_call_opts
agent_opts (const ebb_ctl *c)
{
  return (ebb_http_call_opts){ .bearer_token = c->token,
                               .ca_file = c->cfg->agent_ca,
                               .timeout_ms = 10000,
                               .extra_header = c->epoch_header };
}

/* k waits for its node's fence (in the order decided; ebb_ctl_flush sends the fence). */
static void
call_hold (call *k)
{
  ebb_ctl_node *n = k->c->nodes[k->node];
  if (n->n_held == n->cap_held)
    {
      n->cap_held = (uint32_t)ebb_grow_cap (n->cap_held, 16, n->n_held + 1);
      n->held = ebb_xrealloc (n->held, n->cap_held * sizeof *n->held);
    }
  n->held[n->n_held++] = k;
}

/* Frees node's held calls; ended (their rows in the calls table gone) when end. */
static void
held_drop (ebb_ctl *c, int node, bool end)
{
  ebb_ctl_node *n = c->nodes[node];
  for (uint32_t i = 0; i < n->n_held; i++)
    {
      if (end)
        call_end (n->held[i]);
      call_free (n->held[i]);
    }
  free (n->held);
  n->held = NULL;
  n->n_held = n->cap_held = 0;
  n->fence_retry = sd_event_source_disable_unref (n->fence_retry);
}

static void
call_start (call *k)
{
  ebb_ctl *c = k->c;
  ebb_ctl_node *n = c->nodes[k->node];
  if (n->fence_ok != c->epoch && n->state == NODE_LOST)
    {
      /* Dropped as ebb_ctl_outbox_node_reset drops the held ones: the node is fenced again
       * when it is back, and what its agent reports then is reconciled. */
      ebb_log_warn ("agent %s: %s: dropped, the node is lost", n->name, k->path);
      call_end (k);
      call_free (k);
      return;
    }
  if (n->fence_ok != c->epoch)
    {
      call_hold (k);
      return;
    }
  k->attempt++;
  c->m.agent_calls++;
  ebb_http_call_opts opts = agent_opts (c);
  cleanup_error ebb_error *err = NULL;
  if (!n->url)
    {
      call_retry (k, "the node has not sent its URL");
      return;
    }
  if (ebb_http_client_start (c->client, k->body ? "POST" : "DELETE", n->url, k->path, k->body,
                             &opts, on_done, k, &err)
      < 0)
    call_retry (k, ebb_error_msg (&err));
}

/* A decided call waits for the commit of its decision (ebb_ctl_flush). */
static void
outbox_push (call *k)
{
  ebb_ctl *c = k->c;
  if (c->n_outbox == c->cap_outbox)
    {
      c->cap_outbox = c->cap_outbox ? c->cap_outbox * 2 : 256;
      c->outbox = ebb_xrealloc (c->outbox, c->cap_outbox * sizeof *c->outbox);
    }
  c->outbox[c->n_outbox++] = k;
}

/* See outbox.h. */
void
ebb_ctl_arrival (ebb_ctl *c, uint64_t job, uint64_t arrival_usec)
{
  if (c->n_arrivals == c->cap_arrivals)
    {
      c->cap_arrivals = c->cap_arrivals ? c->cap_arrivals * 2 : 64;
      c->arrivals = ebb_xrealloc (c->arrivals, c->cap_arrivals * sizeof *c->arrivals);
    }
  c->arrivals[c->n_arrivals].job = job;
  c->arrivals[c->n_arrivals++].usec = arrival_usec;
}

/* See outbox.h. The one place where calls are released: after the commit of the decisions
 * that decided them (group commit: the decisions of one loop iteration, a burst of
 * submissions, heartbeats, completions, share one transaction instead of one each). */
void
ebb_ctl_flush (ebb_ctl *c)
{
  /* Nothing leaves an instance that does not lead; one that led and missed its renew
   * deadline (a pause, etcd out of reach) commits nothing more and goes. */
  if (!ebb_ctl_leading (c))
    {
      if (c->leading)
        ebb_ctl_depose (c, "the etcd lease was not renewed within the renew deadline");
      return;
    }
  if (c->store_lost || ebb_ctl_store_commit (c) < 0)
    {
      /* What this iteration decided is not in the store (an outage, a fence): none of its
       * calls leaves, and the model, now ahead of the store, cannot go on: the store is
       * closed (nothing is open to commit), the process ends (EBB_CTL_EXIT_STORE; systemd
       * starts it again) and the next start reloads what was committed. */
      if (!c->store_lost)
        ebb_log_err ("store: the commit failed: %zu agent calls not sent; exiting", c->n_outbox);
      ebb_ctl_calls_free (c);
      ebb_ctl_store_close (c);
      c->store_lost = true;
      if (c->event)
        sd_event_exit (c->event, EBB_CTL_EXIT_STORE);
      return;
    }
  /* A node this leader has not fenced yet (one of the store's, or new by a heartbeat) is
   * fenced before the calls decided for it go out. */
  for (size_t i = 0; i < c->n_nodes; i++)
    if (c->nodes[i]->fenced != c->epoch && c->nodes[i]->url)
      ebb_ctl_send_fence (c, (int)i);
  /* The array is taken first: a call that fails at once may decide new calls, which wait
   * for the next flush. The launches of jobs that just arrived go first, each after the
   * calls decided before it to the same node (the suspension that makes room for it must
   * reach the agent first); then the rest, in the order decided. */
  call **box = c->outbox;
  size_t n = c->n_outbox;
  c->outbox = NULL;
  c->n_outbox = c->cap_outbox = 0;
  for (size_t i = 0; c->n_arrivals && i < n; i++)
    for (size_t a = 0; a < c->n_arrivals; a++)
      if (box[i]->kind == CALL_LAUNCH && box[i]->job == c->arrivals[a].job)
        {
          for (size_t e = 0; e < i; e++)
            if (box[e] && box[e]->node == box[i]->node)
              {
                call_start (box[e]);
                box[e] = NULL;
              }
          call_start (box[i]);
          box[i] = NULL;
          break;
        }
  uint64_t now = ebb_now_usec ();
  for (size_t a = 0; a < c->n_arrivals; a++)
    {
      c->arrival_usec[c->n_arrival++ % EBB_ARRAY_SIZE (c->arrival_usec)]
          = now - c->arrivals[a].usec;
      ebb_prom_hist_observe (&c->hist.decision, (double)(now - c->arrivals[a].usec) / 1e6);
    }
  c->n_arrivals = 0;
  for (size_t i = 0; i < n; i++)
    if (box[i])
      call_start (box[i]);
  free (box);
}

/* See outbox.h. */
void
ebb_ctl_calls_free (ebb_ctl *c)
{
  for (size_t i = 0; i < c->n_outbox; i++)
    call_free (c->outbox[i]);
  while (c->retrying)
    call_free (c->retrying);
  for (size_t i = 0; i < c->n_nodes; i++)
    held_drop (c, (int)i, false);
  free (c->outbox);
  c->outbox = NULL;
  c->n_outbox = c->cap_outbox = 0;
  free (c->arrivals);
  c->arrivals = NULL;
  c->n_arrivals = c->cap_arrivals = 0;
}

static call *
call_new (ebb_ctl *c, ebb_ctl_call_kind kind, const ebb_ctl_task *t, uint64_t generation, int node)
{
  call *k = ebb_xcalloc (1, sizeof *k);
  k->c = c;
  k->kind = kind;
  k->job = t->job->id;
  t->job->ncalls++; /* it stays in memory until the answer (sched-evict.c) */
  k->idx = t->idx;
  k->generation = generation;
  k->node = node;
  return k;
}

/* DELETE /v1/tasks/ID on node, of decision seq (the policy's KILL; else 0). */
static void
send_delete (ebb_ctl *c, const ebb_ctl_task *t, uint64_t generation, int node,
             ebb_ctl_call_kind kind, uint64_t seq)
{
  call *k = call_new (c, kind, t, generation, node);
  cleanup_free char *id = ebb_ctl_task_agent_id (t->job->id, t->idx, generation);
  /* The request id names the generation, the leader's epoch and the attempt's purpose: a
   * retry repeats it; a controller on another store (job ids again from 1) has another epoch. */
  k->path = ebb_xasprintf ("/v1/tasks/%s?request_id=%s-e%" PRIu64 "-%s%u", id, id, c->epoch,
                           kind == CALL_FORGET ? "F" : "K", t->suspensions);
  /* The policy's KILL leaves the task running in the store until the answer: its row says
   * it was decided. */
  if (kind == CALL_PKILL && seq)
    {
      k->seq = seq;
      ebb_ctl_store_call (c, t, k->seq, "kill", k->path, NULL);
    }
  outbox_push (k);
}

/* See outbox.h. */
void
ebb_ctl_send_delete (ebb_ctl *c, const ebb_ctl_task *t, uint64_t generation, int node,
                     ebb_ctl_call_kind kind)
{
  send_delete (c, t, generation, node, kind, 0);
}

/* See outbox.h. */
void
ebb_ctl_send_pkill (ebb_ctl *c, const ebb_ctl_task *t, uint64_t seq)
{
  send_delete (c, t, t->generation, t->node, CALL_PKILL, seq);
}

/* The body of a graceful step: each resource it takes, with what the task holds of it
 * before the step (the agent's "booked": present with a step of the same resource). */
static void
add_step (json_object *b, ebb_pol_res amount, ebb_pol_res booked)
{
  json_object *bk = json_object_new_object ();
  if (amount.cpu_millis > 0)
    {
      ebb_json_add_uint64 (b, "cpu_millis", (uint64_t)amount.cpu_millis);
      ebb_json_add_uint64 (bk, "cpu_millis", (uint64_t)booked.cpu_millis);
    }
  if (amount.memory_bytes > 0)
    {
      ebb_json_add_uint64 (b, "memory_bytes", (uint64_t)amount.memory_bytes);
      ebb_json_add_uint64 (bk, "memory_bytes", (uint64_t)booked.memory_bytes);
    }
  json_object_object_add (b, "booked", bk);
}

/* The kinds of the calls a restart sends again, as the store names them. */
static const char *const call_kind_names[CALL_N_KINDS] = {
  [CALL_SUSPEND] = "suspend", [CALL_RESUME] = "resume",   [CALL_PKILL] = "kill",
  [CALL_HOLD] = "hold",       [CALL_RELEASE] = "release",
};

/* POST /v1/tasks/ID/suspend (graceful, booked non-NULL: one step of amount) or /resume, of
 * decision seq. */
static void
send_op (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq, ebb_ctl_call_kind kind,
         const ebb_pol_res *booked, ebb_pol_res amount, bool told)
{
  call *k = call_new (c, kind, t, t->generation, t->node);
  cleanup_free char *id = ebb_ctl_task_agent_id (t->job->id, t->idx, t->generation);
  json_object *b = json_object_new_object ();
  bool sus = kind == CALL_SUSPEND || kind == CALL_HOLD;
  if (sus)
    {
      ebb_json_add_string (b, "mode", booked ? "graceful" : "immediate");
      if (booked)
        add_step (b, amount, *booked);
    }
  /* One request id per operation: the leader's epoch and the sequence number of the decision
   * that carries it (committed with it, given by the caller). A count kept in memory would
   * start again after a restart, and the sequence numbers of a fresh store too: the agent
   * would answer a new RESUME with the reply it kept for an old one. A call sent again from
   * the store keeps its stored id. */
  t->attempts++;
  cleanup_free char *rid
      = ebb_xasprintf ("%s-e%" PRIu64 "-%s%" PRIu64, id, c->epoch, sus ? "S" : "R", seq);
  ebb_json_add_string (b, "request_id", rid);
  ebb_json_add_uint64 (b, "generation", t->generation);
  k->amount = amount;
  k->told = told;
  k->body = b;
  k->path = ebb_xasprintf ("/v1/tasks/%s/%s", id, sus ? "suspend" : "resume");
  if (seq)
    {
      k->seq = seq;
      ebb_ctl_store_call (c, t, k->seq, call_kind_names[kind], k->path, b);
    }
  outbox_push (k);
}

/* See outbox.h. */
void
ebb_ctl_send_suspend (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq, const ebb_pol_res *booked,
                      ebb_pol_res amount, bool told)
{
  send_op (c, t, seq, CALL_SUSPEND, booked, amount, told);
}

/* See outbox.h. */
void
ebb_ctl_send_resume (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq)
{
  send_op (c, t, seq, CALL_RESUME, NULL, (ebb_pol_res){ 0, 0 }, false);
}

/* See outbox.h. */
void
ebb_ctl_send_hold (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq, bool hold, ebb_pol_res amount,
                   bool told)
{
  send_op (c, t, seq, hold ? CALL_HOLD : CALL_RELEASE, NULL, amount, told);
}

/* See outbox.h. */
void
ebb_ctl_send_launch (ebb_ctl *c, ebb_ctl_task *t, bool is_long, uint64_t cpu_millis,
                     uint64_t memory_bytes)
{
  call *k = call_new (c, CALL_LAUNCH, t, t->generation, t->node);
  cleanup_free char *id = ebb_ctl_task_agent_id (t->job->id, t->idx, t->generation);
  json_object *b = json_object_new_object ();
  ebb_json_add_string (b, "id", id);
  json_object_object_foreach (t->spec, key, val)
  {
    if (strcmp (key, "dag") != 0) /* the controller's own (sched-dag.c) */
      json_object_object_add (b, key, json_object_get (val));
  }
  ebb_json_add_uint64 (b, "cpu_millis", cpu_millis);
  ebb_json_add_uint64 (b, "memory_bytes", memory_bytes);
  cleanup_free char *job = ebb_xasprintf ("j%" PRIu64, t->job->id);
  ebb_json_add_string (b, "job", job);
  ebb_json_add_string (b, "class", is_long ? "long" : "short");
  cleanup_free char *rid = ebb_xasprintf ("%s-e%" PRIu64 "-L", id, c->epoch);
  ebb_json_add_string (b, "request_id", rid);
  ebb_json_add_uint64 (b, "generation", t->generation);
  k->body = b;
  k->path = ebb_xstrdup ("/v1/tasks");
  outbox_push (k);
}

/* POST path with body (taken) for t's current generation on its node. */
static void
send_call (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_call_kind kind, const char *path, json_object *body)
{
  call *k = call_new (c, kind, t, t->generation, t->node);
  k->body = body;
  k->path = ebb_xstrdup (path);
  outbox_push (k);
}

/* See outbox.h. */
void
ebb_ctl_send_adopt (ebb_ctl *c, ebb_ctl_task *t)
{
  cleanup_free char *id = ebb_ctl_task_agent_id (t->job->id, t->idx, t->generation);
  json_object *b = json_object_new_object ();
  json_object *a;
  json_object_object_get_ex (t->spec, "adopt", &a);
  json_object_object_foreach (a, key, val)
  {
    if (strcmp (key, "node") != 0)
      json_object_object_add (b, key, json_object_get (val));
  }
  ebb_json_add_string (b, "id", id);
  cleanup_free char *job = ebb_xasprintf ("j%" PRIu64, t->job->id);
  ebb_json_add_string (b, "job", job);
  ebb_json_add_string (b, "class", t->job->cls == CLS_SHORT ? "short" : "long");
  if (t->cpu_millis)
    ebb_json_add_uint64 (b, "cpu_millis", t->cpu_millis);
  if (t->memory_bytes)
    ebb_json_add_uint64 (b, "memory_bytes", t->memory_bytes);
  cleanup_free char *rid = ebb_xasprintf ("%s-e%" PRIu64 "-A", id, c->epoch);
  ebb_json_add_string (b, "request_id", rid);
  ebb_json_add_uint64 (b, "generation", t->generation);
  send_call (c, t, CALL_ADOPT, "/v1/tasks/adopt", b);
}

/* See outbox.h. */
void
ebb_ctl_replay_calls (ebb_ctl *c)
{
  ebb_ctl_stored_call *v;
  size_t n = ebb_ctl_store_calls (c, &v);
  for (size_t i = 0; i < n; i++)
    {
      ebb_ctl_stored_call *sc = &v[i];
      ebb_ctl_job *j = ebb_ctl_job_find (c, sc->job);
      ebb_ctl_task *t = j && sc->idx < j->ntasks ? &j->tasks[sc->idx] : NULL;
      ebb_ctl_call_kind kind = CALL_PKILL;
      for (int ki = 0; ki < CALL_N_KINDS; ki++)
        if (call_kind_names[ki] && strcmp (sc->kind, call_kind_names[ki]) == 0)
          kind = (ebb_ctl_call_kind)ki;
      json_object *body = sc->body ? json_tokener_parse (sc->body) : NULL;
      if (!t || t->generation != sc->generation || !ebb_ctl_task_active (t) || t->node < 0
          || (sc->body && !body) || (kind == CALL_PKILL) != !sc->body)
        {
          /* Its task ended or moved on: nothing to send. */
          json_object_put (body);
          ebb_ctl_store_call_done (c, sc->job, sc->idx, sc->seq);
          continue;
        }
      if (kind == CALL_PKILL)
        t->pkill = true;
      call *k = call_new (c, kind, t, t->generation, t->node);
      k->seq = sc->seq;
      k->replay = kind != CALL_PKILL;
      k->body = body;
      k->path = ebb_xstrdup (sc->path);
      ebb_log_info ("task %" PRIu64 "-%u: %s decided before the restart (seq %" PRIu64
                    "): sent again",
                    t->job->id, t->idx, sc->kind, sc->seq);
      outbox_push (k);
    }
  ebb_ctl_stored_calls_free (v, n);
}

static void
drop_log_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  char *path = ud;
  if (err || res->status != 200)
    ebb_log_info ("DELETE %s: %s", path, err ? err->msg : "not kept (any more)");
  free (path);
}

/* See outbox.h. */
int
ebb_ctl_outbox_drop_log (ebb_ctl *c, int node, const char *path, ebb_error **err)
{
  if (!c->log_client && !(c->log_client = ebb_http_client_new (c->event, err)))
    return -EIO;
  ebb_http_call_opts opts = { .bearer_token = c->token, .ca_file = c->cfg->agent_ca };
  char *ud = ebb_xstrdup (path);
  int r = ebb_http_client_start (c->log_client, "DELETE", c->nodes[node]->url, path, NULL, &opts,
                                 drop_log_done, ud, err);
  if (r < 0)
    free (ud);
  return r;
}

/* See outbox.h. */
int
ebb_ctl_outbox_read (ebb_ctl *c, const ebb_ctl_task *t, const char *path, bool no_timeout,
                     bool (*sink) (const char *data, size_t len, void *ud), ebb_http_done_fn done,
                     void *ud, ebb_error **err)
{
  if (t->node < 0 || (size_t)t->node >= c->n_nodes || !c->nodes[t->node]->url)
    return ebb_error_set (err, EINVAL, "task %" PRIu64 "-%u is on no node", t->job->id, t->idx);
  if (!c->log_client && !(c->log_client = ebb_http_client_new (c->event, err)))
    return -EIO;
  ebb_http_call_opts opts = { .bearer_token = c->token,
                              .ca_file = c->cfg->agent_ca,
                              .max_response_bytes = 64 * 1024,
                              .sink = sink,
                              .sink_ud = ud,
                              .no_timeout = no_timeout };
  return ebb_http_client_start (c->log_client, "GET", c->nodes[t->node]->url, path, NULL, &opts,
                                done, ud, err);
}

/* A fence on its way: the answer's node, at the epoch it was sent with. */
typedef struct
{
  ebb_ctl *c;
  int node;
  uint64_t epoch;
} fence_call;

static int
on_fence_retry (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_ctl *c = ((fence_call *)ud)->c;
  int node = ((fence_call *)ud)->node;
  (void)s, (void)usec;
  ebb_ctl_node *n = c->nodes[node];
  n->fence_retry = sd_event_source_disable_unref (n->fence_retry); /* frees ud */
  if (ebb_ctl_leading (c) && !c->stopping && n->state != NODE_LOST)
    ebb_ctl_send_fence (c, node);
  return 0;
}

/* A fence that failed goes again with the calls' backoff, until it is answered or the node is
 * lost (ebb_ctl_outbox_node_reset). */
static void
fence_retry (ebb_ctl *c, int node, const char *why)
{
  ebb_ctl_node *n = c->nodes[node];
  ebb_log_warn ("fence of %s at epoch %" PRIu64 " failed: %s; its %u calls wait", n->name, c->epoch,
                why, n->n_held);
  unsigned a = n->fence_attempt++;
  uint64_t d = RETRY_MIN_USEC << (a < 16 ? a : 16);
  if (d > c->cfg->retry_max_usec)
    d = c->cfg->retry_max_usec;
  fence_call *f = ebb_xcalloc (1, sizeof *f);
  *f = (fence_call){ c, node, c->epoch };
  n->fence_retry = sd_event_source_disable_unref (n->fence_retry);
  if (sd_event_add_time_relative (c->event, &n->fence_retry, CLOCK_MONOTONIC, d, 1000,
                                  on_fence_retry, f)
      < 0)
    free (f);
  else
    sd_event_source_set_destroy_callback (n->fence_retry, free);
}

/* The fence was answered: the agent's task list is reconciled (the handler routed to it), then
 * the calls held for the node go out, in the order decided. */
static void
fence_answered (ebb_ctl *c, int node, json_object *answer)
{
  ebb_ctl_node *n = c->nodes[node];
  json_object *tasks = NULL, *name = NULL;
  n->fence_ok = c->epoch;
  n->fence_attempt = 0;
  if (answer && json_object_object_get_ex (answer, "node", &name)
      && (!json_object_is_type (name, json_type_string)
          || strcmp (json_object_get_string (name), n->name) != 0))
    ebb_log_warn ("fence of %s: the agent at %s is node %s: its tasks not read", n->name, n->url,
                  json_object_get_string (name));
  else if (c->on_fence && answer && json_object_object_get_ex (answer, "tasks", &tasks)
           && json_object_is_type (tasks, json_type_array))
    c->on_fence (c, node, tasks);
  call **held = n->held;
  uint32_t nh = n->n_held;
  n->held = NULL;
  n->n_held = n->cap_held = 0;
  for (uint32_t i = 0; i < nh; i++)
    call_start (held[i]);
  free (held);
}

/* The answer to a fence: refused (a newer leader fenced the agent first) deposes us; a 200
 * releases the node (fence_answered); a 404 (an agent of a version without /v1/fence) releases
 * it too, its calls carrying the epoch anyway; anything else is tried again. */
static void
on_fence_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  fence_call f = *(fence_call *)ud;
  free (ud);
  ebb_ctl *c = f.c;
  if ((err && err->code == ECANCELED) || f.epoch != c->epoch || !ebb_ctl_leading (c))
    return;
  ebb_ctl_node *n = c->nodes[f.node];
  if (!err && agent_stale (res))
    ebb_ctl_depose (c, "an agent refused the fence: a newer leader fenced it");
  else if (n->state == NODE_LOST || n->fenced != c->epoch)
    return; /* lost (meanwhile): fenced again when it is back (ebb_ctl_outbox_node_reset) */
  else if (!err && (res->status == 200 || res->status == 404))
    {
      if (res->status == 404)
        ebb_log_warn ("node %s does not know POST /v1/fence: its calls go out unfenced", n->name);
      fence_answered (c, f.node, res->status == 200 ? res->json : NULL);
    }
  else
    {
      cleanup_free char *why
          = err ? ebb_xstrdup (err->msg) : ebb_xasprintf ("HTTP %ld", res->status);
      fence_retry (c, f.node, why);
    }
}

/* See outbox.h. */
void
ebb_ctl_send_fence (ebb_ctl *c, int node)
{
  ebb_ctl_node *n = c->nodes[node];
  ebb_http_call_opts opts = agent_opts (c);
  json_object *body = json_object_new_object ();
  ebb_json_add_uint64 (body, "epoch", c->epoch);
  /* Replicas: the agent's heartbeats come here at once. One controller is the agent's own
   * --controller already (and its listener's URL may be 0.0.0.0, not for the agent). */
  if (c->election && c->advertise_url)
    ebb_json_add_string (body, "leader", c->advertise_url);
  cleanup_error ebb_error *err = NULL;
  fence_call *f = ebb_xcalloc (1, sizeof *f);
  *f = (fence_call){ c, node, c->epoch };
  n->fenced = c->epoch;
  if (ebb_http_client_start (c->client, "POST", n->url, "/v1/fence", body, &opts, on_fence_done, f,
                             &err)
      < 0)
    {
      free (f);
      fence_retry (c, node, ebb_error_msg (&err));
    }
  json_object_put (body);
}

/* See outbox.h. */
void
ebb_ctl_outbox_node_reset (ebb_ctl *c, int node)
{
  ebb_ctl_node *n = c->nodes[node];
  if (n->n_held)
    ebb_log_warn ("node %s lost before its fence was answered: %u calls dropped", n->name,
                  n->n_held);
  held_drop (c, node, true);
  n->fenced = n->fence_ok = 0;
  n->fence_attempt = 0;
}
