/* The ebb policy's preemption core on hand-built nodes: whom it preempts and by how much,
 * the share bound under alternating bursts, delayed resumption D, determinism. */
#include "config.h"

#include "policies/ebb.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <math.h>
#include <string.h>

#define GIB    (1ll << 30)
#define CPU(c) ((int64_t)(c)*1000)

static ebb_pre_params
params (void)
{
  ebb_pre_params p;
  ebb_pre_params_default (&p);
  return p;
}

static uint32_t
add (ebb_pre_node *n, uint32_t job, int is_long, int64_t cpu, int64_t mem, double end)
{
  ebb_pre_task t
      = { .job = job, .is_long = (uint8_t)is_long, .demand = { cpu, mem }, .est_end_sec = end };
  return ebb_pre_add (n, &t);
}

/* BIG-C's Google node: 32 CPU, 128 GiB. */
static ebb_pre_node
google_node (void)
{
  return (ebb_pre_node){ .cap = { CPU (32), 128 * GIB } };
}

static void
test_fits_no_preemption (void)
{
  ebb_pre_params p = params ();
  ebb_pre_node n = google_node ();
  ebb_pre_take out[8];
  double d = -1;
  add (&n, 1, 1, CPU (8), 16 * GIB, 100);
  add (&n, 2, 1, CPU (8), 16 * GIB, 100);
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 4 * GIB }, 0, 0, out, 8, &d), 0);
  CU_ASSERT_EQUAL (d, 0);
  /* Idle node: never a preemption. */
  ebb_pre_node idle = google_node ();
  CU_ASSERT_EQUAL (ebb_pre_plan (&idle, &p, (ebb_pol_res){ CPU (32), 128 * GIB }, 0, 0, out, 8, &d),
                   0);
  /* More than the node has: no preemption for nothing. */
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (33), 0 }, 0, 0, out, 8, &d), -1);
  ebb_pre_node_fini (&n);
}

/* A single-slot node (Hawk traces): the short task takes the whole slot from the long one,
 * at once (no memory to reclaim). */
static void
test_slot_short_preempts_long (void)
{
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  ebb_pre_node n = { .cap = { 1, 0 } };
  add (&n, 7, 1, 1, 0, 5000);
  ebb_pre_take out[4];
  double d = -1;
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 0, 10, out, 4, &d), 1);
  CU_ASSERT_EQUAL (out[0].slot, 0);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, 1);
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 0);
  CU_ASSERT_EQUAL (d, 0);
  ebb_pre_apply (&n, &p, out, 1, 10);
  CU_ASSERT (ebb_pre_is_preempted (&n.tasks[0]));
  CU_ASSERT (ebb_pre_fits (&n, (ebb_pol_res){ 1, 0 }));
  ebb_pre_node_fini (&n);
}

/* A node's room for tasks reserved ahead (the policy does it for every node at init): the
 * first EBB_PRE_NODE_TASKS0 tasks land in it without a new allocation, the next one doubles it
 * with the tasks kept, and a smaller reservation never shrinks it. */
static void
test_node_reserve (void)
{
  ebb_pre_node n = google_node ();
  ebb_pre_node_reserve (&n, EBB_PRE_NODE_TASKS0);
  CU_ASSERT_EQUAL_FATAL (n.tasks_cap, EBB_PRE_NODE_TASKS0);
  CU_ASSERT_PTR_NOT_NULL_FATAL (n.tasks);
  const ebb_pre_task *room = n.tasks;
  for (uint32_t k = 0; k < EBB_PRE_NODE_TASKS0; k++)
    CU_ASSERT_EQUAL (add (&n, 10 + k, 1, CPU (1), GIB, 100 + k), k);
  CU_ASSERT_PTR_EQUAL (n.tasks, room);
  CU_ASSERT_EQUAL (n.tasks_cap, EBB_PRE_NODE_TASKS0);
  add (&n, 99, 0, CPU (1), GIB, 500);
  CU_ASSERT_EQUAL (n.tasks_cap, 2 * EBB_PRE_NODE_TASKS0);
  CU_ASSERT_EQUAL (n.ntasks, EBB_PRE_NODE_TASKS0 + 1);
  for (uint32_t k = 0; k < EBB_PRE_NODE_TASKS0; k++)
    CU_ASSERT_EQUAL (n.tasks[ebb_pre_find (&n, 10 + k, 0)].est_end_sec, 100 + k);
  CU_ASSERT_EQUAL (n.used.cpu_millis, CPU (EBB_PRE_NODE_TASKS0 + 1));
  ebb_pre_node_reserve (&n, 1);
  CU_ASSERT_EQUAL (n.tasks_cap, 2 * EBB_PRE_NODE_TASKS0);
  ebb_pre_node_fini (&n);
  CU_ASSERT_PTR_NULL (n.tasks);
}

/* Room lent by the environment (the policy lends each node its part of one block): tasks
 * land in it, and a node outgrowing it moves to room of its own with its tasks, leaving the
 * lent room alone; neither that move nor ebb_pre_node_fini frees it (here it is on the
 * stack: the sanitizers would say so). Accounting lines start at zero whatever the room
 * held before (ebb_pre_add writes a task's first line only). */
static void
test_node_lend (void)
{
  ebb_pre_task room[2];
  memset (room, 0xa5, sizeof room);
  ebb_pre_node n = google_node ();
  ebb_pre_node_lend (&n, room, 2);
  CU_ASSERT_EQUAL (add (&n, 1, 1, CPU (8), GIB, 100), 0);
  CU_ASSERT_EQUAL (add (&n, 2, 1, CPU (8), GIB, 200), 1);
  CU_ASSERT_PTR_EQUAL (n.tasks, room);
  CU_ASSERT_DOUBLE_EQUAL (
      ebb_pre_lost_sec (&n.tasks[0], &(ebb_pre_params){ .share_window_sec = 600 }, 50), 0, 1e-12);
  add (&n, 3, 0, CPU (1), GIB, 300);
  CU_ASSERT_PTR_NOT_EQUAL (n.tasks, room);
  CU_ASSERT_EQUAL (n.ntasks, 3);
  CU_ASSERT_EQUAL (n.tasks[ebb_pre_find (&n, 2, 0)].est_end_sec, 200);
  CU_ASSERT_EQUAL (room[1].job, 2); /* left as it was */
  ebb_pre_node_fini (&n);
  ebb_pre_node m = google_node ();
  ebb_pre_node_lend (&m, room, 2);
  add (&m, 4, 1, CPU (1), GIB, 10);
  ebb_pre_node_fini (&m);
  CU_ASSERT_PTR_NULL (m.tasks);
}

static void
test_short_never_preempts_short (void)
{
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  ebb_pre_node n = { .cap = { 1, 0 } };
  add (&n, 1, 0, 1, 0, 5);
  ebb_pre_take out[4];
  double d;
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 0, 0, out, 4, &d), -1);
  /* Mixed: a short task and a long one; only the long one is a victim, even though the short
   * one ends later and holds more. */
  ebb_pre_node m = google_node ();
  add (&m, 1, 0, CPU (20), 8 * GIB, 900);
  add (&m, 2, 1, CPU (12), 8 * GIB, 100);
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&m, &p, (ebb_pol_res){ CPU (4), GIB }, 0, 0, out, 4, &d), 1);
  CU_ASSERT_EQUAL (m.tasks[out[0].slot].job, 2);
  /* The long one cannot give enough: the short task waits, nobody is preempted. */
  CU_ASSERT_EQUAL (ebb_pre_plan (&m, &p, (ebb_pol_res){ CPU (16), GIB }, 0, 0, out, 4, &d), -1);
  ebb_pre_node_fini (&n);
  ebb_pre_node_fini (&m);
}

/* CPU is taken at once; memory only as much as the short task lacks, at 3 s/GiB. */
static void
test_memory_only_as_needed (void)
{
  ebb_pre_params p = params ();
  ebb_pre_node n = google_node ();
  for (uint32_t j = 0; j < 4; j++)
    add (&n, j, 1, CPU (8), 16 * GIB, 1000 + j);
  ebb_pre_take out[8];
  double d = -1;
  /* 64 GiB free: only CPU is lacking. Latest end (job 3) is the victim. */
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 4 * GIB }, 0, 0, out, 8, &d),
                         1);
  CU_ASSERT_EQUAL (n.tasks[out[0].slot].job, 3);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (4));
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 0);
  CU_ASSERT_EQUAL (d, 0);
  ebb_pre_node_fini (&n);

  /* Memory full too: 2 GiB lacking (126 GiB held), reclaimed in 6 s. */
  n = google_node ();
  add (&n, 0, 1, CPU (16), 63 * GIB, 50);
  add (&n, 1, 1, CPU (16), 63 * GIB, 60);
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 4 * GIB }, 0, 0, out, 8, &d),
                         1);
  CU_ASSERT_EQUAL (n.tasks[out[0].slot].job, 1);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (4));
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 2 * GIB);
  CU_ASSERT_DOUBLE_EQUAL (d, 6.0, 1e-9);
  ebb_pre_node_fini (&n);
}

/* A victim keeps its footprint, so a big short task spans two victims, in end order, and
 * the reclaims add up. */
static void
test_footprint_and_victim_order (void)
{
  ebb_pre_params p = params ();
  ebb_pre_node n = google_node ();
  add (&n, 0, 1, CPU (8), 32 * GIB, 300);
  add (&n, 1, 1, CPU (8), 32 * GIB, 700);
  add (&n, 2, 1, CPU (16), 64 * GIB, 500);
  ebb_pre_take out[8];
  double d;
  int k = ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (10), 34 * GIB }, 0, 0, out, 8, &d);
  CU_ASSERT_EQUAL_FATAL (k, 2);
  CU_ASSERT_EQUAL (n.tasks[out[0].slot].job, 1);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (8) - 10);
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 32 * GIB - (64ll << 20));
  CU_ASSERT_EQUAL (n.tasks[out[1].slot].job, 2);
  CU_ASSERT_EQUAL (out[1].amount.cpu_millis, CPU (2) + 10);
  CU_ASSERT_EQUAL (out[1].amount.memory_bytes, 2 * GIB + (64ll << 20));
  CU_ASSERT_DOUBLE_EQUAL (d, 34 * 3.0, 1e-9);
  ebb_pre_apply (&n, &p, out, 2, 0);
  CU_ASSERT_EQUAL (n.used.cpu_millis, CPU (22));
  CU_ASSERT_EQUAL (n.used.memory_bytes, 94 * GIB);
  CU_ASSERT (ebb_pre_fits (&n, (ebb_pol_res){ CPU (10), 34 * GIB }));
  ebb_pre_node_fini (&n);
}

/* The share: a long task on a slot loses 10 s to each short task. At one every 30 s (a
 * third of its time) every short task takes its slot, for ten hours: no count runs out (on
 * main the third one in 600 s was refused). Back to back, the task gives at most (1 - S) W
 * = 300 s of any 600 s window, and takes again once its losses leave the window. */
static void
test_share_bound (void)
{
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  p.resume_tries = 0;
  ebb_pre_node n = { .cap = { 1, 0 } };
  add (&n, 0, 1, 1, 0, 1e6);
  ebb_pre_take out[2];
  double d;
  for (double t = 0; t < 36000; t += 30)
    {
      CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 10, t, out, 2, &d), 1);
      ebb_pre_apply (&n, &p, out, 1, t);
      CU_ASSERT_EQUAL_FATAL (ebb_pre_chance (&n, &p, t + 10, 0, 0, out, 2), 1);
    }
  double t0 = 40000, t = t0;
  while (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 10, t, out, 2, &d) == 1)
    {
      ebb_pre_apply (&n, &p, out, 1, t);
      CU_ASSERT_EQUAL_FATAL (ebb_pre_chance (&n, &p, t + 10, 0, 0, out, 2), 1);
      t += 10;
    }
  CU_ASSERT (t - t0 <= 300);
  CU_ASSERT (t - t0 >= 300 - 600.0 / (EBB_PRE_BUCKETS - 1)); /* over-counted by one part */
  CU_ASSERT (ebb_pre_lost_sec (&n.tasks[0], &p, t) <= 300 + 1e-9);
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 10, t0 + 599, out, 2, &d), -1);
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 10, t0 + 700, out, 2, &d), 1);
  /* S = 1: long work is never taken from. */
  p.long_share = 1;
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 1, 1e6, out, 2, &d), -1);
  ebb_pre_node_fini (&n);
}

/* Preemptions spread over the long tasks: two long tasks of 16 CPU on a full node; each
 * short task of 16 CPU takes from the one that lost least in its window (on main, the
 * one with the latest estimated end every time). */
static void
test_share_victims_spread (void)
{
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  p.resume_tries = 0;
  ebb_pre_node n = { .cap = { CPU (32), 0 } };
  add (&n, 0, 1, CPU (16), 0, 1000);
  add (&n, 1, 1, CPU (16), 0, 2000);
  ebb_pre_take out[4];
  double d;
  uint32_t victims[2] = { 0, 0 };
  for (int i = 0; i < 20; i++)
    {
      double t = i * 20.0;
      CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (16), 0 }, 10, t, out, 4, &d),
                             1);
      victims[n.tasks[out[0].slot].job]++;
      if (i == 0)
        CU_ASSERT_EQUAL (n.tasks[out[0].slot].job, 1); /* equal losses: latest end first */
      ebb_pre_apply (&n, &p, out, 1, t);
      CU_ASSERT_EQUAL_FATAL (ebb_pre_chance (&n, &p, t + 10, 0, 0, out, 4), 1);
    }
  CU_ASSERT_EQUAL (victims[0], 10);
  CU_ASSERT_EQUAL (victims[1], 10);
  ebb_pre_node_fini (&n);
}

/* D only where memory was taken: a CPU-only take is given back at the first chance after
 * its short task ended, D = 3 rounds or not (on main it waited 9 s of room). */
static void
test_cpu_only_resumes_at_once (void)
{
  ebb_pre_params p = params ();
  p.resume_tries = 3;
  p.round_sec = 3;
  ebb_pre_node n = google_node ();
  add (&n, 0, 1, CPU (32), 64 * GIB, 1000);
  ebb_pre_take out[4];
  double d;
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), GIB }, 1, 0, out, 4, &d), 1);
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 0);
  ebb_pre_apply (&n, &p, out, 1, 0);
  uint32_t s = add (&n, 1, 0, CPU (4), GIB, 1);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 0.5, 0, 0, out, 4), 0); /* the short task holds it */
  ebb_pre_remove (&n, s);
  CU_ASSERT_EQUAL_FATAL (ebb_pre_chance (&n, &p, 1, 0, 0, out, 4), 1);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (4));
  CU_ASSERT_DOUBLE_EQUAL (out[0].delay_sec, 0, 1e-12);
  CU_ASSERT (!ebb_pre_is_preempted (&n.tasks[0]));
  ebb_pre_node_fini (&n);
}

/* A short task that outruns its estimate does not overdraw the share by more than itself:
 * the task is overdue once its whole budget is lost, and takes its room back even though
 * short work is waiting. */
static void
test_share_overdue (void)
{
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  p.resume_tries = 3;
  ebb_pre_node n = { .cap = { 1, 0 } };
  add (&n, 0, 1, 1, 0, 1e6);
  ebb_pre_take out[2];
  double d;
  CU_ASSERT_EQUAL_FATAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 10, 0, out, 2, &d), 1);
  ebb_pre_apply (&n, &p, out, 1, 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 200, 1, 0, out, 2), 0); /* short pending */
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 300, 1, 0, out, 2), 1); /* budget spent */
  CU_ASSERT_EQUAL (ebb_pre_plan (&n, &p, (ebb_pol_res){ 1, 0 }, 1, 301, out, 2, &d), -1);
  ebb_pre_node_fini (&n);
}

/* Delayed resumption: with D = 3 rounds of 3 s the task resumes at the first chance after
 * its room has been free for 9 s in all since it was preempted, however many chances came
 * meanwhile (the event rate of the environment must not matter); time without room or with
 * short work pending does not count; spare cluster room skips D. */
static void
test_delayed_resumption (void)
{
  ebb_pre_params p = params ();
  p.resume_tries = 3;
  p.round_sec = 3;
  p.share_window_sec = 1e6; /* no overdue resumption in this test */
  ebb_pre_node n = google_node ();
  add (&n, 0, 1, CPU (32), 64 * GIB, 1000);
  ebb_pre_take out[4];
  double d;
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 80 * GIB }, 0, 0, out, 4, &d), 1);
  ebb_pre_apply (&n, &p, out, 1, 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 1, 1, 0, out, 4), 0); /* short pending */
  CU_ASSERT (!n.tasks[0].has_room);
  /* Room from 2 s: a thousand chances before 11 s resume nothing. */
  for (int i = 0; i < 1000; i++)
    CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 2 + i * 0.0089, 0, 0, out, 4), 0);
  CU_ASSERT_DOUBLE_EQUAL (n.tasks[0].room_sec, 999 * 0.0089, 1e-9);
  CU_ASSERT_EQUAL_FATAL (ebb_pre_chance (&n, &p, 11, 0, 0, out, 4), 1);
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (4));
  CU_ASSERT_EQUAL (out[0].amount.memory_bytes, 16 * GIB);
  CU_ASSERT_DOUBLE_EQUAL (out[0].delay_sec, 48.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (n.tasks[0].est_end_sec, 1011, 1e-9); /* pushed by its pause */
  CU_ASSERT (!ebb_pre_is_preempted (&n.tasks[0]));

  /* Spare room in the cluster: the first chance resumes. */
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 80 * GIB }, 0, 20, out, 4, &d), 1);
  ebb_pre_apply (&n, &p, out, 1, 20);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 21, 0, 1, out, 4), 1);

  /* Two chances only, 9 s apart: the same resumption as with a thousand. */
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 80 * GIB }, 0, 22, out, 4, &d), 1);
  ebb_pre_apply (&n, &p, out, 1, 22);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 23, 0, 0, out, 4), 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 32, 0, 0, out, 4), 1);

  /* Room from 40.5 s to 41 s, then none (a short task holds it) until 51 s: 0.5 s count,
   * and 8.5 s more are needed from 51 s. */
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan (&n, &p, (ebb_pol_res){ CPU (4), 80 * GIB }, 0, 40, out, 4, &d), 1);
  ebb_pre_apply (&n, &p, out, 1, 40);
  CU_ASSERT_DOUBLE_EQUAL (n.tasks[0].room_sec, 0, 1e-12); /* counted anew per preemption */
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 40.5, 0, 0, out, 4), 0);
  uint32_t s = add (&n, 9, 0, CPU (4), 0, 40);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 41, 0, 0, out, 4), 0);
  CU_ASSERT (!n.tasks[0].has_room);
  ebb_pre_remove (&n, s);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 51, 0, 0, out, 4), 0);
  /* On a copy of the node: short work pending from 55 s to 59.6 s does not count either. */
  ebb_pre_node m = n;
  ebb_pre_task copy[8];
  CU_ASSERT_FATAL (n.ntasks <= 8);
  memcpy (copy, n.tasks, n.ntasks * sizeof *copy);
  m.tasks = copy;
  CU_ASSERT_EQUAL (ebb_pre_chance (&m, &p, 55, 1, 0, out, 4), 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&m, &p, 59.6, 0, 0, out, 4), 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&m, &p, 63.9, 0, 0, out, 4), 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&m, &p, 64.2, 0, 0, out, 4), 1);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 59.4, 0, 0, out, 4), 0);
  CU_ASSERT_EQUAL (ebb_pre_chance (&n, &p, 59.6, 0, 0, out, 4), 1);
  ebb_pre_node_fini (&n);
}

/* Alternating bursts on one slot: short work arrives for `on` seconds, then none for `off`,
 * for ten hours, in 1 s steps. Whatever the rhythm, the long task holds its slot at least
 * S = half of every window of W seconds, and short work takes it whenever that allows. */
typedef struct burst_log
{
  double susp[4096];
  uint32_t nsusp;
  uint8_t held[36000];
} burst_log;

static void
run_bursts (const ebb_pre_params *p, int on, int off, int short_len, burst_log *log)
{
  ebb_pre_node n = { .cap = { 1, 0 } };
  add (&n, 0, 1, 1, 0, 1e9);
  ebb_pre_take out[4];
  int short_slot = -1, short_left = 0;
  memset (log, 0, sizeof *log);
  for (int t = 0; t < 36000; t++)
    {
      int burst = t % (on + off) < on;
      if (short_slot >= 0 && --short_left == 0)
        {
          ebb_pre_remove (&n, (uint32_t)short_slot);
          short_slot = -1;
        }
      /* A chance first, as the policy gives one when a short task ends: an overdue task
       * takes its slot back before the next short task can. */
      ebb_pre_chance (&n, p, t, burst, 0, out, 4);
      if (burst && short_slot < 0)
        {
          double d;
          int k = ebb_pre_plan (&n, p, (ebb_pol_res){ 1, 0 }, short_len, t, out, 4, &d);
          if (k > 0)
            {
              ebb_pre_apply (&n, p, out, (uint32_t)k, t);
              if (log->nsusp < 4096)
                log->susp[log->nsusp++] = t;
            }
          if (k >= 0)
            {
              short_slot = (int)add (&n, 1, 0, 1, 0, t + short_len);
              short_left = short_len;
            }
        }
      /* The slot table moves the last task into a freed slot: look the long one up. */
      log->held[t] = !ebb_pre_is_preempted (&n.tasks[ebb_pre_find (&n, 0, 0)]);
    }
  ebb_pre_node_fini (&n);
}

static void
test_share_bound_alternating_bursts (void)
{
  static burst_log log;
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  int rhythm[][3] = { { 5, 5, 2 }, { 30, 30, 3 }, { 1, 1, 1 }, { 300, 10, 4 }, { 10, 290, 2 } };
  for (size_t r = 0; r < sizeof rhythm / sizeof rhythm[0]; r++)
    for (uint32_t dtries = 0; dtries <= 3; dtries += 3)
      {
        p.resume_tries = dtries;
        run_bursts (&p, rhythm[r][0], rhythm[r][1], rhythm[r][2], &log);
        CU_ASSERT (log.nsusp > 0);
        /* Held at least half of every window (the short tasks' estimates are exact). */
        int w = (int)p.share_window_sec, held = 0, min_held = w, max_held = 0;
        for (int t = 0; t < 36000; t++)
          {
            held += log.held[t];
            if (t >= w)
              held -= log.held[t - w];
            if (t >= w - 1 && held < min_held)
              min_held = held;
            if (t >= w - 1 && held > max_held)
              max_held = held;
          }
        CU_ASSERT (min_held >= w / 2);
        /* Under steady short work (the long bursts), the share is what stops it: the long
         * task gives nearly all its budget, not a count's worth (on main: 2 x 4 s). */
        if (rhythm[r][0] >= 300)
          CU_ASSERT (min_held <= w / 2 + w / (EBB_PRE_BUCKETS - 1) + rhythm[r][2]);
        CU_ASSERT (max_held <= w);
      }
}

/* Same inputs, same decisions: the policy has no clock and no hidden state. */
static void
test_determinism (void)
{
  static burst_log a, b;
  ebb_pre_params p = params ();
  p.footprint = (ebb_pol_res){ 0, 0 };
  run_bursts (&p, 7, 13, 3, &a);
  run_bursts (&p, 7, 13, 3, &b);
  CU_ASSERT_EQUAL (memcmp (&a, &b, sizeof a), 0);
}

static void
test_params_check (void)
{
  ebb_pre_params p = params ();
  CU_ASSERT_PTR_NULL (ebb_pre_params_check (&p));
  p.long_share = -0.1;
  CU_ASSERT_PTR_NOT_NULL (ebb_pre_params_check (&p));
  p.long_share = 1.1;
  CU_ASSERT_PTR_NOT_NULL (ebb_pre_params_check (&p));
  p.long_share = NAN;
  CU_ASSERT_PTR_NOT_NULL (ebb_pre_params_check (&p));
  p = params ();
  p.share_window_sec = 0;
  CU_ASSERT_PTR_NOT_NULL (ebb_pre_params_check (&p));
  p = params ();
  p.reclaim_sec_per_gib = NAN;
  CU_ASSERT_PTR_NOT_NULL (ebb_pre_params_check (&p));
}

/* ---- The policy, driven as the controller drives it: events in, actions out. ---- */

/* The ebb policy over nnodes nodes of capacity cap; long_share below 0: the default. */
static ebb_pol *
make_ebb_share (uint32_t nnodes, ebb_pol_res cap, ebb_pol_res footprint, uint32_t d,
                double long_share, ebb_pol_job *jobs)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  if (long_share >= 0)
    p.long_share = long_share;
  p.nnodes = nnodes;
  p.cutoff_sec = 100;
  p.short_part_pct = 0;
  p.node_cap = cap;
  p.footprint = footprint;
  p.resume_tries = d;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new ("ebb", &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

static ebb_pol *
make_ebb (uint32_t nnodes, ebb_pol_res cap, ebb_pol_res footprint, uint32_t d, ebb_pol_job *jobs)
{
  return make_ebb_share (nnodes, cap, footprint, d, -1, jobs);
}

static void
free_jobs (ebb_pol_job *jobs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (jobs[i].tasks);
}

/* One slot (a Hawk trace's node): a short task suspends the running long one at once, starts
 * when the slot is reported free, and the long one resumes when the short one ends. */
static void
test_policy_slot_preempts_and_resumes (void)
{
  ebb_pol_job jobs[2] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, 0 }, (ebb_pol_res){ 0, 0 }, 3, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 10, 1);
  ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT_EQUAL (a.amount.cpu_millis, 1000);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0); /* not before the slot is free */
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 10, 0, 0, 0, (ebb_pol_res){ 1000, 0 }, 1);
  a = polfix_first (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a.job, 1);
  ebb_pol_clear_actions (p);
  /* Short work done at 15 s: the room is back, and the slot was taken as CPU (a Hawk
   * trace's node has no memory), which costs nothing to give back: it resumes at once,
   * D = 3 rounds or not (D is for memory taken; on main it waited 9 s). */
  ebb_pol_task_finished (p, 15, 0, 1, 0);
  a = polfix_first (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (p->stats.suspends, 1);
  CU_ASSERT_EQUAL (p->stats.resumes, 1);
  ebb_pol_free (p);
  free_jobs (jobs, 2);
}

/* Short never preempts short: the second short task waits for the first. */
static void
test_policy_short_waits_for_short (void)
{
  ebb_pol_job jobs[2] = {
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, 0 }, (ebb_pol_res){ 0, 0 }, 0, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_SUSPEND) < 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  ebb_pol_task_finished (p, 5, 0, 0, 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  CU_ASSERT_EQUAL (p->stats.suspends, 0);
  ebb_pol_free (p);
  free_jobs (jobs, 2);
}

/* The policy tells the environment why a short task waits (ebb_pol_job.wait): the share
 * protecting the long work (long-share 1: nothing may be taken), not a short task holding
 * the node; and nothing once it starts. */
static void
test_policy_says_share_protects (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
  };
  ebb_pol *p = make_ebb_share (1, (ebb_pol_res){ 1000, 0 }, (ebb_pol_res){ 0, 0 }, 0, 1, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 10, 1);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_SUSPEND) < 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  CU_ASSERT_EQUAL (jobs[1].wait, EBB_POL_WAIT_SHARE);
  ebb_pol_task_finished (p, 20, 0, 0, 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  CU_ASSERT_EQUAL (jobs[1].wait, EBB_POL_WAIT_NONE);
  ebb_pol_clear_actions (p);
  /* Behind a short task: no long work to protect, nothing said. */
  ebb_pol_job_arrived (p, 21, 2);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  CU_ASSERT_EQUAL (jobs[2].wait, EBB_POL_WAIT_NONE);
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* Vectors: the short task lacks only CPU, so only CPU is taken (graceful, no memory), and
 * the long task is given its CPU back at once when D = 0. */
static void
test_policy_vector_takes_cpu_only (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 2, .est_task_sec = 3000, .demand = { CPU (16), 32 * GIB } },
    { .ntasks = 1, .est_task_sec = 10, .demand = { CPU (4), 4 * GIB } },
  };
  ebb_pol *p
      = make_ebb (1, (ebb_pol_res){ CPU (32), 128 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 0, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 5, 1);
  ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_GRACEFUL);
  CU_ASSERT_EQUAL (a.amount.cpu_millis, CPU (4));
  CU_ASSERT_EQUAL (a.amount.memory_bytes, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 1); /* one victim only */
  uint32_t victim = a.arg;
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 5, 0, 0, victim, (ebb_pol_res){ CPU (4), 0 }, 1);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 15, 0, 1, 0);
  a = polfix_first (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (a.arg, victim);
  CU_ASSERT_EQUAL (a.amount.cpu_millis, CPU (4));
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* Adoption (the controller after a restart): long tasks already running on the node are
 * recorded where they run, with no LAUNCH; a short task then preempts one of them like a
 * task the policy launched, and a second adopted job gets nothing the node has not got. */
static void
test_policy_adopted_tasks_are_preempted (void)
{
  ebb_pol_job jobs[2] = {
    { .ntasks = 2, .est_task_sec = 1000, .demand = { 1000, 64 << 20 } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 64 << 20 } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 2000, 2 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 0, jobs);
  const uint32_t nodes[2] = { 0, 0 };
  ebb_pol_job_adopted (p, 0, 0, nodes);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  CU_ASSERT_EQUAL (jobs[0].launched, 2);
  CU_ASSERT_EQUAL (jobs[0].is_long, 1);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 0);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT_EQUAL (a.amount.cpu_millis, 1000); /* no CPU footprint booked */
  uint32_t victim = a.arg;
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 1, 0, 0, victim, (ebb_pol_res){ 1000, 0 }, 1);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  ebb_pol_clear_actions (p);
  /* The short task ends: the adopted task gets its room back (D = 0). */
  ebb_pol_task_finished (p, 6, 0, 1, 0);
  a = polfix_first (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (a.arg, victim);
  ebb_pol_clear_actions (p);
  ebb_pol_task_resumed (p, 6, 0, 0, victim);
  /* An adopted task that ends frees its room like a launched one. */
  ebb_pol_task_finished (p, 7, 0, 0, 1 - victim);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 1000);
  ebb_pol_free (p);
  free_jobs (jobs, 2);
}

/* The share inside the policy: a short task estimated at 10 s that holds the slot 310 s has
 * spent the long task's budget ((1 - S) W = 300 s); when it ends the long task takes its slot
 * back even though more short work waits, and that short task waits (the share protects the
 * long task) instead of taking it. */
static void
test_policy_overdue_resume_beats_queued_short (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 5000, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 10, .demand = { 1000, 0 } },
    { .ntasks = 1, .est_task_sec = 10, .demand = { 1000, 0 } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, 0 }, (ebb_pol_res){ 0, 0 }, 3, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_task_reclaimed (p, 1, 0, 0, 0, (ebb_pol_res){ 1000, 0 }, 1);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 311, 0, 1, 0);
  ebb_pol_action act = polfix_first (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (act.job, 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0); /* the queued short task waits */
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_SUSPEND) < 0);
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* Free room before preemption: with a long task on one node and the other node empty, a
 * short task starts on the empty node and suspends nothing, whichever node it sampled
 * (16 seeds, so both samplings occur). A second short task, with no empty node left,
 * preempts the long task. */
static void
test_policy_empty_node_before_preemption (void)
{
  for (uint64_t seed = 1; seed <= 16; seed++)
    {
      ebb_pol_job jobs[3] = {
        { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, 0 } },
        { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
        { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, 0 } },
      };
      ebb_pol_params pp;
      ebb_pol_params_default (&pp);
      pp.nnodes = 2;
      pp.cutoff_sec = 100;
      pp.short_part_pct = 50; /* node 0 takes short work only */
      pp.node_cap = (ebb_pol_res){ 1000, 0 };
      pp.footprint = (ebb_pol_res){ 0, 0 };
      pp.seed = seed;
      ebb_error *err = NULL;
      ebb_pol *p = ebb_pol_new ("ebb", &pp, jobs, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL (p);
      ebb_pol_job_arrived (p, 0, 0);
      ebb_pol_action act = polfix_first (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (act.node, 1); /* long work: the general node */
      ebb_pol_clear_actions (p);
      ebb_pol_job_arrived (p, 1, 1);
      CU_ASSERT (polfix_find (p, EBB_POL_ACT_SUSPEND) < 0);
      act = polfix_first (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (act.node, 0);
      CU_ASSERT_EQUAL (act.job, 1);
      ebb_pol_clear_actions (p);
      /* No empty node now: sampled on the short node (short work there, never a victim) it
       * moves to node 1, sampled on node 1 it stays; either way it preempts the long task. */
      ebb_pol_job_arrived (p, 2, 2);
      act = polfix_first (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (act.job, 0);
      CU_ASSERT_EQUAL (p->stats.suspends, 1);
      ebb_pol_free (p);
      free_jobs (jobs, 3);
    }
}

/* Free room before preemption on resource nodes: node 0 is full with long work, node 1 has
 * half its CPU free (no node is empty); a short task that fits in that half starts on node 1
 * and suspends nothing, whichever node it sampled (16 seeds). */
static void
test_policy_room_before_preemption (void)
{
  for (uint64_t seed = 1; seed <= 16; seed++)
    {
      ebb_pol_job jobs[3] = {
        { .ntasks = 1, .est_task_sec = 1000, .demand = { 2000, GIB } },
        { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, GIB / 2 } },
        { .ntasks = 1, .est_task_sec = 5, .demand = { 1000, GIB / 2 } },
      };
      ebb_pol_params pp;
      ebb_pol_params_default (&pp);
      pp.nnodes = 2;
      pp.cutoff_sec = 100;
      pp.short_part_pct = 0;
      pp.node_cap = (ebb_pol_res){ 2000, 2 * GIB };
      pp.seed = seed;
      ebb_error *err = NULL;
      ebb_pol *p = ebb_pol_new ("ebb", &pp, jobs, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL (p);
      ebb_pol_job_arrived (p, 0, 0);
      ebb_pol_job_arrived (p, 0, 1);
      CU_ASSERT_EQUAL_FATAL (p->node_free[0].cpu_millis, 0);
      CU_ASSERT_EQUAL_FATAL (p->node_free[1].cpu_millis, 1000);
      ebb_pol_clear_actions (p);
      ebb_pol_job_arrived (p, 1, 2);
      CU_ASSERT (polfix_find (p, EBB_POL_ACT_SUSPEND) < 0);
      CU_ASSERT_EQUAL (p->stats.suspends, 0);
      ebb_pol_action act = polfix_first (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (act.node, 1);
      CU_ASSERT_EQUAL (act.job, 2);
      ebb_pol_free (p);
      free_jobs (jobs, 3);
    }
}

/* No CPU footprint is booked: a suspended 8-CPU long task makes room for two 4-CPU short
 * tasks, one after the other within one preemption (two graceful steps of 4 CPU), where a
 * booked 10-millicore footprint left the second short task 10 millicores short with no other
 * victim on the node. */
static void
test_policy_two_shorts_in_one_long (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (8), 16 * GIB } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { CPU (4), 4 * GIB } },
    { .ntasks = 1, .est_task_sec = 5, .demand = { CPU (4), 4 * GIB } },
  };
  ebb_pol *p
      = make_ebb (1, (ebb_pol_res){ CPU (8), 32 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 0, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  for (uint32_t j = 1; j <= 2; j++)
    {
      ebb_pol_job_arrived (p, j, j);
      ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a.job, 0);
      CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_GRACEFUL);
      CU_ASSERT_EQUAL (a.amount.cpu_millis, CPU (4));
      ebb_pol_clear_actions (p);
      ebb_pol_task_reclaimed (p, j, 0, 0, 0, (ebb_pol_res){ CPU (4), 0 }, 1);
      CU_ASSERT_EQUAL (polfix_first (p, EBB_POL_ACT_LAUNCH).job, j);
      ebb_pol_clear_actions (p);
    }
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 0);
  CU_ASSERT_EQUAL (p->stats.suspends, 2);
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* scripts/demo.sh's cluster, driven as the controller drives the policy: three nodes of 2000
 * millicores and 1 GiB filled by six long tasks of 1000 millicores, then `bursts` bursts of
 * three short tasks (1000 millicores, 1.5 s) 3 s apart; the agents report reclaims and
 * resumptions at once, rounds come every round_sec. Returns how many short tasks did not
 * start on arrival (by the end, 10 s after the last burst); *suspends: the suspensions. */
#define DEMO_SHORTS_MAX 30

static void
demo_drain (ebb_pol *p, double now, double *start, double *fin, uint32_t *node)
{
  for (;;)
    {
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      if (n == 0)
        return;
      ebb_pol_action v[64];
      CU_ASSERT_FATAL (n <= 64);
      memcpy (v, a, n * sizeof *v);
      ebb_pol_clear_actions (p);
      for (size_t i = 0; i < n; i++)
        if (v[i].kind == EBB_POL_ACT_LAUNCH && v[i].job > 0)
          {
            start[v[i].job] = now;
            fin[v[i].job] = now + 1.5;
            node[v[i].job] = v[i].node;
          }
        else if (v[i].kind == EBB_POL_ACT_SUSPEND)
          ebb_pol_task_reclaimed (p, now, v[i].node, v[i].job, v[i].arg, v[i].amount, 1);
        else if (v[i].kind == EBB_POL_ACT_RESUME)
          ebb_pol_task_resumed (p, now, v[i].node, v[i].job, v[i].arg);
    }
}

static uint32_t
demo_bursts (uint64_t seed, double round_sec, uint32_t bursts, uint64_t *suspends)
{
  uint32_t nshort = 3 * bursts;
  CU_ASSERT_FATAL (nshort <= DEMO_SHORTS_MAX);
  ebb_pol_job jobs[DEMO_SHORTS_MAX + 1] = {
    { .ntasks = 6, .est_task_sec = 1000, .demand = { 1000, 64 << 20 } },
  };
  double arrive[DEMO_SHORTS_MAX + 1], start[DEMO_SHORTS_MAX + 1], fin[DEMO_SHORTS_MAX + 1];
  uint32_t node[DEMO_SHORTS_MAX + 1];
  for (uint32_t j = 1; j <= nshort; j++)
    {
      jobs[j] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 1.5, .demand = { 1000, 64 << 20 } };
      arrive[j] = 1 + 3 * ((j - 1) / 3) + 0.01 * ((j - 1) % 3);
      start[j] = fin[j] = INFINITY;
    }
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.nnodes = 3;
  pp.seed = seed;
  pp.cutoff_sec = 100;
  pp.node_cap = (ebb_pol_res){ 2000, GIB };
  pp.footprint = (ebb_pol_res){ 10, 64 << 20 };
  pp.tick_sec = round_sec;
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("ebb", &pp, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 6);
  ebb_pol_clear_actions (p);
  double end = arrive[nshort] + 10, tick = round_sec;
  uint32_t next = 1;
  for (;;)
    {
      /* The next event: an arrival, then a finish, then the round at equal times. */
      double ta = next <= nshort ? arrive[next] : INFINITY, tf = INFINITY;
      uint32_t fj = 0;
      for (uint32_t j = 1; j <= nshort; j++)
        if (fin[j] < tf)
          tf = fin[j], fj = j;
      double now = fmin (ta, fmin (tf, tick));
      if (now > end)
        break;
      if (ta == now)
        ebb_pol_job_arrived (p, now, next++);
      else if (tf == now)
        {
          fin[fj] = INFINITY;
          ebb_pol_task_finished (p, now, node[fj], fj, 0);
        }
      else
        {
          ebb_pol_tick (p, now);
          tick += round_sec;
        }
      demo_drain (p, now, start, fin, node);
    }
  uint32_t waited = 0;
  for (uint32_t j = 1; j <= nshort; j++)
    waited += start[j] > arrive[j];
  *suspends = p->stats.suspends;
  ebb_pol_free (p);
  free_jobs (jobs, nshort + 1);
  return waited;
}

/* The demo's short jobs under ebb (scripts/demo.sh; doc/ebb-policy.md, "The demo"): every
 * short task starts on arrival whatever the round, for as many bursts as come (on main, with
 * rounds of 0.05 s, the M = 2 suspensions a long task had per 600 s were spent by the fourth
 * or fifth burst and short tasks waited). The takes are CPU only, so a long task resumes as
 * soon as the short task in its room ends: at most one suspension per short task. Seeds 1-8,
 * so that the placements differ. */
static void
test_policy_demo_bursts (void)
{
  for (uint64_t seed = 1; seed <= 8; seed++)
    {
      uint64_t susp;
      CU_ASSERT_EQUAL (demo_bursts (seed, 3, 5, &susp), 0);
      CU_ASSERT (susp <= 15);
      CU_ASSERT_EQUAL (demo_bursts (seed, 0.05, 10, &susp), 0);
      CU_ASSERT (susp <= 30);
    }
}

/* The stream, driven as the controller drives the policy: 2 nodes of 1000
 * millicores, 2 long tasks filling them, then 60 short jobs of 1000 millicores, 1 s each,
 * one every 3 s; reclaims and resumptions reported at once. Every short job starts on
 * arrival (on main, 4 did, then the M = 2 suspensions a long task had per 600 s were spent
 * and the rest queued for minutes), and each long task keeps at least half its CPU time
 * over the run, the least-progressed at least half the most-progressed. */
#define STREAM_SHORTS 60

typedef struct stream_run
{
  double start[STREAM_SHORTS + 2], fin[STREAM_SHORTS + 2], since[2], lost[2];
  uint32_t node[STREAM_SHORTS + 2];
} stream_run;

static void
stream_drain (ebb_pol *p, double now, stream_run *r)
{
  for (size_t n; ebb_pol_actions (p, &n), n > 0;)
    {
      ebb_pol_action v[64];
      CU_ASSERT_FATAL (n <= 64);
      memcpy (v, ebb_pol_actions (p, &n), n * sizeof *v);
      ebb_pol_clear_actions (p);
      for (size_t i = 0; i < n; i++)
        if (v[i].kind == EBB_POL_ACT_LAUNCH && v[i].job >= 2)
          {
            r->start[v[i].job] = now;
            r->fin[v[i].job] = now + 1;
            r->node[v[i].job] = v[i].node;
          }
        else if (v[i].kind == EBB_POL_ACT_SUSPEND)
          {
            r->since[v[i].job] = now;
            ebb_pol_task_reclaimed (p, now, v[i].node, v[i].job, v[i].arg, v[i].amount, 1);
          }
        else if (v[i].kind == EBB_POL_ACT_RESUME)
          {
            r->lost[v[i].job] += now - r->since[v[i].job];
            r->since[v[i].job] = -1;
            ebb_pol_task_resumed (p, now, v[i].node, v[i].job, v[i].arg);
          }
    }
}

static void
test_policy_steady_stream (void)
{
  ebb_pol_job jobs[STREAM_SHORTS + 2] = {
    { .ntasks = 1, .est_task_sec = 10000, .demand = { 1000, 512 << 20 } },
    { .ntasks = 1, .est_task_sec = 10000, .demand = { 1000, 512 << 20 } },
  };
  static stream_run r;
  memset (&r, 0, sizeof r);
  r.since[0] = r.since[1] = -1;
  for (uint32_t j = 2; j < STREAM_SHORTS + 2; j++)
    {
      jobs[j] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 1, .demand = { 1000, 64 << 20 } };
      r.start[j] = r.fin[j] = INFINITY;
    }
  ebb_pol *p = make_ebb (2, (ebb_pol_res){ 1000, 2 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 3, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 0, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 2);
  ebb_pol_clear_actions (p);
  double end = 3.0 * STREAM_SHORTS + 3;
  for (uint32_t next = 2;;)
    {
      double ta = next < STREAM_SHORTS + 2 ? 3.0 * (next - 1) : INFINITY, tf = INFINITY;
      uint32_t fj = 0;
      for (uint32_t j = 2; j < STREAM_SHORTS + 2; j++)
        if (r.fin[j] < tf)
          tf = r.fin[j], fj = j;
      double now = fmin (ta, tf);
      if (now > end)
        break;
      if (tf == now)
        {
          r.fin[fj] = INFINITY;
          ebb_pol_task_finished (p, now, r.node[fj], fj, 0);
        }
      else
        ebb_pol_job_arrived (p, now, next++);
      stream_drain (p, now, &r);
    }
  uint32_t late = 0;
  for (uint32_t j = 2; j < STREAM_SHORTS + 2; j++)
    late += !(r.start[j] <= 3.0 * (j - 1) + 1e-9);
  CU_ASSERT_EQUAL (late, 0);
  double share[2];
  for (int k = 0; k < 2; k++)
    {
      if (r.since[k] >= 0)
        r.lost[k] += end - r.since[k];
      share[k] = 1 - r.lost[k] / end;
      CU_ASSERT (share[k] >= 0.5);
    }
  CU_ASSERT (fmin (share[0], share[1]) / fmax (share[0], share[1]) >= 0.5);
  ebb_pol_free (p);
  free_jobs (jobs, STREAM_SHORTS + 2);
}

/* A long job no node could ever hold (8000 millicores on one node of 1000) is parked, not
 * queued on a node where it would block the long work behind it: a 1000-millicore long job
 * after it starts at once (on main it stayed queued behind it). The big one goes to a node
 * once one can hold it (tried at every round), and a cancelled parked job never does. */
static void
test_policy_long_fits_nowhere_parked (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 8000, GIB } },
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, GIB } },
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 8000, GIB } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, 4 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 3, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_job_arrived (p, 2, 2);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_cancel (p, 3, 2), 1);
  ebb_pol_node_capacity (p, 0, (ebb_pol_res){ 9000, 4 * GIB });
  ebb_pol_tick (p, 6);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 0);
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* A killed queued job leaves the policy's queues at once: the long job queued behind it
 * starts when the head that did not fit is cancelled, and the cancelled one never starts
 * (on main the policy had no way to be told: it launched it when room came, and the
 * controller had to throw the launch away). */
static void
test_policy_cancel_unblocks_queue (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 1500, GIB } },
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 1000, GIB } },
    { .ntasks = 1, .est_task_sec = 1000, .demand = { 500, GIB } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 2000, 4 * GIB }, (ebb_pol_res){ 10, 64 << 20 }, 3, jobs);
  for (uint32_t j = 0; j < 3; j++)
    ebb_pol_job_arrived (p, j, j);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1); /* FIFO: job 2 waits behind 1 */
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_cancel (p, 5, 1), 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 1);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 10, 0, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_placed (p, 1), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 1), 1); /* nothing of it is left */
  ebb_pol_free (p);
  free_jobs (jobs, 3);
}

/* Nothing is preempted on a draining node (the controller sets its capacity to 0) for work
 * that cannot go there: a short job sampled onto it takes from the other node's long task
 * (seeds 1-16, so both samplings occur; on main it suspended the drained node's task). */
static void
test_policy_no_preemption_on_drained_node (void)
{
  for (uint64_t seed = 1; seed <= 16; seed++)
    {
      ebb_pol_job jobs[3] = {
        { .ntasks = 2, .est_task_sec = 1000, .demand = { 1000, GIB } },
        { .ntasks = 1, .est_task_sec = 1, .demand = { 1000, 64 << 20 } },
      };
      ebb_pol_params pp;
      ebb_pol_params_default (&pp);
      pp.nnodes = 2;
      pp.seed = seed;
      pp.cutoff_sec = 100;
      pp.short_part_pct = 0;
      pp.node_cap = (ebb_pol_res){ 1000, 2 * GIB };
      ebb_error *err = NULL;
      ebb_pol *p = ebb_pol_new ("ebb", &pp, jobs, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL (p);
      ebb_pol_job_arrived (p, 0, 0);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 2);
      ebb_pol_clear_actions (p);
      ebb_pol_node_capacity (p, 1, (ebb_pol_res){ 0, 0 });
      ebb_pol_job_arrived (p, 1, 1);
      ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a.node, 0);
      ebb_pol_free (p);
      free_jobs (jobs, 2);
    }
}

/* The policy refuses single-slot mode (it needs capacities to preempt). */
static void
test_policy_needs_resources (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  ebb_error *err = NULL;
  ebb_pol_job jobs[1] = { { .ntasks = 1 } };
  CU_ASSERT_PTR_NULL (ebb_pol_new ("ebb", &p, jobs, &err));
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
}

/* An adopted long task (ebb_pol_job_adopted) holds its demand on its node without a LAUNCH
 * and is suspended for a short task like one the policy launched; a node out of range and
 * slot mode are refused with nothing changed. */
static void
test_policy_adopted_is_preemptible (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1,
      .est_task_sec = 3000,
      .class_hint = EBB_POL_CLASS_LONG,
      .demand = { 1000, 64 << 20 } },
    /* 990 of 1000 leaves the victim at its (unbooked) 10-millicore footprint: nothing
     * useful is left, so it is a suspension (IMMEDIATE: ebb_pol_take_suspends). */
    { .ntasks = 1, .est_task_sec = 10, .demand = { 990, 64 << 20 } },
  };
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, GIB }, (ebb_pol_res){ 10, 64 << 20 }, 0, jobs);
  const uint32_t bad[1] = { 1 }, on0[1] = { 0 };
  CU_ASSERT_EQUAL (ebb_pol_job_adopted (p, 0, 0, bad), -1); /* no such node: nothing changed */
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 1000);
  CU_ASSERT_PTR_NULL (jobs[0].tasks);
  CU_ASSERT_EQUAL_FATAL (ebb_pol_job_adopted (p, 0, 0, on0), 0);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0);
  CU_ASSERT_EQUAL (p->node_free[0].cpu_millis, 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].state, EBB_POL_TASK_RUNNING);
  CU_ASSERT_EQUAL (jobs[0].launched, 1);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_action a = polfix_first (p, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (a.node, 0);
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) < 0); /* waits for the reclaim */
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 1, 0, 0, 0, (ebb_pol_res){ 1000, 0 }, 1);
  CU_ASSERT (polfix_find (p, EBB_POL_ACT_LAUNCH) >= 0);
  ebb_pol_free (p);
  free_jobs (jobs, 3);
  ebb_pol_job sjobs[1] = { { .ntasks = 1, .est_task_sec = 3000 } };
  ebb_pol_params sp;
  ebb_pol_params_default (&sp);
  sp.nnodes = 1;
  ebb_pol *q = ebb_pol_new ("hawk", &sp, sjobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (q);
  CU_ASSERT_EQUAL (ebb_pol_job_adopted (q, 0, 0, on0), -1);
  CU_ASSERT_EQUAL (sjobs[0].is_long, 0); /* not even classified */
  ebb_pol_free (q);
}

/* One short task of <cpu, mem> on a node full of one <1000, 128 MiB> long task: returns
 * the SUSPEND's index in the actions (-1: none). */
static int
take_from_one_long (ebb_pol *p, ebb_pol_job *jobs, int64_t cpu, int64_t mem)
{
  jobs[0] = (ebb_pol_job){ .ntasks = 1,
                           .est_task_sec = 3000,
                           .class_hint = EBB_POL_CLASS_LONG,
                           .demand = { 1000, 128 << 20 } };
  jobs[1] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 10, .demand = { cpu, mem } };
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  return polfix_find (p, EBB_POL_ACT_SUSPEND);
}

/* The footprint stays what the user said (what the agent leaves a suspended task); what of
 * it the books count is book_footprint, memory by default. A take that leaves the victim
 * more CPU than the footprint is a graceful step of exactly the take; one that leaves no
 * more is a suspension; booked whole (all), the CPU footprint stays held in the books. */
static void
test_policy_book_footprint (void)
{
  ebb_pol_job jobs[2];
  size_t n;
  ebb_pol *p = make_ebb (1, (ebb_pol_res){ 1000, GIB }, (ebb_pol_res){ 10, 64 << 20 }, 0, jobs);
  CU_ASSERT_EQUAL (p->params.footprint.cpu_millis, 10); /* not overridden */
  CU_ASSERT_EQUAL (p->params.footprint.memory_bytes, 64 << 20);
  CU_ASSERT_EQUAL (p->params.book_footprint, EBB_POL_BOOK_MEMORY);
  ebb_pol_res fp = ebb_pol_booked_footprint (p);
  CU_ASSERT_EQUAL (fp.cpu_millis, 0);
  CU_ASSERT_EQUAL (fp.memory_bytes, 64 << 20);
  CU_ASSERT (ebb_pol_take_suspends (p, (ebb_pol_res){ 10, 64 << 20 }));
  CU_ASSERT (!ebb_pol_take_suspends (p, (ebb_pol_res){ 11, 0 }));
  CU_ASSERT (!ebb_pol_take_suspends (p, (ebb_pol_res){ 0, (64 << 20) + 1 }));
  /* 980 of 1000 leaves 20 millicores (and the memory): a graceful step of 980. */
  int i = take_from_one_long (p, jobs, 980, 0);
  CU_ASSERT_FATAL (i >= 0);
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL (a[i].mode, EBB_POL_SUSPEND_GRACEFUL);
  CU_ASSERT_EQUAL (a[i].amount.cpu_millis, 980);
  CU_ASSERT_EQUAL (a[i].amount.memory_bytes, 0);
  ebb_pol_free (p);
  free_jobs (jobs, 2);

  /* Booked whole: a take of all above the footprint is a suspension, and the task keeps
   * its 10 millicores in the books. */
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.cutoff_sec = 100;
  pp.short_part_pct = 0;
  pp.node_cap = (ebb_pol_res){ 1000, 128 << 20 }; /* the long task fills it */
  pp.resume_tries = 0;
  pp.book_footprint = EBB_POL_BOOK_ALL;
  p = ebb_pol_new ("ebb", &pp, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_EQUAL (p->params.book_footprint, EBB_POL_BOOK_ALL);
  i = take_from_one_long (p, jobs, 990, 64 << 20);
  CU_ASSERT_FATAL (i >= 0);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL (a[i].mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT_EQUAL (a[i].amount.cpu_millis, 990);
  CU_ASSERT_EQUAL (a[i].amount.memory_bytes, 64 << 20);
  ebb_pol_free (p);
  free_jobs (jobs, 2);

  /* Nodes without memory (a Hawk trace's slots): nothing booked by default, and booking
   * the memory footprint is refused. */
  pp.node_cap = (ebb_pol_res){ 1000, 0 };
  pp.book_footprint = EBB_POL_BOOK_DEFAULT;
  p = ebb_pol_new ("ebb", &pp, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_EQUAL (p->params.book_footprint, EBB_POL_BOOK_NONE);
  CU_ASSERT_EQUAL (p->params.footprint.memory_bytes, 64 << 20);
  ebb_pol_free (p);
  ebb_error *err = NULL;
  pp.book_footprint = EBB_POL_BOOK_MEMORY;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("ebb", &pp, jobs, &err));
  CU_ASSERT_PTR_NOT_NULL_FATAL (err);
  CU_ASSERT_PTR_NOT_NULL (strstr (err->msg, "memory footprint"));
  ebb_error_free (&err);
  pp.book_footprint = EBB_POL_BOOK_NONE + 1;
  pp.node_cap = (ebb_pol_res){ 1000, GIB };
  CU_ASSERT_PTR_NULL (ebb_pol_new ("ebb", &pp, jobs, &err));
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_fits_no_preemption),
  EBB_CU_TEST (test_slot_short_preempts_long),
  EBB_CU_TEST (test_short_never_preempts_short),
  EBB_CU_TEST (test_node_reserve),
  EBB_CU_TEST (test_node_lend),
  EBB_CU_TEST (test_memory_only_as_needed),
  EBB_CU_TEST (test_footprint_and_victim_order),
  EBB_CU_TEST (test_policy_book_footprint),
  EBB_CU_TEST (test_share_bound),
  EBB_CU_TEST (test_share_victims_spread),
  EBB_CU_TEST (test_cpu_only_resumes_at_once),
  EBB_CU_TEST (test_share_overdue),
  EBB_CU_TEST (test_delayed_resumption),
  EBB_CU_TEST (test_share_bound_alternating_bursts),
  EBB_CU_TEST (test_determinism),
  EBB_CU_TEST (test_policy_adopted_tasks_are_preempted),
  EBB_CU_TEST (test_params_check),
  EBB_CU_TEST (test_policy_slot_preempts_and_resumes),
  EBB_CU_TEST (test_policy_short_waits_for_short),
  EBB_CU_TEST (test_policy_says_share_protects),
  EBB_CU_TEST (test_policy_vector_takes_cpu_only),
  EBB_CU_TEST (test_policy_overdue_resume_beats_queued_short),
  EBB_CU_TEST (test_policy_empty_node_before_preemption),
  EBB_CU_TEST (test_policy_room_before_preemption),
  EBB_CU_TEST (test_policy_two_shorts_in_one_long),
  EBB_CU_TEST (test_policy_demo_bursts),
  EBB_CU_TEST (test_policy_steady_stream),
  EBB_CU_TEST (test_policy_long_fits_nowhere_parked),
  EBB_CU_TEST (test_policy_cancel_unblocks_queue),
  EBB_CU_TEST (test_policy_no_preemption_on_drained_node),
  EBB_CU_TEST (test_policy_needs_resources),
  EBB_CU_TEST (test_policy_adopted_is_preemptible),
};

EBB_CU_MAIN ("policy-ebb", NULL, NULL, tests)
