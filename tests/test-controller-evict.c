/* CUnit suite of the eviction of finished jobs (controller/sched-evict.c) and of reading
 * them back (controller/store-sqlite-jobs.c): only finished jobs whose rows are committed, with no
 * agent call under way, beyond the newest keep_finished, leave memory; the index by request
 * id, the gauges' counts and the slots follow; a job read back from the store gives the same
 * JSON as it did in memory; a replayed request id finds its answer in the store; GET /v1/jobs
 * pages every job once ascending and descending, and the active ones only (?state=active),
 * at limits from 1 to 1000, across memory and store. */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/json.h"
#include "lib/util.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

static int
init (void)
{
  return ctlfix_init ("/tmp/ebb-ctl-evict.XXXXXX");
}

enum
{
  JOBS = 12,
  TASKS = 3,
};

/* Job i (id i + 1) of TASKS tasks on node n0: finished (exited, failed or killed by i % 3)
 * unless i % 4 == 3 (one task still running). */
static ebb_ctl_job *
make_job (ebb_ctl *c, uint32_t i)
{
  cleanup_free char *name = ebb_xasprintf ("job-%u", i);
  ebb_ctl_job *j = ctlfix_job_new (i + 1, name, (ebb_ctl_class)(i % 3), TASKS);
  j->request_id = ebb_xasprintf ("rid-%u", i);
  j->body_digest = ebb_xasprintf ("%u-digest", i);
  j->answer = ebb_xasprintf ("{\"id\":%u,\"name\":\"job-%u\",\"state\":\"queued\"}", i + 1, i);
  j->est_task_sec = i;
  j->submitted_at = 1000 + i;
  for (uint32_t k = 0; k < TASKS; k++)
    {
      ebb_ctl_task *t = &j->tasks[k];
      t->node = 0;
      t->cpu_millis = 100 * (k + 1);
      t->memory_bytes = (uint64_t)(k + 1) << 22;
      cleanup_free char *spec = ebb_xasprintf ("{\"argv\":[\"x\"],\"cpu_millis\":%" PRIu64
                                               ",\"memory_bytes\":%" PRIu64 "}",
                                               t->cpu_millis, t->memory_bytes);
      t->spec = json_tokener_parse (spec);
      t->generation = 1 + k;
      t->started_at = 2000 + i;
      t->suspensions = k;
      bool running = i % 4 == 3 && k == 0;
      t->state = running ? TASK_RUNNING : (ebb_ctl_task_state)(TASK_EXITED + i % 3);
      t->has_exit = !running && i % 3 == 0;
      t->exit_status = t->has_exit ? (int64_t)k : 0;
      t->finished_at = running ? 0 : 3000 + i;
      ebb_ctl_task_write (c, t);
    }
  ebb_ctl_job_update (c, j);
  ebb_ctl_store_job (c, j);
  ebb_ctl_add_job (c, j);
  return j;
}

static char *
job_text (ebb_ctl *c, const ebb_ctl_job *j, bool with_tasks)
{
  json_object *o = ebb_ctl_job_json (c, j, with_tasks);
  char *s = ebb_xstrdup (json_object_to_json_string_ext (o, EBB_JSON_TO_STRING_FLAGS));
  json_object_put (o);
  return s;
}

/* Follows the pages of limit jobs from the first, ascending or descending (desc), every job
 * or the active ones only: the jobs of ids want[0..nwant) listed once each, in that order, as
 * listed[] has them (their JSON in a listing before eviction), each page's next_after its
 * last id, the last page's null. Returns the number of pages. */
static size_t
pages_walk (ebb_ctl *c, size_t limit, bool desc, bool active, const uint64_t *want, size_t nwant,
            char *const listed[JOBS])
{
  ebb_ctl_jobs_query q
      = { .after = desc ? UINT64_MAX : 0, .limit = limit, .desc = desc, .active = active };
  size_t pages = 0, seen = 0;
  for (bool more = true; more && pages <= JOBS; pages++)
    {
      json_object *page = ebb_ctl_jobs_page (c, &q), *arr, *next;
      CU_ASSERT_FATAL (page && json_object_object_get_ex (page, "jobs", &arr)
                       && json_object_object_get_ex (page, "next_after", &next));
      size_t n = json_object_array_length (arr);
      CU_ASSERT (n <= limit && (n >= 1 || nwant == 0) && seen + n <= nwant);
      for (size_t i = 0; i < n && seen < nwant; i++, seen++)
        CU_ASSERT_STRING_EQUAL (json_object_to_json_string_ext (json_object_array_get_idx (arr, i),
                                                                EBB_JSON_TO_STRING_FLAGS),
                                listed[want[seen] - 1]);
      more = next != NULL;
      CU_ASSERT_EQUAL (more, seen < nwant);
      if (more)
        q.after = (uint64_t)json_object_get_int64 (next);
      CU_ASSERT (!more || q.after == want[seen - 1]);
      json_object_put (page);
    }
  CU_ASSERT_EQUAL (seen, nwant);
  return pages;
}

/* Every job (ids 1 to JOBS) ascending, as GET /v1/jobs has always listed them. */
static size_t
pages_agree (ebb_ctl *c, size_t limit, char *const listed[JOBS])
{
  uint64_t ids[JOBS];
  for (size_t i = 0; i < JOBS; i++)
    ids[i] = i + 1;
  return pages_walk (c, limit, false, false, ids, JOBS, listed);
}

static void
test_evict (void)
{
  ebb_ctl_config cfg = { 0 };
  cfg.state_dir = ebb_xasprintf ("%s/state", ctlfix_dir);
  cfg.store = ctlfix_store ("state", true);
  cfg.policy = ebb_xstrdup ("fifo");
  cfg.keep_finished = 2;
  ebb_ctl *c = ebb_xcalloc (1, sizeof *c);
  c->cfg = &cfg;
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_open (c, NULL), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_load (c, NULL), 0);
  ebb_ctl_node *n = ebb_xcalloc (1, sizeof *n);
  n->name = ebb_xstrdup ("n0");
  ebb_ctl_add_node (c, n);
  ebb_ctl_store_node (c, n);
  char *before[JOBS], *listed[JOBS];
  for (uint32_t i = 0; i < JOBS; i++)
    {
      ebb_ctl_job *j = make_job (c, i);
      before[i] = job_text (c, j, true);
      listed[i] = job_text (c, j, false);
    }
  c->next_job_id = JOBS + 1; /* as the submissions would have left it */
  /* Job 1 (finished) has an agent call under way; job 2's task 0 holds a ghost slot. */
  ebb_ctl_job_find (c, 2)->ncalls = 1;
  c->slots = ebb_xcalloc (1, sizeof *c->slots);
  c->n_slots = 1;
  c->slots[0].ghost = true;
  c->slots[0].task = &ebb_ctl_job_find (c, 3)->tasks[0];
  uintptr_t held = (uintptr_t)c->slots[0].task;

  CU_ASSERT_EQUAL (ebb_ctl_evict (c), 0); /* not committed yet */
  CU_ASSERT_EQUAL (c->n_jobs, JOBS);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  /* Finished: every i with i % 4 != 3, 9 jobs; job 1 waits for its call; of the 8 left the
   * newest 2 (ids 11 and 10) stay. */
  CU_ASSERT_EQUAL (ebb_ctl_evict (c), 6);
  CU_ASSERT_EQUAL (c->n_jobs, 6);
  CU_ASSERT_EQUAL (c->jobs_evicted, 6);
  static const uint64_t left[] = { 2, 4, 8, 10, 11, 12 };
  for (size_t i = 0; i < c->n_jobs && i < EBB_ARRAY_SIZE (left); i++)
    {
      CU_ASSERT_EQUAL (c->jobs[i]->id, left[i]);
      CU_ASSERT (ebb_ctl_index_find_rid (c, c->jobs[i]->request_id) == c->jobs[i]);
    }
  CU_ASSERT (c->slots[0].task != NULL && (uintptr_t)c->slots[0].task != held);
  CU_ASSERT_EQUAL (
      c->evicted_jobs[JOB_DONE] + c->evicted_jobs[JOB_FAILED] + c->evicted_jobs[JOB_KILLED], 6);
  CU_ASSERT_EQUAL (c->evicted_tasks[TASK_EXITED] + c->evicted_tasks[TASK_FAILED]
                       + c->evicted_tasks[TASK_KILLED],
                   6 * TASKS);
  /* Every job reads back the same, from memory or from the store. */
  for (uint32_t i = 0; i < JOBS; i++)
    {
      ebb_ctl_job *loaded = NULL, *j = ebb_ctl_job_get (c, i + 1, &loaded);
      CU_ASSERT_PTR_NOT_NULL_FATAL (j);
      CU_ASSERT ((loaded != NULL) == (ebb_ctl_job_find (c, i + 1) == NULL));
      cleanup_free char *now = job_text (c, j, true);
      CU_ASSERT_STRING_EQUAL (now, before[i]);
      cleanup_free char *rid = ebb_xasprintf ("rid-%u", i);
      cleanup_free char *digest = NULL;
      cleanup_free char *a = ebb_ctl_store_rid_answer (c, rid, &digest);
      CU_ASSERT (a && strcmp (a, j->answer) == 0);
      CU_ASSERT (digest && strcmp (digest, j->body_digest) == 0);
      ebb_ctl_job_free (loaded);
    }
  ebb_ctl_job *none = NULL;
  CU_ASSERT_PTR_NULL (ebb_ctl_job_get (c, JOBS + 1, &none));
  cleanup_free char *no_digest = NULL;
  CU_ASSERT_PTR_NULL (ebb_ctl_store_rid_answer (c, "rid-x", &no_digest));
  /* GET /v1/jobs lists them all the same, page after page, in memory or not. */
  for (size_t limit = 1; limit <= JOBS + 1; limit += 4)
    CU_ASSERT_EQUAL (pages_agree (c, limit, listed), (JOBS + limit - 1) / limit);
  /* Descending: every job once, newest first, in memory or not; limit 1 to 1000. */
  static const size_t limits[] = { 1, 5, JOBS, 1000 };
  uint64_t down[JOBS];
  for (size_t i = 0; i < JOBS; i++)
    down[i] = JOBS - i;
  for (size_t l = 0; l < EBB_ARRAY_SIZE (limits); l++)
    CU_ASSERT_EQUAL (pages_walk (c, limits[l], true, false, down, JOBS, listed),
                     (JOBS + limits[l] - 1) / limits[l]);
  /* Active: the unfinished jobs 4, 8 and 12 only, either way; not the finished ones in
   * memory (2, 10, 11) nor the ones in the store alone. */
  static const uint64_t active_up[] = { 4, 8, 12 }, active_down[] = { 12, 8, 4 };
  for (size_t l = 0; l < EBB_ARRAY_SIZE (limits); l++)
    {
      size_t pages = (3 + limits[l] - 1) / limits[l];
      CU_ASSERT_EQUAL (pages_walk (c, limits[l], false, true, active_up, 3, listed), pages);
      CU_ASSERT_EQUAL (pages_walk (c, limits[l], true, true, active_down, 3, listed), pages);
    }
  /* Bounds: nothing after the newest ascending nor below id 1 descending; after 5
   * descending starts at 4 and after 8 ascending at 9, in memory or in the store. */
  ebb_ctl_jobs_query edge[] = { { .after = JOBS, .limit = 10 },
                                { .after = 1, .limit = 10, .desc = true },
                                { .after = 0, .limit = 10, .desc = true },
                                { .after = 5, .limit = 2, .desc = true },
                                { .after = 8, .limit = 1 },
                                { .after = 5, .limit = 2, .desc = true, .active = true } };
  static const char *const edge_want[] = { "{\"jobs\":[],\"next_after\":null}",
                                           "{\"jobs\":[],\"next_after\":null}",
                                           "{\"jobs\":[],\"next_after\":null}",
                                           "4 3 next 3",
                                           "9 next 9",
                                           "4 " };
  for (size_t e = 0; e < EBB_ARRAY_SIZE (edge); e++)
    {
      json_object *page = ebb_ctl_jobs_page (c, &edge[e]), *arr, *next;
      CU_ASSERT_FATAL (page && json_object_object_get_ex (page, "jobs", &arr)
                       && json_object_object_get_ex (page, "next_after", &next));
      char got[256] = "";
      if (json_object_array_length (arr) == 0)
        snprintf (got, sizeof got, "%s",
                  json_object_to_json_string_ext (page, EBB_JSON_TO_STRING_FLAGS));
      for (size_t i = 0; i < json_object_array_length (arr); i++)
        {
          json_object *id;
          json_object_object_get_ex (json_object_array_get_idx (arr, i), "id", &id);
          snprintf (got + strlen (got), sizeof got - strlen (got), "%" PRId64 " ",
                    json_object_get_int64 (id));
        }
      if (next && json_object_array_length (arr) > 0)
        snprintf (got + strlen (got), sizeof got - strlen (got), "next %" PRId64,
                  json_object_get_int64 (next));
      CU_ASSERT_STRING_EQUAL (got, edge_want[e]);
      json_object_put (page);
    }
  /* The call ended: job 2 goes too, the newest two finished stay. */
  ebb_ctl_job_find (c, 2)->ncalls = 0;
  CU_ASSERT_EQUAL (ebb_ctl_evict (c), 1);
  CU_ASSERT_PTR_NULL (ebb_ctl_job_find (c, 2));
  CU_ASSERT_EQUAL (ebb_ctl_evict (c), 0);
  /* keep_finished 0: every finished job goes, the unfinished stay. */
  cfg.keep_finished = 0;
  CU_ASSERT_EQUAL (ebb_ctl_evict (c), 2);
  CU_ASSERT_EQUAL (c->n_jobs, 3);
  for (size_t i = 0; i < c->n_jobs; i++)
    CU_ASSERT_EQUAL (c->jobs[i]->id % 4, 0);
  for (uint32_t i = 0; i < JOBS; i++)
    free (before[i]), free (listed[i]);
  ebb_ctl_sched_free (c);
  ebb_ctl_store_close (c);
  free (c);

  /* A restart loads the unfinished jobs only and counts the rest. */
  c = ebb_xcalloc (1, sizeof *c);
  c->cfg = &cfg;
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_open (c, NULL), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_load (c, NULL), 0);
  CU_ASSERT_EQUAL (c->n_jobs, 3);
  CU_ASSERT_EQUAL (c->n_jobs_stored, JOBS);
  CU_ASSERT_EQUAL (c->next_job_id, JOBS + 1);
  CU_ASSERT_EQUAL (
      c->evicted_jobs[JOB_DONE] + c->evicted_jobs[JOB_FAILED] + c->evicted_jobs[JOB_KILLED], 9);
  CU_ASSERT (ebb_ctl_index_find_rid (c, "rid-3") == ebb_ctl_job_find (c, 4));
  CU_ASSERT_PTR_NULL (ebb_ctl_index_find_rid (c, "rid-0"));
  /* Retention by count: of the finished jobs 1 2 3 5 6 7 9 10 11 the newest 3 stay, the
   * others leave in batches of at most 4; then by age, every finished one. The unfinished
   * ones stay. */
  uint64_t pruned = 0;
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 0, 3, 4, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 4);
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 0, 3, 4, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 2);
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 0, 3, 4, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 0);
  for (uint64_t id = 1; id <= JOBS; id++)
    {
      ebb_ctl_job *loaded = NULL, *j = ebb_ctl_job_get (c, id, &loaded);
      CU_ASSERT ((j != NULL) == (id % 4 == 0 || id >= 9));
      ebb_ctl_job_free (loaded);
    }
  cleanup_free char *gone = NULL;
  cleanup_free char *gone_answer = ebb_ctl_store_rid_answer (c, "rid-0", &gone);
  CU_ASSERT_PTR_NULL (gone_answer);
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 1e12, UINT64_MAX, 100, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 3);
  ebb_ctl_job *loaded = NULL;
  CU_ASSERT_PTR_NULL (ebb_ctl_job_get (c, 11, &loaded));
  CU_ASSERT_PTR_NOT_NULL (ebb_ctl_job_get (c, 12, &loaded));
  ebb_ctl_job_free (loaded);
  ebb_ctl_sched_free (c);
  ebb_ctl_store_close (c);
  free (c);
  free (cfg.state_dir);
  free (cfg.store);
  free (cfg.policy);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_evict),
};

EBB_CU_MAIN ("controller-evict", init, ctlfix_clean, tests)
