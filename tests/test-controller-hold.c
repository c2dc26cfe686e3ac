/* The operator's hold in the controller (issue 22 item 3; controller/sched-hold.c,
 * ops-hold.c): the refusals of ebb_ctl_op_hold change nothing; a hold of a running task is
 * a "hold" decision by its caller and a CALL_HOLD (immediate suspend) in the outbox, its
 * row kept for a replay; the policy's rounds never resume it; the flag is stored; the job's
 * reason is "held"; the release is a "release" and a CALL_RELEASE. No agent: the calls are
 * read from the outbox and answered by hand. */
#include "config.h"

#include "controller/ops.h"
#include "controller/outbox.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

static ebb_ctl_config cfg;

/* A controller running policy over one node of 2 CPUs. */
static ebb_ctl *
make (const char *policy, const char *state)
{
  ebb_ctl *c = ctlfix_ctl_new (&cfg, state, policy);
  ctlfix_ctl_open (c);
  ctlfix_nodes_report (c, 1, 2000, INT64_C (1) << 30, 1);
  return c;
}

/* A long job of n tasks of 1 CPU, added and scheduled, its launches taken as answered. */
static ebb_ctl_job *
submit_running (ebb_ctl *c, uint32_t n)
{
  ebb_ctl_job *j = ctlfix_submit (c, "long", CLS_LONG, n);
  ebb_ctl_store_begin (c);
  for (uint32_t k = 0; k < n; k++)
    if (j->tasks[k].state == TASK_STARTING)
      ebb_ctl_task_set_state (c, &j->tasks[k], TASK_RUNNING);
  ebb_ctl_store_commit (c);
  ebb_ctl_calls_free (c); /* the launches: no agent here */
  return j;
}

/* The one call in the outbox for task t of kind, or NULL. */
static ebb_ctl_call *
call_of (ebb_ctl *c, const ebb_ctl_task *t, ebb_ctl_call_kind kind)
{
  ebb_ctl_call *found = NULL;
  for (size_t i = 0; i < c->n_outbox; i++)
    if (c->outbox[i]->kind == kind && c->outbox[i]->job == t->job->id
        && c->outbox[i]->idx == t->idx)
      found = c->outbox[i];
  return found;
}

/* How many decisions of action (for task "J-K" when task is not NULL) the log holds, the
 * reason of the last in *reason (freed by the caller). */
static int
decisions (ebb_ctl *c, const char *action, const char *task, char **reason)
{
  json_object *arr = ebb_ctl_store_decisions (c, 0, 1000);
  int n = 0;
  if (json_object_is_type (arr, json_type_array))
    for (size_t i = 0; i < json_object_array_length (arr); i++)
      {
        json_object *d = json_object_array_get_idx (arr, i), *a, *t, *r;
        if (json_object_object_get_ex (d, "action", &a)
            && strcmp (json_object_get_string (a), action) == 0
            && (!task
                || (json_object_object_get_ex (d, "task", &t)
                    && strcmp (json_object_get_string (t), task) == 0)))
          {
            n++;
            if (reason && json_object_object_get_ex (d, "reason", &r))
              {
                free (*reason);
                *reason = ebb_xstrdup (json_object_get_string (r));
              }
          }
      }
  json_object_put (arr);
  return n;
}

/* Answers call k as its agent would (200). */
static void
answer (ebb_ctl *c, ebb_ctl_call *k)
{
  ebb_http_result res = { .status = 200 };
  ebb_ctl_store_begin (c);
  c->call_routes[k->kind].on_answer (k, &res);
  ebb_ctl_store_commit (c);
}

/* Refusals: a task the job lacks (404), one not running (409), a slot-mode policy (409):
 * nothing in the log nor the outbox. */
static void
test_op_refusals (void)
{
  ebb_ctl *c = make ("ebb", "refuse");
  ebb_ctl_job *j = submit_running (c, 3); /* two run, the third waits */
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_ctl_op_hold (c, j, 5, true, "uid 7", &err), 404);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL_FATAL (j->tasks[2].state, TASK_PENDING);
  CU_ASSERT_EQUAL (ebb_ctl_op_hold (c, j, 2, true, "uid 7", &err), 409);
  CU_ASSERT_PTR_NOT_NULL (err && strstr (ebb_error_msg (&err), "is pending"));
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_ctl_op_hold (c, j, 0, false, "uid 7", &err), 0); /* not held: nothing */
  CU_ASSERT_EQUAL (decisions (c, "hold", NULL, NULL), 0);
  CU_ASSERT_EQUAL (c->n_outbox, 0);
  CU_ASSERT_FALSE (j->tasks[0].held);
  ctlfix_ctl_del (c);

  c = make ("fifo", "refuse-slots");
  j = submit_running (c, 1);
  CU_ASSERT_EQUAL (ebb_ctl_op_hold (c, j, -1, true, "uid 7", &err), 409);
  CU_ASSERT_PTR_NOT_NULL (err && strstr (ebb_error_msg (&err), "slot mode"));
  ebb_error_free (&err);
  ctlfix_ctl_del (c);
}

/* Hold, rounds, store, release. */
static void
test_hold_release (void)
{
  ebb_ctl *c = make ("ebb", "hold");
  ebb_ctl_job *j = submit_running (c, 2);
  ebb_ctl_task *t = &j->tasks[0];
  cleanup_free char *tid = ebb_xasprintf ("%" PRIu64 "-0", j->id);
  ebb_ctl_store_begin (c);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_task_hold (c, t, true, "uid 7", NULL), 0);
  ebb_ctl_store_commit (c);
  CU_ASSERT (t->held);
  ebb_ctl_call *k = call_of (c, t, CALL_HOLD);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  CU_ASSERT_PTR_NOT_NULL (strstr (k->path, "/suspend"));
  CU_ASSERT_PTR_NOT_NULL (strstr (json_object_to_json_string (k->body), "\"immediate\""));
  cleanup_free char *why = NULL;
  CU_ASSERT_EQUAL (decisions (c, "hold", tid, &why), 1);
  CU_ASSERT_STRING_EQUAL (why, "operator (uid 7)");
  CU_ASSERT_EQUAL (decisions (c, "suspend", NULL, NULL), 0); /* not the policy's */
  ebb_ctl_stored_call *v;
  size_t nv = ebb_ctl_store_calls (c, &v);
  CU_ASSERT_EQUAL (nv, 1);
  if (nv == 1)
    CU_ASSERT_STRING_EQUAL (v[0].kind, "hold");
  ebb_ctl_stored_calls_free (v, nv);
  /* Held again: nothing more. */
  size_t n0 = c->n_outbox;
  ebb_ctl_store_begin (c);
  CU_ASSERT_EQUAL (ebb_ctl_task_hold (c, t, true, "uid 7", NULL), 0);
  ebb_ctl_store_commit (c);
  CU_ASSERT_EQUAL (c->n_outbox, n0);
  answer (c, k);
  CU_ASSERT_EQUAL (t->state, TASK_SUSPENDED);
  /* Rounds with room: the policy resumes nothing. */
  for (int i = 0; i < 20; i++)
    {
      ebb_pol_tick (c->pol, ebb_ctl_pol_now (c) + 3.0 * (i + 1));
      ebb_ctl_drain (c);
    }
  CU_ASSERT_PTR_NULL (call_of (c, t, CALL_RESUME));
  CU_ASSERT_EQUAL (decisions (c, "resume", NULL, NULL), 0);
  /* Stored: a job read back says held; the other task runs, so the job is not "held". */
  ebb_ctl_job *r = ebb_ctl_store_job_get (c, j->id);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT (r->tasks[0].held);
  CU_ASSERT_FALSE (r->tasks[1].held);
  ebb_ctl_job_free (r);
  CU_ASSERT_NOT_EQUAL (j->reason.code, REASON_HELD);
  CU_ASSERT_STRING_EQUAL (ebb_ctl_reason_name (t->reason.code), "held");
  /* The whole job: the other task too, and the job's reason says so. */
  ebb_ctl_store_begin (c);
  CU_ASSERT_EQUAL (ebb_ctl_task_hold (c, &j->tasks[1], true, "token", NULL), 0);
  ebb_ctl_store_commit (c);
  CU_ASSERT_STRING_EQUAL (ebb_ctl_reason_name (j->reason.code), "held");
  /* The release: a "release" decision and CALL_RELEASE; answered, it runs. */
  ebb_ctl_store_begin (c);
  CU_ASSERT_EQUAL (ebb_ctl_task_hold (c, t, false, "uid 8", NULL), 0);
  ebb_ctl_store_commit (c);
  CU_ASSERT_FALSE (t->held);
  k = call_of (c, t, CALL_RELEASE);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  CU_ASSERT_PTR_NOT_NULL (strstr (k->path, "/resume"));
  CU_ASSERT_EQUAL (decisions (c, "release", tid, &why), 1);
  CU_ASSERT_STRING_EQUAL (why, "operator (uid 8)");
  answer (c, k);
  CU_ASSERT_EQUAL (t->state, TASK_RUNNING);
  CU_ASSERT_EQUAL (t->reason.code, REASON_NONE);
  ctlfix_ctl_del (c);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_op_refusals),
  EBB_CU_TEST (test_hold_release),
};

static int
suite_init (void)
{
  return ctlfix_init ("/tmp/ebb-ctl-hold.XXXXXX");
}

static int
suite_clean (void)
{
  return ctlfix_clean ();
}

EBB_CU_MAIN ("controller-hold", suite_init, suite_clean, tests)
