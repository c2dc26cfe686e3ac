/* Nodes: heartbeats (capacity, URL, the task states an agent reports), drain, and the
 * periodic tick (node timeouts, the policy's tick). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* See sched.h. */
void
ebb_ctl_set_res_capacity (ebb_ctl *c, int idx, bool zero)
{
  for (uint32_t s = 0; c->res_mode && c->pol && s < c->n_slots; s++)
    if (c->slots[s].node == idx)
      ebb_pol_node_capacity (c->pol, s,
                             zero ? (ebb_pol_res){ 0, 0 }
                                  : (ebb_pol_res){ (int64_t)c->nodes[idx]->cap_cpu_millis,
                                                   (int64_t)c->nodes[idx]->cap_memory_bytes });
}

/* See ctl.h. */
void
ebb_ctl_node_drain (ebb_ctl *c, int idx, bool drain_it)
{
  ebb_ctl_node *n = c->nodes[idx];
  if (n->state == NODE_LOST)
    return;
  n->state = drain_it ? NODE_DRAINING : NODE_READY;
  ebb_ctl_store_node (c, n);
  if (drain_it && !c->res_mode)
    for (uint32_t s = 0; s < c->n_slots; s++)
      if (c->slots[s].node == idx)
        c->slots[s].ghost = true;
  ebb_ctl_set_res_capacity (c, idx, drain_it);
  c->rebuild_wanted = true;
  ebb_ctl_rebuild (c);
}

static ebb_ctl_task_state
agent_state (const char *s, json_object *o, int64_t *exit_status, bool *has_exit)
{
  json_object *v;
  *has_exit = false;
  if (strcmp (s, "exited") == 0)
    {
      if (json_object_object_get_ex (o, "exit_status", &v)
          && json_object_is_type (v, json_type_int))
        {
          *exit_status = json_object_get_int64 (v);
          *has_exit = true;
        }
      /* No status: the agent restarted while the task ran and could no longer wait for it
       * (it is not its child any more). The task ended on its own; count it as exited,
       * with exit_status null in the API. */
      return !*has_exit || *exit_status == 0 ? TASK_EXITED : TASK_FAILED;
    }
  if (strcmp (s, "suspended") == 0 || strcmp (s, "suspending") == 0)
    return TASK_SUSPENDED;
  return TASK_RUNNING;
}

/* Sends DELETE for the copy in generation gen of task t (its job and index; the rest of
 * the task is not touched) that node reports in state st and this controller no longer
 * wants, recorded first as a "fence" decision: the call leaves after the commit of the
 * heartbeat's transaction, like every other. */
static void
fence (ebb_ctl *c, const ebb_ctl_task *t, uint64_t gen, int node, const char *st)
{
  ebb_ctl_task copy = *t;
  copy.generation = gen;
  bool exited = strcmp (st, "exited") == 0;
  ebb_ctl_store_decision (c, "fence", &copy, node, t->job->id,
                          exited ? "stale copy, exited" : "stale copy");
  ebb_ctl_send_delete (c, &copy, gen, node, exited ? CALL_FORGET : CALL_KILL);
}

/* The agent's accounting of a task (issue 23): its suspended time and why it ended it;
 * written with the task's next change of state (its end at the latest). */
static void
hb_accounting (ebb_ctl_task *t, json_object *o)
{
  json_object *v;
  if (json_object_object_get_ex (o, "suspended_seconds", &v)
      && (json_object_is_type (v, json_type_double) || json_object_is_type (v, json_type_int)))
    {
      double sec = json_object_get_double (v);
      if (sec >= 0 && sec < 1e12)
        t->suspended_sec = sec;
    }
  if (json_object_object_get_ex (o, "end_reason", &v) && json_object_is_type (v, json_type_string))
    snprintf (t->end_reason, sizeof t->end_reason, "%s", json_object_get_string (v));
}

/* One task entry of a heartbeat. Returns true when it is one of node's active tasks and
 * still is after the report, then no longer starting (ebb_ctl_reconcile_missing counts
 * them). */
static bool
hb_task (ebb_ctl *c, int node, json_object *o)
{
  json_object *v;
  if (!json_object_object_get_ex (o, "id", &v) || !json_object_is_type (v, json_type_string))
    return false;
  const char *id = json_object_get_string (v);
  uint64_t job, gen;
  unsigned idx;
  int end = 0;
  if (sscanf (id, "j%" SCNu64 "-t%u-g%" SCNu64 "%n", &job, &idx, &gen, &end) != 3
      || id[end] != '\0')
    return false; /* not ours (adopted by an operator): leave it alone */
  ebb_ctl_job *j = ebb_ctl_job_find (c, job);
  const char *st
      = json_object_object_get_ex (o, "state", &v) && json_object_is_type (v, json_type_string)
            ? json_object_get_string (v)
            : "running";
  ebb_ctl_task *t = j && idx < j->ntasks ? &j->tasks[idx] : NULL;
  if (!t || t->generation != gen || t->node != node || !ebb_ctl_task_active (t))
    {
      /* A copy this controller no longer wants (an older generation, a task launched again
       * elsewhere, a job forgotten): fence it off. */
      if (t && (t->generation != gen || t->node != node || ebb_ctl_task_terminal (t)))
        fence (c, t, gen, node, st);
      else if (!j && job > 0 && job < c->next_job_id)
        {
          /* A finished job that left memory (sched-evict.c): its task is over too. */
          ebb_ctl_job gone = { .id = job };
          ebb_ctl_task copy = { .job = &gone, .idx = idx, .node = node };
          fence (c, &copy, gen, node, st);
        }
      return false;
    }
  bool first = t->report_stamp != c->report_stamp; /* a task listed twice counts once */
  t->report_stamp = c->report_stamp;
  t->missing_reports = 0;
  hb_accounting (t, o);
  int64_t status = 0;
  bool has_exit;
  ebb_ctl_task_state s = agent_state (st, o, &status, &has_exit);
  if ((s == TASK_EXITED || s == TASK_FAILED) && t->pkill)
    {
      /* The policy's KILL: the task runs again from its queue (its progress is lost). */
      ebb_ctl_send_delete (c, t, t->generation, node, CALL_FORGET);
      ebb_ctl_pol_killed (c, t, "policy");
      return false;
    }
  if (s == TASK_EXITED || s == TASK_FAILED)
    {
      /* Its exit came before the launch's answer (a task of milliseconds): it ran. */
      if (t->state == TASK_STARTING && t->started_at == 0)
        t->started_at = ebb_ctl_now ();
      t->exit_status = status;
      t->has_exit = has_exit;
      ebb_ctl_finish_task (c, t, t->kill_wanted ? TASK_KILLED : s, "exited");
      return false;
    }
  if (s != t->state && ebb_ctl_reconcile_task (c, t, node, s))
    return first;
  if (t->state == TASK_STARTING && t->started_at == 0)
    t->started_at = ebb_ctl_now ();
  if (s == TASK_SUSPENDED && t->state != TASK_SUSPENDED)
    t->suspensions++;
  if (s != t->state)
    {
      ebb_ctl_task_set_state (c, t, s);
      ebb_ctl_task_write (c, t);
      ebb_ctl_job_update (c, t->job);
    }
  return first;
}

static int
hb_node (ebb_ctl *c, const char *name, json_object *body, int *idx, ebb_error **err)
{
  json_object *node = NULL, *cap = NULL, *v;
  uint64_t cpu = 0, mem = 0, seq = 0;
  const char *url = NULL;
  if (!json_object_object_get_ex (body, "node", &node)
      || !json_object_is_type (node, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "field \"node\": an object is required");
  if (!json_object_object_get_ex (node, "capacity", &cap)
      || ebb_json_get_uint64 (cap, "cpu_millis", 1, EBB_AGENT_CPU_MILLIS_MAX_CTL, &cpu, err) <= 0
      || ebb_json_get_uint64 (cap, "memory_bytes", 0, UINT64_MAX / 2, &mem, err) <= 0)
    return ebb_error_set (err, EBB_EPARSE,
                          "field \"node.capacity\": cpu_millis and memory_bytes required");
  if (json_object_object_get_ex (body, "url", &v) || json_object_object_get_ex (node, "url", &v))
    {
      if (!json_object_is_type (v, json_type_string))
        return ebb_error_set (err, EBB_EPARSE, "field \"url\": must be a string");
      url = json_object_get_string (v);
      if (strlen (url) > 4096
          || (strncmp (url, "http://", 7) != 0 && strncmp (url, "https://", 8) != 0
              && strncmp (url, "unix:/", 6) != 0))
        return ebb_error_set (err, EBB_EPARSE,
                              "field \"url\": http://, https:// or unix:/ expected");
    }
  if (json_object_object_get_ex (body, "seq", &v)
      && ebb_json_get_uint64 (body, "seq", 0, UINT64_MAX, &seq, err) < 0)
    return -EBB_EPARSE;
  json_object *tasks;
  if (json_object_object_get_ex (body, "tasks", &tasks)
      && !json_object_is_type (tasks, json_type_array))
    return ebb_error_set (err, EBB_EPARSE, "field \"tasks\": must be an array");

  ebb_ctl_node *n = ebb_ctl_node_find (c, name, idx);
  bool changed = false;
  if (!n)
    {
      n = ebb_xcalloc (1, sizeof *n);
      n->name = ebb_xstrdup (name);
      n->state = NODE_LOST; /* becomes ready below */
      if (ebb_ctl_add_node (c, n) < 0)
        {
          free (n->name);
          free (n);
          return ebb_error_set (err, ENOSPC, "too many nodes");
        }
      *idx = (int)c->n_nodes - 1;
    }
  uint32_t slots = ebb_ctl_node_slots (cpu);
  if (n->state == NODE_LOST || (seq && seq < n->last_seq))
    {
      /* A new incarnation (first contact, back from lost, or the agent restarted): a new
       * epoch, so that commands and reports of the old one are told apart. */
      n->epoch++;
      if (n->state == NODE_LOST)
        {
          n->state = NODE_READY;
          ebb_ctl_outbox_node_reset (c, *idx); /* fenced again, its tasks read in the answer */
        }
      changed = true;
      ebb_log_notice ("node %s: ready (epoch %" PRIu64 ", %u slots)", name, n->epoch, slots);
    }
  if (slots != n->nslots || n->cap_memory_bytes != mem
      || (url && (!n->url || strcmp (url, n->url))))
    changed = true;
  n->nslots = slots;
  n->cap_cpu_millis = cpu;
  n->cap_memory_bytes = mem;
  if (url && (!n->url || strcmp (url, n->url)))
    {
      free (n->url);
      n->url = ebb_xstrdup (url);
    }
  n->last_seq = seq;
  n->last_hb_usec = ebb_now_usec ();
  n->last_hb_at = ebb_ctl_now ();
  if (changed)
    {
      ebb_ctl_store_node (c, n);
      c->rebuild_wanted = true;
    }
  return 0;
}

/* See ctl.h. */
int
ebb_ctl_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err)
{
  int idx = -1;
  if (!body || !json_object_is_type (body, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "a JSON object is required");
  if (hb_node (c, name, body, &idx, err) < 0)
    return -EBB_EPARSE;
  c->m.heartbeats++;
  json_object *tasks = NULL;
  json_object_object_get_ex (body, "tasks", &tasks);
  ebb_ctl_reconcile_tasks (c, idx, tasks);
  return 0;
}

/* See sched.h. What the report changes is committed with the rest of the loop iteration
 * (before any call it decides goes out); lost in a crash, it is reported again. */
void
ebb_ctl_reconcile_tasks (ebb_ctl *c, int node, json_object *tasks)
{
  bool full = tasks && json_object_is_type (tasks, json_type_array);
  size_t n = full ? json_object_array_length (tasks) : 0;
  uint32_t present = 0;
  c->report_stamp++;
  for (size_t i = 0; i < n; i++)
    {
      json_object *o = json_object_array_get_idx (tasks, i);
      if (json_object_is_type (o, json_type_object))
        present += hb_task (c, node, o);
    }
  /* A report without a task list (not an agent's) says nothing of what is missing. */
  if (full)
    ebb_ctl_reconcile_missing (c, node, present);
  if (c->rebuild_wanted || !c->pol)
    ebb_ctl_rebuild (c);
}

/* See ctl.h. */
void
ebb_ctl_sched_tick (ebb_ctl *c)
{
  uint64_t now = ebb_now_usec ();
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      ebb_ctl_node *n = c->nodes[i];
      if (n->state == NODE_LOST)
        continue;
      if (n->last_hb_usec == 0)
        n->last_hb_usec = now; /* loaded from the store: give it one timeout to report */
      else if (now - n->last_hb_usec > c->cfg->node_timeout_usec)
        {
          /* Its agent may never learn why (its heartbeats lost on the way): the log says. */
          cleanup_free char *why = ebb_xasprintf (
              "last heartbeat %.1f s ago, over --node-timeout %.1f s",
              (double)(now - n->last_hb_usec) / 1e6, (double)c->cfg->node_timeout_usec / 1e6);
          ebb_ctl_lose_node (c, (int)i, why);
        }
    }
  if (c->rebuild_wanted || !c->pol)
    ebb_ctl_rebuild (c);
  ebb_ctl_resume_owed (c);
  ebb_ctl_hold_rejoin (c);
  /* The timer delivers them when due; this only catches one it could not arm. */
  ebb_ctl_timed_run (c, (double)now / 1e6);
  double tick = c->pol ? ebb_pol_params_of (c->pol)->tick_sec : 0;
  if (c->pol && (tick <= 0 || ebb_ctl_pol_now (c) - c->last_pol_tick >= tick))
    {
      c->last_pol_tick = ebb_ctl_pol_now (c);
      ebb_pol_tick (c->pol, c->last_pol_tick);
      ebb_ctl_drain (c);
      ebb_ctl_explain_all (c);
    }
  if (c->pol)
    ebb_ctl_pjobs_forget_later (c);
}
