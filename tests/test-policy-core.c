/* libebb-policy driven directly, as the controller will drive it: events in, actions out. */
#include "config.h"

#include "policies/policy-impl.h" /* a unit test of the library: its insides */
#include "policies/iheap.h"
#include "tests/cu.h"

#include <math.h>

#define D 0.0005

static ebb_pol *
make (const char *name, uint32_t nnodes, ebb_pol_job *jobs, int cancel)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = nnodes;
  p.cancel_probes = cancel;
  p.cutoff_sec = 50;
  p.short_part_pct = 0;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new (name, &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

static const ebb_pol_action *
take (ebb_pol *p, size_t *n)
{
  return ebb_pol_actions (p, n);
}

/* One node, one job of one task with probe ratio 2: both probes land on node 0; the first
 * binds the task, the second must be cancelled (no round trip) or, without cancellation,
 * cost one round trip (a WAKE after 2 x delay). */
static void
late_binding (int cancel)
{
  ebb_pol_job jobs[1] = { { .ntasks = 1, .est_task_sec = 10 } };
  ebb_pol *p = make ("sparrow", 1, jobs, cancel);
  size_t n;
  ebb_pol_job_arrived (p, 0, 0);
  const ebb_pol_action *a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_PROBE);
  CU_ASSERT_EQUAL (a[1].kind, EBB_POL_ACT_PROBE);
  CU_ASSERT_DOUBLE_EQUAL (a[0].delay_sec, D, 1e-12);
  uint32_t probe0 = a[0].arg, probe1 = a[1].arg;
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, D, 0, probe0);
  a = take (p, &n);
  size_t i = 0;
  CU_ASSERT_EQUAL_FATAL (n, cancel ? 2 : 1);
  if (cancel)
    CU_ASSERT_EQUAL (a[i++].kind, EBB_POL_ACT_CANCEL);
  CU_ASSERT_EQUAL (a[i].kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a[i].arg, 0); /* task 0 */
  CU_ASSERT_DOUBLE_EQUAL (a[i].delay_sec, 2 * D, 1e-12);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, D, 0, probe1); /* queued: the node is busy */
  take (p, &n);
  CU_ASSERT_EQUAL (n, 0);
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 1);
  ebb_pol_task_finished (p, 10 + 3 * D, 0, 0, 0);
  a = take (p, &n);
  if (cancel)
    {
      CU_ASSERT_EQUAL (n, 0);
      CU_ASSERT_EQUAL (p->stats.probes_cancelled, 1);
      CU_ASSERT_EQUAL (p->nodes[0].busy, 0);
    }
  else
    {
      CU_ASSERT_EQUAL_FATAL (n, 1);
      CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_WAKE);
      CU_ASSERT_DOUBLE_EQUAL (a[0].delay_sec, 2 * D, 1e-12);
      CU_ASSERT_EQUAL (p->stats.probes_surplus, 1);
    }
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 0);
  CU_ASSERT_EQUAL (jobs[0].finished, 1);
  ebb_pol_free (p);
}

static void
test_sparrow_cancels_surplus_probe (void)
{
  late_binding (1);
}

static void
test_sparrow_surplus_probe_costs_round_trip (void)
{
  late_binding (0);
}

/* Central placement: node 0 holds 300 s of long work, node 1 100 s, node 2 200 s; a new long
 * task must go to node 1, the next one (node 1 now at 200 s, tie with node 2) to node 1 by
 * the lower id, the third to node 2. */
static void
test_hawk_least_waiting_node (void)
{
  ebb_pol_job jobs[4] = {
    { .ntasks = 3, .est_task_sec = 100 },
    { .ntasks = 1, .est_task_sec = 100 },
    { .ntasks = 1, .est_task_sec = 200 },
    { .ntasks = 3, .est_task_sec = 100 },
  };
  ebb_pol *p = make ("hawk", 3, jobs, 1);
  size_t n;
  ebb_pol_job_arrived (p, 0, 0); /* 3 tasks: nodes 0, 1, 2 (empty first, ascending) */
  const ebb_pol_action *a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 3);
  for (uint32_t i = 0; i < 3; i++)
    CU_ASSERT_EQUAL (a[i].node, i);
  ebb_pol_clear_actions (p);
  /* Nothing has started (probes in flight), so waits are 100, 100, 100. */
  ebb_pol_job_arrived (p, 0, 1); /* -> node 0 (tie, lowest id): 200, 100, 100 */
  a = take (p, &n);
  CU_ASSERT_EQUAL (a[0].node, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 0, 2); /* -> node 1: 200, 300, 100 */
  a = take (p, &n);
  CU_ASSERT_EQUAL (a[0].node, 1);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 0, 3); /* 3 tasks: node 2 (100->200), node 0 (200), node 2 */
  a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 3);
  CU_ASSERT_EQUAL (a[0].node, 2);
  CU_ASSERT_EQUAL (a[1].node, 0);
  CU_ASSERT_EQUAL (a[2].node, 2);
  ebb_pol_free (p);
}

static void
test_fifo_central_queue (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 3, .est_task_sec = 5 }, { .ntasks = 1 } };
  ebb_pol *p = make ("fifo", 2, jobs, 0);
  size_t n;
  ebb_pol_job_arrived (p, 0, 0);
  const ebb_pol_action *a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a[0].node, 0);
  CU_ASSERT_EQUAL (a[1].node, 1);
  CU_ASSERT_DOUBLE_EQUAL (a[0].delay_sec, D, 1e-12);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1); /* queued behind job 0's third task */
  take (p, &n);
  CU_ASSERT_EQUAL (n, 0);
  ebb_pol_task_finished (p, 5, 1, 0, 0);
  a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].node, 1);
  CU_ASSERT_EQUAL (a[0].job, 0);
  CU_ASSERT_EQUAL (a[0].arg, 2);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 6, 0, 0, 0);
  a = take (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].job, 1);
  ebb_pol_free (p);
}

static void
test_bad_parameters (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  ebb_error *err = NULL;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("nope", &p, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "nope"));
  ebb_error_free (&err);
  p.probe_ratio = 0.5;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("sparrow", &p, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ERANGE);
  ebb_error_free (&err);
  ebb_pol_params_default (&p);
  p.nnodes = 0;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("hawk", &p, NULL, &err));
  ebb_error_free (&err);
  CU_ASSERT_PTR_NOT_NULL (ebb_pol_lookup ("hawk"));
  CU_ASSERT_PTR_NULL (ebb_pol_lookup ("haw"));
}

/* The indexed heap against a brute-force minimum over random pushes, removals and key
 * changes (Hawk's central queue rests on it). */
static void
test_iheap_matches_brute_force (void)
{
  enum
  {
    N = 64
  };
  double key[N];
  uint32_t pos[N];
  int in[N] = { 0 };
  ebb_pol_iheap h;
  for (uint32_t i = 0; i < N; i++)
    pos[i] = UINT32_MAX, key[i] = 0;
  ebb_pol_iheap_init (&h, N, pos);
  ebb_rng r;
  ebb_rng_seed (&r, 11);
  for (int step = 0; step < 20000; step++)
    {
      uint32_t id = (uint32_t)ebb_rng_below (&r, N);
      uint64_t op = ebb_rng_below (&r, 3);
      if (!in[id])
        {
          key[id] = (double)ebb_rng_below (&r, 20); /* small range: many ties */
          ebb_pol_iheap_push (&h, id, key[id]);
          in[id] = 1;
        }
      else if (op == 0)
        {
          ebb_pol_iheap_remove (&h, id);
          in[id] = 0;
        }
      else
        {
          key[id] = (double)ebb_rng_below (&r, 20);
          ebb_pol_iheap_set (&h, id, key[id]);
        }
      uint32_t best = UINT32_MAX, count = 0;
      for (uint32_t i = 0; i < N; i++)
        if (in[i])
          {
            count++;
            if (best == UINT32_MAX || key[i] < key[best])
              best = i;
          }
      CU_ASSERT_EQUAL_FATAL (h.n, count);
      if (count)
        CU_ASSERT_EQUAL_FATAL (h.s[0].id, best);
      if (in[id])
        CU_ASSERT_EQUAL_FATAL (ebb_pol_iheap_key (&h, id), key[id]);
      CU_ASSERT_EQUAL_FATAL (ebb_pol_iheap_member (&h, id), in[id]);
    }
  ebb_pol_iheap_fini (&h);
}

/* Ablations: without central placement a long job is probed like a short one (ratio x t
 * probes) but only over the general partition; without the partition long tasks may go to
 * every node. */
static void
test_hawk_ablations (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 50, .est_task_sec = 100 } };
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = 100;
  p.cutoff_sec = 50;
  p.short_part_pct = 10; /* nodes 0..9 reserved */
  p.no_central = 1;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new ("hawk", &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  size_t n;
  ebb_pol_job_arrived (pol, 0, 0);
  const ebb_pol_action *a = ebb_pol_actions (pol, &n);
  CU_ASSERT_EQUAL (n, 100);
  uint32_t low = 100;
  for (size_t i = 0; i < n; i++)
    low = a[i].node < low ? a[i].node : low;
  CU_ASSERT (low >= 10);
  ebb_pol_free (pol);
  /* Central, with and without the partition: 100 tasks on empty nodes in ascending id
   * start at node 10, or at node 0 without the partition. */
  jobs[0].ntasks = 100;
  p.no_central = 0;
  for (int nopart = 0; nopart <= 1; nopart++)
    {
      p.no_partition = nopart;
      pol = ebb_pol_new ("hawk", &p, jobs, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
      ebb_pol_job_arrived (pol, 0, 0);
      a = ebb_pol_actions (pol, &n);
      CU_ASSERT_EQUAL_FATAL (n, 100);
      CU_ASSERT_EQUAL (a[0].node, nopart ? 0 : 10);
      CU_ASSERT_EQUAL (a[89].node, nopart ? 89 : 99);
      /* Without the partition all 100 nodes take one task; with it nodes 10 and up take a
       * second one after the first round. */
      CU_ASSERT_EQUAL (a[99].node, nopart ? 99 : 19);
      ebb_pol_free (pol);
    }
}

/* A resource-mode policy on the probe queues: every task is probed to node 0. */
static void
probe_all_to_0 (ebb_pol *p, double now_sec, uint32_t job)
{
  (void)now_sec;
  for (uint32_t t = 0; t < p->jobs[job].ntasks; t++)
    ebb_pol_send_probe (p, 0, job);
}

static const ebb_pol_ops queue_res_ops = {
  .name = "queue-res",
  .summary = "test",
  .job_arrived = probe_all_to_0,
  .needs_resources = 1,
};

/* bind_task in resource mode: LAUNCH carries the demand, node_free follows, a finished task
 * frees its resources and the queue is served again; a killed task is bound again first. */
static void
test_resource_mode_queue (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 2, .est_task_sec = 5, .demand = { 3000, 1 << 20 } } };
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.node_cap = (ebb_pol_res){ 4000, 8 << 20 };
  pp.cancel_probes = 0;
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new_ops (&queue_res_ops, &pp, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  uint32_t probe[2] = { a[0].arg, a[1].arg };
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, D, 0, probe[0]);
  ebb_pol_probe_arrived (p, D, 0, probe[1]);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a[0].arg, 0);
  CU_ASSERT_EQUAL (a[0].amount.cpu_millis, 3000);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 1000);
  ebb_pol_clear_actions (p);
  /* Killed before it ends: its resources come back, kills are counted, and the node's queue
   * is served again: the other probe binds task 0 (pending again) once more. */
  ebb_pol_task_killed (p, 1, 0, 0, 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].kills, 1);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].state, EBB_POL_TASK_RUNNING);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 1000);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a[0].arg, 0);
  CU_ASSERT_EQUAL (jobs[0].launched, 1);
  ebb_pol_clear_actions (p);
  /* It finishes: resources back; the queue is empty, the node idle. */
  ebb_pol_task_finished (p, 9, 0, 0, 0);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 4000);
  CU_ASSERT_EQUAL (p->nodes[0].busy, 0);
  ebb_pol_free (p);
}

/* ebb_pol_job_forget frees a finished job's per-task state (ebb, bigc: policies that allow
 * it), not before its last task ended; the id arrives again as a new job. */
static void
test_job_forget (void)
{
  static const char *const names[] = { "ebb", "bigc" };
  for (size_t k = 0; k < 2; k++)
    {
      ebb_pol_params params;
      ebb_pol_params_default (&params);
      params.nnodes = 2;
      params.node_cap = (ebb_pol_res){ 2000, 1LL << 30 };
      ebb_pol_job jobs[1] = { { .ntasks = 2, .est_task_sec = 1, .demand = { 1000, 1 << 20 } } };
      ebb_pol *p = ebb_pol_new (names[k], &params, jobs, NULL);
      CU_ASSERT_PTR_NOT_NULL_FATAL (p);
      ebb_pol_job_arrived (p, 0, 0);
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      uint32_t nodes[2] = { 0, 0 }, launched = 0;
      for (size_t i = 0; i < n; i++)
        if (a[i].kind == EBB_POL_ACT_LAUNCH && a[i].arg < 2)
          nodes[a[i].arg] = a[i].node, launched++;
      CU_ASSERT_EQUAL_FATAL (launched, 2);
      ebb_pol_clear_actions (p);
      ebb_pol_task_finished (p, 1, nodes[0], 0, 0);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* a task still runs */
      ebb_pol_task_finished (p, 2, nodes[1], 0, 1);
      int freed = ebb_pol_job_forget (p, 0);
      CU_ASSERT_EQUAL (freed, 1);
      CU_ASSERT_PTR_NULL (jobs[0].tasks);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0);
      /* The id again: a new job, launched as the first was. */
      ebb_pol_job_arrived (p, 3, 0);
      CU_ASSERT_PTR_NOT_NULL (jobs[0].tasks);
      a = ebb_pol_actions (p, &n);
      launched = 0;
      for (size_t i = 0; i < n; i++)
        launched += a[i].kind == EBB_POL_ACT_LAUNCH;
      CU_ASSERT_EQUAL (launched, 2);
      ebb_pol_free (p);
    }
}

/* The calls an environment has instead of the struct's fields: ebb_pol_take_actions moves
 * the oldest actions out and keeps the rest in order; the accessors give the ops, params,
 * stats and a node's capacity. */
static void
test_environment_calls (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 3, .est_task_sec = 10 } };
  ebb_pol *p = make ("sparrow", 4, jobs, 1);
  ebb_pol_job_arrived (p, 0, 0);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 6); /* probe ratio 2 x 3 tasks */
  ebb_pol_action all[6], buf[4];
  memcpy (all, a, sizeof all);
  CU_ASSERT_EQUAL (ebb_pol_take_actions (p, buf, 4), 4);
  CU_ASSERT_EQUAL (memcmp (buf, all, 4 * sizeof *buf), 0);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  CU_ASSERT_EQUAL (memcmp (a, all + 4, 2 * sizeof *a), 0);
  CU_ASSERT_EQUAL (ebb_pol_take_actions (p, buf, 4), 2);
  CU_ASSERT_EQUAL (memcmp (buf, all + 4, 2 * sizeof *buf), 0);
  CU_ASSERT_EQUAL (ebb_pol_take_actions (p, buf, 4), 0);
  ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL (n, 0);
  CU_ASSERT_STRING_EQUAL (ebb_pol_ops_of (p)->name, "sparrow");
  CU_ASSERT_EQUAL (ebb_pol_params_of (p)->nnodes, 4);
  CU_ASSERT_EQUAL (ebb_pol_stats_of (p)->probes_sent, p->stats.probes_sent);
  CU_ASSERT (ebb_pol_stats_of (p)->probes_sent >= 6);
  CU_ASSERT_EQUAL (ebb_pol_has_resources (p), 0);
  CU_ASSERT_EQUAL (ebb_pol_node_cap (p, 0).cpu_millis, 0); /* slot mode: none */
  ebb_pol_free (p);

  ebb_pol_params rp;
  ebb_pol_params_default (&rp);
  rp.nnodes = 2;
  rp.node_cap = (ebb_pol_res){ 4000, INT64_C (8) << 30 };
  p = ebb_pol_new ("bigc", &rp, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_EQUAL (ebb_pol_has_resources (p), 1);
  ebb_pol_node_capacity (p, 1, (ebb_pol_res){ 2000, INT64_C (1) << 30 });
  CU_ASSERT_EQUAL (ebb_pol_node_cap (p, 0).cpu_millis, 4000);
  CU_ASSERT_EQUAL (ebb_pol_node_cap (p, 1).cpu_millis, 2000);
  CU_ASSERT_EQUAL (ebb_pol_node_cap (p, 1).memory_bytes, INT64_C (1) << 30);
  CU_ASSERT_EQUAL (ebb_pol_node_cap (p, 2).cpu_millis, 0); /* out of range */
  CU_ASSERT (ebb_pol_params_of (p)->tick_sec > 0);         /* bigc set its round */
  ebb_pol_free (p);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_environment_calls),
  EBB_CU_TEST (test_sparrow_cancels_surplus_probe),
  EBB_CU_TEST (test_sparrow_surplus_probe_costs_round_trip),
  EBB_CU_TEST (test_hawk_least_waiting_node),
  EBB_CU_TEST (test_fifo_central_queue),
  EBB_CU_TEST (test_bad_parameters),
  EBB_CU_TEST (test_iheap_matches_brute_force),
  EBB_CU_TEST (test_hawk_ablations),
  EBB_CU_TEST (test_resource_mode_queue),
  EBB_CU_TEST (test_job_forget),
};

EBB_CU_MAIN ("policy-core", NULL, NULL, tests)
