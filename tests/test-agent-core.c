/* Unit suite of the agent's pure parts: the state machine, request validation, cgroup path
 * canonicalization, the journal (encode/decode round trip, atomic write, loading with
 * damaged records), the idempotency table, histogram quantiles. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/context.h"
#include "agent/ident.h"
#include "agent/idem.h"
#include "agent/journal.h"
#include "agent/logs.h"
#include "agent/metrics.h"
#include "agent/options.h"
#include "agent/request.h"
#include "agent/task.h"
#include "lib/conf.h"
#include "lib/file.h"
#include "lib/json.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/cu.h"

static json_object *
js (const char *text)
{
  json_object *o = ebb_json_parse (text, strlen (text), 0, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (o);
  return o;
}

static void
test_transitions (void)
{
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RUNNING, 0, EBB_AGENT_EV_SUSPEND),
                   EBB_AGENT_SUSPENDING);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_SUSPENDED, 0, EBB_AGENT_EV_SUSPEND),
                   EBB_AGENT_SUSPENDING);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_SUSPENDING, 0, EBB_AGENT_EV_SUSPENDED),
                   EBB_AGENT_SUSPENDED);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_SUSPENDED, 0, EBB_AGENT_EV_RESUME),
                   EBB_AGENT_RESUMING);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RESUMING, 0, EBB_AGENT_EV_RESUMED),
                   EBB_AGENT_RUNNING);
  /* A failure returns to where the transition started. */
  CU_ASSERT_EQUAL (
      ebb_agent_transition (EBB_AGENT_SUSPENDING, EBB_AGENT_RUNNING, EBB_AGENT_EV_FAILED),
      EBB_AGENT_RUNNING);
  CU_ASSERT_EQUAL (
      ebb_agent_transition (EBB_AGENT_RESUMING, EBB_AGENT_SUSPENDED, EBB_AGENT_EV_FAILED),
      EBB_AGENT_SUSPENDED);
  /* Not allowed. */
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RUNNING, 0, EBB_AGENT_EV_RESUME), -1);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RESUMING, 0, EBB_AGENT_EV_SUSPEND), -1);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_SUSPENDING, 0, EBB_AGENT_EV_RESUME), -1);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RUNNING, 0, EBB_AGENT_EV_FAILED), -1);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_RUNNING, 0, EBB_AGENT_EV_SUSPENDED), -1);
  for (int ev = EBB_AGENT_EV_SUSPEND; ev <= EBB_AGENT_EV_EXIT; ev++)
    CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_EXITED, 0, (ebb_agent_event)ev), -1);
  CU_ASSERT_EQUAL (ebb_agent_transition (EBB_AGENT_SUSPENDING, 0, EBB_AGENT_EV_EXIT),
                   EBB_AGENT_EXITED);

  ebb_agent_task *t = ebb_agent_task_new ("x");
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_agent_task_apply (t, EBB_AGENT_EV_SUSPEND, &err), 0);
  CU_ASSERT_EQUAL (t->prev_state, EBB_AGENT_RUNNING);
  CU_ASSERT_EQUAL (ebb_agent_task_apply (t, EBB_AGENT_EV_FAILED, &err), 0);
  CU_ASSERT_EQUAL (t->state, EBB_AGENT_RUNNING);
  CU_ASSERT_EQUAL (ebb_agent_task_apply (t, EBB_AGENT_EV_RESUMED, &err), -EINVAL);
  CU_ASSERT_PTR_NOT_NULL (err);
  CU_ASSERT_EQUAL (t->state, EBB_AGENT_RUNNING);
  ebb_error_free (&err);
  ebb_agent_task_free (t);
}

static void
test_names (void)
{
  ebb_agent_state s;
  ebb_agent_source src;
  for (int i = 0; i < EBB_AGENT_N_STATES; i++)
    {
      CU_ASSERT_EQUAL (ebb_agent_state_from_name (ebb_agent_state_name (i), &s), 0);
      CU_ASSERT_EQUAL (s, i);
    }
  CU_ASSERT_EQUAL (ebb_agent_state_from_name ("pending", &s), -1);
  CU_ASSERT_EQUAL (ebb_agent_source_from_name ("podman", &src), 0);
  CU_ASSERT_EQUAL (src, EBB_AGENT_SRC_PODMAN);
  CU_ASSERT_EQUAL (ebb_agent_source_from_name ("kubelet", &src), -1);
  CU_ASSERT_PTR_NULL (ebb_agent_state_name (EBB_AGENT_N_STATES));
}

#define LAUNCH_REST "\"cpu_millis\":500,\"memory_bytes\":67108864,\"job\":\"j\",\"class\":\"long\""

static int
launch_rc (const char *text)
{
  json_object *o = js (text);
  ebb_agent_launch_req r;
  ebb_error *err = NULL;
  int rc = ebb_agent_parse_launch (o, &r, &err);
  if (rc < 0)
    CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
  ebb_agent_launch_req_clear (&r);
  json_object_put (o);
  return rc;
}

static void
test_parse_launch (void)
{
  json_object *o = js ("{\"id\":\"t-1.a_b\",\"argv\":[\"sleep\",\"1\"],\"env\":{\"A\":\"1\"},"
                       "\"cwd\":\"/tmp\"," LAUNCH_REST ",\"request_id\":\"r1\"}");
  ebb_agent_launch_req r;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_agent_parse_launch (o, &r, &err), 0);
  CU_ASSERT_STRING_EQUAL (r.id, "t-1.a_b");
  CU_ASSERT_STRING_EQUAL (r.argv[1], "1");
  CU_ASSERT_PTR_NULL (r.argv[2]);
  CU_ASSERT_STRING_EQUAL (r.env[0], "A=1");
  CU_ASSERT_STRING_EQUAL (r.cwd, "/tmp");
  CU_ASSERT_EQUAL (r.cpu_millis, 500);
  CU_ASSERT_EQUAL (r.memory_bytes, 67108864);
  CU_ASSERT_STRING_EQUAL (r.cls, "long");
  CU_ASSERT_STRING_EQUAL (r.request_id, "r1");
  ebb_agent_launch_req_clear (&r);
  json_object_put (o);

  CU_ASSERT (launch_rc ("{\"argv\":[\"a\"]," LAUNCH_REST "}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"..\",\"argv\":[\"a\"]," LAUNCH_REST "}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a/b\",\"argv\":[\"a\"]," LAUNCH_REST "}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[]," LAUNCH_REST "}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"\"]," LAUNCH_REST "}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"x\":1}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"cwd\":\"rel\"}") < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"],\"cpu_millis\":5,\"memory_bytes\":"
                        "67108864,\"job\":\"j\",\"class\":\"long\"}")
             < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"],\"cpu_millis\":500,\"memory_bytes\":"
                        "67108864,\"job\":\"j\",\"class\":\"batch\"}")
             < 0);
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"],\"cpu_millis\":500,\"memory_bytes\":-1,"
                        "\"job\":\"j\",\"class\":\"long\"}")
             < 0);
  ebb_agent_launch_req r2;
  CU_ASSERT (ebb_agent_parse_launch (NULL, &r2, &err) < 0);
  ebb_error_free (&err);
  ebb_agent_launch_req_clear (&r2);
}

/* time_limit_sec and notify_signal: optional, bounded; a signal by name or number, never
 * one the task cannot catch. */
static void
test_parse_launch_task_options (void)
{
  json_object *o = js ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"time_limit_sec\":7200,"
                       "\"notify_signal\":\"SIGUSR1\"}");
  ebb_agent_launch_req r;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_agent_parse_launch (o, &r, &err), 0);
  CU_ASSERT_EQUAL (r.time_limit_sec, 7200);
  CU_ASSERT_EQUAL (r.notify_signal, SIGUSR1);
  ebb_agent_launch_req_clear (&r);
  json_object_put (o);
  o = js ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST "}");
  CU_ASSERT_EQUAL_FATAL (ebb_agent_parse_launch (o, &r, &err), 0);
  CU_ASSERT_EQUAL (r.time_limit_sec, 0);
  CU_ASSERT_EQUAL (r.notify_signal, 0);
  ebb_agent_launch_req_clear (&r);
  json_object_put (o);

  static const struct
  {
    const char *value;
    int sig; /* 0: refused */
    int code;
  } cases[] = {
    { "\"USR2\"", SIGUSR2, 0 },      { "10", 10, 0 },
    { "\"SIGTERM\"", SIGTERM, 0 },   { "\"SIGKILL\"", 0, EBB_ERANGE },
    { "9", 0, EBB_ERANGE },          { "\"STOP\"", 0, EBB_ERANGE },
    { "19", 0, EBB_ERANGE },         { "0", 0, EBB_ERANGE },
    { "-1", 0, EBB_ERANGE },         { "65", 0, EBB_ERANGE },
    { "\"SIGFOO\"", 0, EBB_EPARSE }, { "1.5", 0, EBB_EPARSE },
    { "\"\"", 0, EBB_EPARSE },       { "null", 0, EBB_EPARSE },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      char *text = ebb_xasprintf (
          "{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"notify_signal\":%s}", cases[i].value);
      o = js (text);
      int rc = ebb_agent_parse_launch (o, &r, &err);
      CU_ASSERT (cases[i].sig ? rc == 0 && r.notify_signal == cases[i].sig : rc == -cases[i].code);
      ebb_error_free (&err);
      ebb_agent_launch_req_clear (&r);
      json_object_put (o);
      free (text);
    }
  CU_ASSERT (launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"time_limit_sec\":0}")
             < 0);
  CU_ASSERT (
      launch_rc ("{\"id\":\"a\",\"argv\":[\"a\"]," LAUNCH_REST ",\"time_limit_sec\":999999999999}")
      < 0);
}

/* A task's environment names it; the caller cannot say otherwise. */
static void
test_task_env (void)
{
  char *env[] = { "A=1", "EBB_JOB_ID=other", "EBB_TASK_ID=x", "EBB_CLASS=short", "B=2", NULL };
  ebb_agent_launch_req r = { 0 };
  r.id = "t1", r.job = "j1", r.cls = "long", r.env = env;
  char **out = ebb_agent_task_env (&r);
  static const char *const want[]
      = { "A=1", "B=2", "EBB_JOB_ID=j1", "EBB_TASK_ID=t1", "EBB_CLASS=long" };
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (out), EBB_ARRAY_SIZE (want));
  for (size_t i = 0; i < EBB_ARRAY_SIZE (want); i++)
    CU_ASSERT_STRING_EQUAL (out[i], want[i]);
  ebb_strv_free (out);
  r.env = NULL; /* the default environment, named too */
  out = ebb_agent_task_env (&r);
  CU_ASSERT_EQUAL (ebb_strv_length (out), 5);
  CU_ASSERT_EQUAL (strncmp (out[0], "PATH=", 5), 0);
  CU_ASSERT_STRING_EQUAL (out[4], "EBB_CLASS=long");
  ebb_strv_free (out);
}

#define SEC 1000000ULL

/* Suspended time and suspensions: counted from the suspend's start to the resume's end, a
 * graceful step inside a suspension is no new one, the one under way counts up to now;
 * the running time is the rest, and the time limit is on it alone. */
static void
test_task_accounting (void)
{
  ebb_agent_task *t = ebb_agent_task_new ("acc");
  t->started_usec = 1000 * SEC;
  t->time_limit_sec = 10;
  CU_ASSERT_EQUAL (ebb_agent_task_running_usec (t, 1004 * SEC), 4 * SEC);
  CU_ASSERT_EQUAL (ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPEND, 1004 * SEC, NULL), 0);
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPENDED, 1005 * SEC, NULL);
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPEND, 1006 * SEC, NULL); /* a graceful step */
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPENDED, 1007 * SEC, NULL);
  CU_ASSERT_EQUAL (t->suspensions, 1);
  CU_ASSERT_EQUAL (ebb_agent_task_suspended_usec (t, 1030 * SEC), 26 * SEC);
  CU_ASSERT_EQUAL (ebb_agent_task_running_usec (t, 1030 * SEC), 4 * SEC);
  CU_ASSERT_FALSE (ebb_agent_task_over_limit (t, 1030 * SEC)); /* 30 s old, ran 4 */
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_RESUME, 1030 * SEC, NULL);
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_RESUMED, 1031 * SEC, NULL);
  CU_ASSERT_EQUAL (t->suspended_usec, 27 * SEC);
  CU_ASSERT_EQUAL (t->suspended_since_usec, 0);
  CU_ASSERT_FALSE (ebb_agent_task_over_limit (t, 1037 * SEC)); /* ran 10 */
  CU_ASSERT_TRUE (ebb_agent_task_over_limit (t, 1037 * SEC + 1));
  /* A second suspension, ended by the exit. */
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPEND, 1040 * SEC, NULL);
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_SUSPENDED, 1040 * SEC, NULL);
  ebb_agent_task_apply_at (t, EBB_AGENT_EV_EXIT, 1042 * SEC, NULL);
  CU_ASSERT_EQUAL (t->suspensions, 2);
  CU_ASSERT_EQUAL (t->suspended_usec, 29 * SEC);
  CU_ASSERT_EQUAL (ebb_agent_task_running_usec (t, 2000 * SEC), 13 * SEC);
  CU_ASSERT_FALSE (ebb_agent_task_over_limit (t, 2000 * SEC)); /* exited */

  /* A failed suspend back to running closes its suspension; a state set by hand (a
   * reconcile finding the task gone) is brought up to date by ebb_agent_task_account(). */
  ebb_agent_task *f = ebb_agent_task_new ("f");
  ebb_agent_task_apply_at (f, EBB_AGENT_EV_SUSPEND, 10 * SEC, NULL);
  ebb_agent_task_apply_at (f, EBB_AGENT_EV_FAILED, 11 * SEC, NULL);
  CU_ASSERT (f->state == EBB_AGENT_RUNNING && f->suspended_since_usec == 0);
  CU_ASSERT_EQUAL (f->suspended_usec, 1 * SEC);
  ebb_agent_task_apply_at (f, EBB_AGENT_EV_SUSPEND, 20 * SEC, NULL);
  ebb_agent_task_apply_at (f, EBB_AGENT_EV_SUSPENDED, 20 * SEC, NULL);
  f->state = EBB_AGENT_EXITED;
  ebb_agent_task_account (f, 25 * SEC);
  CU_ASSERT_EQUAL (f->suspended_usec, 6 * SEC);
  CU_ASSERT_EQUAL (f->ended_usec, 25 * SEC);
  CU_ASSERT_EQUAL (f->suspensions, 2);
  ebb_agent_task_account (f, 30 * SEC); /* idempotent */
  CU_ASSERT (f->suspended_usec == 6 * SEC && f->ended_usec == 25 * SEC);
  ebb_agent_task_free (f);

  /* In the API: the seconds with their milliseconds, the limit, the signal by name. */
  t->notify_signal = SIGUSR1;
  t->end_reason = ebb_xstrdup (EBB_AGENT_END_TIME_LIMIT);
  t->suspended_usec = 2345678;
  json_object *o = ebb_agent_task_to_json (t);
  char *text = ebb_json_to_string (o);
  CU_ASSERT_PTR_NOT_NULL (strstr (text, "\"suspended_seconds\":2.345"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text, "\"suspensions\":2"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text, "\"time_limit_sec\":10"));
  CU_ASSERT_PTR_NOT_NULL (strstr (text, "\"notify_signal\":\"SIGUSR1\""));
  CU_ASSERT_PTR_NOT_NULL (strstr (text, "\"end_reason\":\"time limit\""));
  free (text);
  json_object_put (o);

  /* Journaled: a restarted agent goes on counting a suspension under way. */
  t->state = EBB_AGENT_SUSPENDED;
  t->ended_usec = 0;
  t->suspended_since_usec = 1050 * SEC;
  o = ebb_agent_journal_encode (t);
  ebb_agent_task *u = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_agent_journal_decode (o, &u, NULL), 0);
  json_object_put (o);
  CU_ASSERT_EQUAL (u->time_limit_sec, 10);
  CU_ASSERT_EQUAL (u->notify_signal, SIGUSR1);
  CU_ASSERT_STRING_EQUAL (u->end_reason, "time limit");
  CU_ASSERT_EQUAL (u->started_usec, 1000 * SEC);
  CU_ASSERT_EQUAL (u->suspensions, 2);
  CU_ASSERT_EQUAL (ebb_agent_task_suspended_usec (u, 1060 * SEC), 2345678 + 10 * SEC);
  /* The JSON of a suspension under way is not cached: it counts on. */
  t->suspended_since_usec = ebb_realtime_usec () - 5 * SEC;
  size_t n;
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_agent_task_json_text (t, &n), "\"suspended_seconds\":7."));
  t->suspended_since_usec -= 10 * SEC;
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_agent_task_json_text (t, &n), "\"suspended_seconds\":17."));
  ebb_agent_task_free (u);
  ebb_agent_task_free (t);
}

static int
suspend_rc (const char *text, ebb_agent_suspend_req *out)
{
  json_object *o = js (text);
  ebb_error *err = NULL;
  int rc = ebb_agent_parse_suspend (o, out, &err);
  ebb_error_free (&err);
  json_object_put (o);
  return rc;
}

static void
test_parse_suspend_adopt (void)
{
  ebb_agent_suspend_req s;
  CU_ASSERT_EQUAL (suspend_rc ("{\"mode\":\"immediate\"}", &s), 0);
  CU_ASSERT_FALSE (s.graceful);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT_EQUAL (suspend_rc ("{\"mode\":\"graceful\",\"cpu_millis\":250}", &s), 0);
  CU_ASSERT_TRUE (s.graceful);
  CU_ASSERT_EQUAL (s.cpu_millis, 250);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT (suspend_rc ("{\"mode\":\"graceful\"}", &s) < 0);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT (suspend_rc ("{\"mode\":\"immediate\",\"memory_bytes\":1}", &s) < 0);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT (suspend_rc ("{\"mode\":\"freeze\"}", &s) < 0);
  ebb_agent_suspend_req_clear (&s);
  /* The controller's form: mode and amounts, a request id and the task's generation. */
  CU_ASSERT_EQUAL (suspend_rc ("{\"mode\":\"graceful\",\"cpu_millis\":500,"
                               "\"memory_bytes\":67108864,\"request_id\":\"c-1\","
                               "\"generation\":3}",
                               &s),
                   0);
  CU_ASSERT_EQUAL (s.cpu_millis, 500);
  CU_ASSERT_EQUAL (s.memory_bytes, 67108864);
  CU_ASSERT_EQUAL (s.generation, 3);
  CU_ASSERT_STRING_EQUAL (s.request_id, "c-1");
  ebb_agent_suspend_req_clear (&s);
  /* What the scheduler booked for the task, graceful only, at least the step. */
  CU_ASSERT_EQUAL (suspend_rc ("{\"mode\":\"graceful\",\"cpu_millis\":990,"
                               "\"memory_bytes\":4194304,\"booked\":{\"cpu_millis\":1000,"
                               "\"memory_bytes\":67108864}}",
                               &s),
                   0);
  CU_ASSERT_EQUAL (s.booked.cpu_millis, 1000);
  CU_ASSERT_EQUAL (s.booked.memory_bytes, 67108864);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT_EQUAL (suspend_rc ("{\"mode\":\"graceful\",\"cpu_millis\":1000,"
                               "\"booked\":{\"cpu_millis\":1000}}",
                               &s),
                   0);
  CU_ASSERT_EQUAL (s.booked.cpu_millis, 1000);
  CU_ASSERT_EQUAL (s.booked.memory_bytes, 0);
  ebb_agent_suspend_req_clear (&s);
  static const char *const bad_booked[] = {
    "{\"mode\":\"immediate\",\"booked\":{\"cpu_millis\":1000}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":50}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"memory_bytes\":67108864}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":0}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":-1000}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":\"1000\"}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":1000.5}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":1e30}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":1024001}}",
    "{\"mode\":\"graceful\",\"memory_bytes\":1,\"booked\":{\"memory_bytes\":17592186044417}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":{\"cpu_millis\":1000,\"x\":1}}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":[1000]}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":null}",
    "{\"mode\":\"graceful\",\"cpu_millis\":100,\"booked\":1000}",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad_booked); i++)
    {
      CU_ASSERT (suspend_rc (bad_booked[i], &s) < 0);
      ebb_agent_suspend_req_clear (&s);
    }
  CU_ASSERT (suspend_rc ("{\"mode\":\"immediate\",\"generation\":0}", &s) < 0);
  ebb_agent_suspend_req_clear (&s);
  CU_ASSERT (suspend_rc ("{\"mode\":\"immediate\",\"generation\":-1}", &s) < 0);
  ebb_agent_suspend_req_clear (&s);

  ebb_agent_adopt_req a;
  ebb_error *err = NULL;
  json_object *o = js ("{\"cgroup\":\"/a/b\",\"id\":\"b\"}");
  CU_ASSERT_EQUAL (ebb_agent_parse_adopt (o, &a, &err), 0);
  ebb_agent_adopt_req_clear (&a);
  json_object_put (o);
  o = js ("{\"cgroup\":\"/a/b\",\"container\":\"c\"}");
  CU_ASSERT (ebb_agent_parse_adopt (o, &a, &err) < 0);
  ebb_error_free (&err);
  ebb_agent_adopt_req_clear (&a);
  json_object_put (o);
  o = js ("{}");
  CU_ASSERT (ebb_agent_parse_adopt (o, &a, &err) < 0);
  ebb_error_free (&err);
  ebb_agent_adopt_req_clear (&a);
  json_object_put (o);
  o = js ("{\"container\":\"c\",\"runtime\":\"podman\"}");
  CU_ASSERT_EQUAL (ebb_agent_parse_adopt (o, &a, &err), 0);
  CU_ASSERT_STRING_EQUAL (a.runtime, "podman");
  ebb_agent_adopt_req_clear (&a);
  json_object_put (o);
  const char *bad_rt[] = { "{\"container\":\"c\",\"runtime\":\"lxc\"}",
                           "{\"cgroup\":\"/a/b\",\"runtime\":\"docker\"}" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad_rt); i++)
    {
      o = js (bad_rt[i]);
      CU_ASSERT (ebb_agent_parse_adopt (o, &a, &err) < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
      ebb_agent_adopt_req_clear (&a);
      json_object_put (o);
    }

  ebb_agent_simple_req sr;
  CU_ASSERT_EQUAL (ebb_agent_parse_simple (NULL, &sr, &err), 0);
  o = js ("{\"grace_millis\":700000}");
  CU_ASSERT (ebb_agent_parse_simple (o, &sr, &err) < 0);
  ebb_error_free (&err);
  ebb_agent_simple_req_clear (&sr);
  json_object_put (o);
}

static void
canon_is (const char *in, const char *want)
{
  ebb_error *err = NULL;
  char *c = ebb_agent_cgroup_canon (in, &err);
  if (!want)
    {
      CU_ASSERT_PTR_NULL (c);
      CU_ASSERT_PTR_NOT_NULL (err);
    }
  else
    {
      CU_ASSERT_PTR_NOT_NULL_FATAL (c);
      CU_ASSERT_STRING_EQUAL (c, want);
    }
  free (c);
  ebb_error_free (&err);
}

static void
test_canon (void)
{
  canon_is ("/", "/");
  canon_is ("//a///b/", "/a/b");
  canon_is ("/a/b", "/a/b");
  canon_is ("/a/../b", NULL);
  canon_is ("/a/./b", NULL);
  canon_is ("/..", NULL);
  canon_is ("a/b", NULL);
  canon_is ("/a b", NULL);
  canon_is ("/a\nb", NULL);
  canon_is ("", NULL);
  CU_ASSERT_TRUE (ebb_agent_path_under ("/a/b", "/a"));
  CU_ASSERT_TRUE (ebb_agent_path_under ("/a", "/a/"));
  CU_ASSERT_TRUE (ebb_agent_path_under ("/a/b", "/"));
  CU_ASSERT_FALSE (ebb_agent_path_under ("/ab", "/a"));
  CU_ASSERT_FALSE (ebb_agent_path_under ("/b", "/a"));
}

static ebb_agent_task *
sample_task (void)
{
  ebb_agent_task *t = ebb_agent_task_new (".hidden-id");
  t->job = ebb_xstrdup ("job-1");
  t->long_class = true;
  t->source = EBB_AGENT_SRC_DOCKER;
  t->state = EBB_AGENT_SUSPENDING;
  t->prev_state = EBB_AGENT_SUSPENDED;
  t->pid = 4242;
  t->pid_starttime = 123456789;
  t->cgroup = ebb_xstrdup ("/docker/abc");
  t->cgroup_inode = 777;
  t->container = ebb_xstrdup ("abcdef");
  t->cpu_millis = 1500;
  t->memory_bytes = 1ULL << 33;
  t->orig.recorded = 1;
  t->orig.limits.valid = EBB_CG_LIM_CPU | EBB_CG_LIM_MEMORY_MAX | EBB_CG_LIM_MEMORY_HIGH;
  t->orig.limits.cpu_quota_usec = EBB_CG_MAX;
  t->orig.limits.cpu_period_usec = 100000;
  t->orig.limits.memory_max_bytes = EBB_CG_MAX;
  t->orig.limits.memory_high_bytes = 1ULL << 40;
  t->orig.oom_kill_disabled = 1;
  t->orig.state = EBB_CG_STATE_SUSPENDED;
  t->orig.changed = EBB_CG_LIM_CPU;
  t->graceful = 1;
  t->step_cpu_millis = 300;
  t->reclaimed_bytes = 5;
  t->held_bytes = 6;
  ebb_agent_task_add_reply (t, "r1", "POST /v1/tasks/x/suspend", 200, "{\"a\":1}");
  t->generation = 7;
  return t;
}

static void
test_journal_roundtrip (void)
{
  ebb_agent_task *t = sample_task ();
  json_object *rec = ebb_agent_journal_encode (t);
  char *text = ebb_json_to_string (rec);
  json_object_put (rec);
  json_object *back = ebb_json_parse (text, strlen (text), 0, NULL);
  free (text);
  ebb_agent_task *u = NULL;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_agent_journal_decode (back, &u, &err), 0);
  json_object_put (back);
  CU_ASSERT_STRING_EQUAL (u->id, t->id);
  CU_ASSERT_STRING_EQUAL (u->job, "job-1");
  CU_ASSERT_TRUE (u->long_class);
  CU_ASSERT_EQUAL (u->source, EBB_AGENT_SRC_DOCKER);
  CU_ASSERT_EQUAL (u->state, EBB_AGENT_SUSPENDING);
  CU_ASSERT_EQUAL (u->prev_state, EBB_AGENT_SUSPENDED);
  CU_ASSERT_EQUAL (u->pid, 4242);
  CU_ASSERT_EQUAL (u->pid_starttime, 123456789);
  CU_ASSERT_STRING_EQUAL (u->cgroup, "/docker/abc");
  CU_ASSERT_EQUAL (u->cgroup_inode, 777);
  CU_ASSERT_STRING_EQUAL (u->container, "abcdef");
  CU_ASSERT_EQUAL (u->memory_bytes, 1ULL << 33);
  CU_ASSERT_EQUAL (u->generation, 7);
  /* The originals survive exactly, "max" included. */
  CU_ASSERT_EQUAL (memcmp (&u->orig, &t->orig, sizeof t->orig), 0);
  CU_ASSERT_EQUAL (u->graceful, 1);
  CU_ASSERT_EQUAL (u->step_cpu_millis, 300);
  CU_ASSERT_EQUAL (u->n_replies, 1);
  CU_ASSERT_STRING_EQUAL (u->replies[0].body, "{\"a\":1}");
  ebb_agent_task_free (u);
  ebb_agent_task_free (t);
}

static void
test_journal_decode_bad (void)
{
  static const char *const bad[] = {
    "[]",
    "{\"id\":\"a\",\"state\":\"running\",\"source\":\"launched\"}",
    "{\"version\":2,\"id\":\"a\",\"state\":\"running\",\"source\":\"launched\"}",
    "{\"version\":1,\"id\":\"../a\",\"state\":\"running\",\"source\":\"launched\"}",
    "{\"version\":1,\"id\":\"a\",\"state\":\"dancing\",\"source\":\"launched\"}",
    "{\"version\":1,\"id\":\"a\",\"state\":\"running\",\"source\":\"k8s\"}",
    "{\"version\":1,\"id\":\"a\",\"state\":\"running\",\"source\":\"launched\",\"pid\":\"1\"}",
    "{\"version\":1,\"id\":\"a\",\"state\":\"running\",\"source\":\"launched\",\"original\":"
    "{\"cpu_quota_usec\":\"lots\"}}",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      json_object *o = js (bad[i]);
      ebb_agent_task *t = NULL;
      ebb_error *err = NULL;
      CU_ASSERT (ebb_agent_journal_decode (o, &t, &err) < 0);
      CU_ASSERT_PTR_NULL (t);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
      json_object_put (o);
    }
}

static int n_loaded;
static void
count_loaded (ebb_agent_task *t, void *ud)
{
  (void)ud;
  n_loaded++;
  CU_ASSERT_STRING_EQUAL (t->id, ".hidden-id");
  ebb_agent_task_free (t);
}

static void
count_any (ebb_agent_task *t, void *ud)
{
  (void)ud;
  n_loaded++;
  ebb_agent_task_free (t);
}

static void
test_journal_files (void)
{
  char dir[] = "/tmp/ebb-agent-core.XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL (mkdtemp (dir));
  int fd = open (dir, O_RDONLY | O_DIRECTORY);
  CU_ASSERT_FATAL (fd >= 0);
  ebb_error *err = NULL;
  ebb_agent_task *t = sample_task ();
  CU_ASSERT_EQUAL (ebb_agent_journal_write (fd, t, &err), 0);
  /* Rewriting replaces atomically; no temp file stays. */
  t->state = EBB_AGENT_SUSPENDED;
  CU_ASSERT_EQUAL (ebb_agent_journal_write (fd, t, &err), 0);
  CU_ASSERT (faccessat (fd, "..hidden-id.json.tmp", F_OK, 0) < 0);
  /* Crash leftovers: a temp file (removed), a damaged record (moved aside), a record whose
   * id does not match its name (moved aside). */
  CU_ASSERT_EQUAL (ebb_file_write_atomic (fd, ".x.json.tmp", "{garbage", &err), 0);
  CU_ASSERT_EQUAL (ebb_file_write_atomic (fd, "broken.json", "{\"version\":1,", &err), 0);
  CU_ASSERT_EQUAL (ebb_file_write_atomic (fd, "other.json",
                                          "{\"version\":1,\"id\":\"zzz\",\"state\":\"running\","
                                          "\"source\":\"launched\"}",
                                          &err),
                   0);
  n_loaded = 0;
  CU_ASSERT_EQUAL (ebb_agent_journal_load (fd, count_loaded, NULL, &err), 1);
  CU_ASSERT_EQUAL (n_loaded, 1);
  CU_ASSERT (faccessat (fd, ".x.json.tmp", F_OK, 0) < 0);
  CU_ASSERT_EQUAL (faccessat (fd, "broken.json.bad", F_OK, 0), 0);
  CU_ASSERT_EQUAL (faccessat (fd, "other.json.bad", F_OK, 0), 0);
  CU_ASSERT_EQUAL (ebb_agent_journal_remove (fd, t->id, &err), 0);
  CU_ASSERT_EQUAL (ebb_agent_journal_remove (fd, t->id, &err), 0); /* absent is fine */
  n_loaded = 0;
  CU_ASSERT_EQUAL (ebb_agent_journal_load (fd, count_loaded, NULL, &err), 0);
  /* A write into a directory that is not writable fails and leaves nothing behind. */
  CU_ASSERT (ebb_file_write_atomic (-1, "x.json", "{}", &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
  ebb_agent_task_free (t);
  unlinkat (fd, "broken.json.bad", 0);
  unlinkat (fd, "other.json.bad", 0);
  close (fd);
  CU_ASSERT_EQUAL (rmdir (dir), 0);
}

static void
test_idem (void)
{
  ebb_agent_idem *t = ebb_agent_idem_new (3);
  CU_ASSERT_EQUAL (ebb_agent_idem_add (t, "a", "POST /x", 201, "A"), 1);
  CU_ASSERT_EQUAL (ebb_agent_idem_add (t, "a", "POST /x", 500, "other"), 0);
  const ebb_agent_reply *r = ebb_agent_idem_find (t, "a");
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT_EQUAL (r->status, 201); /* the first answer wins */
  CU_ASSERT_STRING_EQUAL (r->body, "A");
  ebb_agent_idem_add (t, "b", "k", 200, "B");
  ebb_agent_idem_add (t, "c", "k", 200, "C");
  CU_ASSERT_EQUAL (ebb_agent_idem_count (t), 3);
  ebb_agent_idem_add (t, "d", "k", 200, "D"); /* evicts the oldest, "a" */
  CU_ASSERT_EQUAL (ebb_agent_idem_count (t), 3);
  CU_ASSERT_PTR_NULL (ebb_agent_idem_find (t, "a"));
  CU_ASSERT_PTR_NOT_NULL (ebb_agent_idem_find (t, "b"));
  CU_ASSERT_PTR_NOT_NULL (ebb_agent_idem_find (t, "d"));
  ebb_agent_idem_free (t);

  /* Per-task replies: bounded, the oldest falls out. */
  ebb_agent_task *task = ebb_agent_task_new ("x");
  for (int i = 0; i < EBB_AGENT_TASK_REQUESTS + 3; i++)
    {
      char id[16];
      snprintf (id, sizeof id, "r%d", i);
      ebb_agent_task_add_reply (task, id, "k", 200, "{}");
    }
  CU_ASSERT_EQUAL (task->n_replies, EBB_AGENT_TASK_REQUESTS);
  CU_ASSERT_STRING_EQUAL (task->replies[0].request_id, "r3");
  ebb_agent_task_free (task);
}

static void
test_hist (void)
{
  ebb_agent_hist h = { 0 };
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&h, 0.5), 0, 1e-12);
  for (int i = 0; i < 99; i++)
    ebb_agent_hist_observe (&h, 800);   /* 0.8 ms -> bucket 0.001 */
  ebb_agent_hist_observe (&h, 3000000); /* 3 s -> bucket 5 */
  CU_ASSERT_EQUAL (h.n, 100);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&h, 0.5), 0.001, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&h, 0.99), 0.001, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&h, 1.0), 5.0, 1e-12);
  ebb_agent_hist_observe (&h, 60000000); /* 60 s -> +Inf */
  CU_ASSERT (ebb_prom_hist_quantile (&h, 1.0) > 1e6);
}

static void
test_task_json (void)
{
  ebb_agent_task *t = sample_task ();
  t->state = EBB_AGENT_EXITED;
  t->exit_status = 137;
  t->exit_signal = 9;
  json_object *o = ebb_agent_task_to_json (t);
  json_object *v;
  static const char *const keys[]
      = { "id",     "job",     "class", "state",           "pid",        "cgroup",      "backend",
          "limits", "applied", "usage", "reclaimed_bytes", "held_bytes", "exit_status", "source" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (keys); i++)
    CU_ASSERT_TRUE (json_object_object_get_ex (o, keys[i], NULL));
  CU_ASSERT_TRUE (json_object_object_get_ex (o, "exit_status", &v));
  CU_ASSERT_EQUAL (json_object_get_int (v), 137);
  CU_ASSERT_TRUE (json_object_object_get_ex (o, "source", &v));
  CU_ASSERT_STRING_EQUAL (json_object_get_string (v), "docker");
  json_object_put (o);
  ebb_agent_task_free (t);
}

/* The capacity override and the advertised URL parse from the command line, bounded. */
static void
test_options_capacity (void)
{
  char *argv[]
      = { "ebb-agent",       "--capacity-cpu-millis",       "1500", "--capacity-memory", "8G",
          "--advertise-url", "https://node-a.example:7470", NULL };
  ebb_agent_config cfg = { 0 };
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_agent_parse_args (7, argv, &cfg, &err), 0);
  CU_ASSERT_EQUAL (cfg.capacity_cpu_millis, 1500);
  CU_ASSERT_EQUAL (cfg.capacity_memory_bytes, 8ULL << 30);
  CU_ASSERT_STRING_EQUAL (cfg.advertise_url, "https://node-a.example:7470");
  ebb_agent_config_free (&cfg);
  static const char *const bad[][2] = {
    { "--advertise-url", "ftp://x" },
    { "--advertise-url", "http://a b" },
    { "--capacity-memory", "lots" },
    { "--capacity-cpu-millis", "99999999999" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      char *bv[] = { argv[0], (char *)bad[i][0], (char *)bad[i][1], NULL };
      ebb_agent_config c = { 0 };
      CU_ASSERT (ebb_agent_parse_args (3, bv, &c, &err) < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
      ebb_agent_config_free (&c);
    }
}

/* Group commit: records written through a syncer are in place at once (renamed before the
 * call returns) and on disk after a flush, in fewer directory fsyncs than records. */
static void
test_journal_syncer (void)
{
  char dir[] = "/tmp/ebb-agent-sync.XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL (mkdtemp (dir));
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CU_ASSERT_FATAL (fd >= 0);
  ebb_agent_syncer *s = ebb_agent_syncer_new (fd);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s);
  ebb_error *err = NULL;
  enum
  {
    N = 200
  };
  for (int i = 0; i < N; i++)
    {
      char id[32];
      snprintf (id, sizeof id, "s%d", i);
      ebb_agent_task *t = ebb_agent_task_new (id);
      t->state = EBB_AGENT_RUNNING;
      CU_ASSERT_EQUAL (ebb_agent_journal_write_sync (fd, t, s, &err), 0);
      char name[48];
      snprintf (name, sizeof name, "%s.json", id);
      CU_ASSERT_EQUAL (faccessat (fd, name, F_OK, 0), 0);
      ebb_agent_task_free (t);
    }
  ebb_agent_syncer_flush (s);
  uint64_t batches = 0, files = 0;
  ebb_agent_syncer_stats (s, &batches, &files);
  CU_ASSERT_EQUAL (files, N);
  CU_ASSERT (batches >= 1 && batches <= N);
  printf ("\n  group commit: %d records in %llu directory fsyncs\n", N,
          (unsigned long long)batches);
  ebb_agent_syncer_free (s);
  n_loaded = 0;
  CU_ASSERT_EQUAL (ebb_agent_journal_load (fd, count_any, NULL, &err), N);
  CU_ASSERT_EQUAL (n_loaded, N);
  char cmd[80];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL (system (cmd), 0);
  close (fd);
}

static int n_changes;

static void
count_change (ebb_agent *a)
{
  (void)a;
  n_changes++;
}

/* The context's hook: a task change reaches whoever listens (the heartbeat), nobody is
 * fine; a crash point not named in EBB_AGENT_CRASH_AT does nothing. */
static void
test_context (void)
{
  ebb_agent a;
  memset (&a, 0, sizeof a);
  n_changes = 0;
  ebb_agent_task_changed (&a);
  CU_ASSERT_EQUAL (n_changes, 0);
  a.on_task_change = count_change;
  ebb_agent_task_changed (&a);
  ebb_agent_task_changed (&a);
  CU_ASSERT_EQUAL (n_changes, 2);
  ebb_agent_crash_point (&a, "suspend-journaled");
  a.crash_at = "resume-applied";
  ebb_agent_crash_point (&a, "suspend-journaled");
  CU_PASS ("still alive");
}

/* Who a task runs as: the allowlist (system ids only by name or id), a user per job. */
static void
test_ident (void)
{
  uid_t lo, hi;
  CU_ASSERT_TRUE (ebb_agent_uid_range ("61184-65519", &lo, &hi) && lo == 61184 && hi == 65519);
  CU_ASSERT_FALSE (ebb_agent_uid_range ("none", &lo, &hi));
  CU_ASSERT_FALSE (ebb_agent_uid_range ("999-2000", &lo, &hi));
  CU_ASSERT_FALSE (ebb_agent_uid_range ("3000-2000", &lo, &hi));
  CU_ASSERT_FALSE (ebb_agent_uid_range ("2000", &lo, &hi));
  char *none[] = { NULL }, *range[] = { "1000-60000", "0-60000", NULL };
  char *daemon_user[] = { "daemon", NULL }, *by_id[] = { "1", NULL };
  ebb_agent_config cfg = { .task_user = "nobody", .task_users = none, .task_groups = none };
  ebb_agent_ident id;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, NULL, NULL, &id, &err), 0);
  CU_ASSERT_TRUE (id.uid != 0 && id.n_groups >= 1 && id.groups[0] == id.gid);
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, "daemon", NULL, &id, &err), -EBB_EREFUSED);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "task_users"));
  ebb_error_free (&err);
  cfg.task_users = range;
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, "daemon", NULL, &id, &err), -EBB_EREFUSED);
  ebb_error_free (&err);
  cfg.task_users = daemon_user;
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, "daemon", NULL, &id, NULL), 0);
  CU_ASSERT_EQUAL (id.uid, 1);
  cfg.task_users = by_id;
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, "daemon", NULL, &id, NULL), 0);
  CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, "root", NULL, &id, &err), -EBB_EREFUSED);
  ebb_error_free (&err);
  if (getgrnam ("shadow"))
    {
      char *shadow[] = { "shadow", NULL };
      CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, NULL, "shadow", &id, &err), -EBB_EREFUSED);
      CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "task_groups"));
      ebb_error_free (&err);
      cfg.task_groups = range;
      CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, NULL, "shadow", &id, &err), -EBB_EREFUSED);
      ebb_error_free (&err);
      cfg.task_groups = shadow;
      CU_ASSERT_EQUAL (ebb_agent_ident_resolve (&cfg, NULL, "shadow", &id, NULL), 0);
      CU_ASSERT_EQUAL (id.gid, getgrnam ("shadow")->gr_gid);
    }
}

static bool
all_taken (uid_t uid, void *ud)
{
  (void)ud;
  return uid == 61184 || uid == 61185;
}

static void
test_ident_job (void)
{
  ebb_agent_config cfg = { .task_uid_range = "61184-61185" };
  ebb_agent_ident id;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_agent_ident_for_job (&cfg, "j", (uid_t)-1, all_taken, NULL, &id, &err),
                   -EAGAIN);
  ebb_error_free (&err);
  /* the uid the job's tasks already have, though the caller counts it as taken */
  CU_ASSERT_EQUAL (ebb_agent_ident_for_job (&cfg, "j", 61185, all_taken, NULL, &id, NULL), 0);
  CU_ASSERT_TRUE (id.uid == 61185 && id.gid == 61185 && id.n_groups == 1);
  cfg.task_uid_range = "none";
  CU_ASSERT_EQUAL (ebb_agent_ident_for_job (&cfg, "j", (uid_t)-1, all_taken, NULL, &id, &err),
                   -EBB_EREFUSED);
  ebb_error_free (&err);
}

/* Returns the tail offset of text's last `lines` lines, as a file gives it. */
static int64_t
tail_of (const char *text, uint64_t lines)
{
  char path[] = "/tmp/ebb-tail-XXXXXX";
  int fd = mkstemp (path);
  CU_ASSERT_FATAL (fd >= 0);
  unlink (path);
  size_t len = strlen (text);
  CU_ASSERT_FATAL (write (fd, text, len) == (ssize_t)len);
  int64_t off = ebb_agent_log_tail_offset (fd, len, lines);
  close (fd);
  return off;
}

/* ?tail=N: a final newline ends the last line, a last line without one counts, fewer lines
 * than asked give the whole file, and lines longer than the read block are counted right. */
static void
test_log_tail_offset (void)
{
  CU_ASSERT_EQUAL (tail_of ("", 3), 0);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nc\n", 0), 6);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nc\n", 1), 4);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nc\n", 2), 2);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nc\n", 3), 0);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nc\n", 9), 0);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nlast", 1), 4);
  CU_ASSERT_EQUAL (tail_of ("a\nb\nlast", 2), 2);
  CU_ASSERT_EQUAL (tail_of ("\n\n\n", 2), 1); /* empty lines are lines */
  /* 10000 bytes of 'x' on one line, then "end": more than one block back. */
  char *big = malloc (10010);
  CU_ASSERT_FATAL (big != NULL);
  memset (big, 'x', 10000);
  strcpy (big + 10000, "\nend\n");
  CU_ASSERT_EQUAL (tail_of (big, 1), 10001);
  CU_ASSERT_EQUAL (tail_of (big, 2), 0);
  /* A newline as the first byte of the last 4096-byte block read (the file is 10005). */
  big[10005 - 4096] = '\n';
  CU_ASSERT_EQUAL (tail_of (big, 2), 10005 - 4096 + 1);
  free (big);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_context),
  EBB_CU_TEST (test_transitions),
  EBB_CU_TEST (test_names),
  EBB_CU_TEST (test_parse_launch),
  EBB_CU_TEST (test_parse_launch_task_options),
  EBB_CU_TEST (test_task_env),
  EBB_CU_TEST (test_task_accounting),
  EBB_CU_TEST (test_parse_suspend_adopt),
  EBB_CU_TEST (test_canon),
  EBB_CU_TEST (test_journal_roundtrip),
  EBB_CU_TEST (test_journal_decode_bad),
  EBB_CU_TEST (test_journal_files),
  EBB_CU_TEST (test_idem),
  EBB_CU_TEST (test_hist),
  EBB_CU_TEST (test_task_json),
  EBB_CU_TEST (test_options_capacity),
  EBB_CU_TEST (test_journal_syncer),
  EBB_CU_TEST (test_ident),
  EBB_CU_TEST (test_ident_job),
  EBB_CU_TEST (test_log_tail_offset),
};

EBB_CU_MAIN ("agent-core", NULL, NULL, tests)
