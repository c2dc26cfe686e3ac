/* make bench-policy-heap: the heap a libebb-policy instance keeps per job after the job
 * finished, for the policies the controller runs. Each policy gets 20,000 jobs of 10 tasks
 * on 100 nodes, one at a time, every task finishing as soon as it is launched (probes and
 * wakes delivered at once); the heap in use (malloc's arenas and mmapped blocks) is read
 * after 2,000 jobs and at the end. Every finished job is forgotten (ebb_pol_job_forget) and
 * its id given to the next job, as the controller does (sched-pjobs.c); a job the policy
 * cannot forget yet (its probes alive) is asked again after the next job, as the
 * controller does at its ticks. The environment's job array (ebb_pol_job, 72 bytes a job,
 * which the controller holds as well) is allocated for every job before and not counted:
 * the ids column says how much of it was used, the job ids in use at once. A policy that
 * forgets what it kept of a finished job shows 0 bytes per job and a handful of ids. */
#include "config.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "policies/policy.h"

enum
{
  NODES = 100,
  TASKS = 10,
  JOBS = 20000,
  WARM = 2000,
};

typedef struct
{
  uint32_t kind, node, job, arg;
} event;

static double
heap_bytes (void)
{
  struct mallinfo2 m = mallinfo2 ();
  return (double)m.uordblks + (double)m.hblkhd;
}

/* Runs the actions and the events they cause until none is left. */
static void
drain (ebb_pol *p, event *q, double now)
{
  size_t nq = 0;
  for (;;)
    {
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      for (size_t i = 0; i < n && nq < (size_t)JOBS * TASKS; i++)
        if (a[i].kind == EBB_POL_ACT_LAUNCH || a[i].kind == EBB_POL_ACT_PROBE
            || a[i].kind == EBB_POL_ACT_WAKE)
          q[nq++] = (event){ a[i].kind, a[i].node, a[i].job, a[i].arg };
      ebb_pol_clear_actions (p);
      if (nq == 0)
        return;
      event e = q[--nq];
      if (e.kind == EBB_POL_ACT_LAUNCH)
        ebb_pol_task_finished (p, now, e.node, e.job, e.arg);
      else if (e.kind == EBB_POL_ACT_PROBE)
        ebb_pol_probe_arrived (p, now, e.node, e.arg);
      else
        ebb_pol_node_wake (p, now, e.node);
    }
}

/* Prints the heap kept per finished job by policy name (resources: resource mode). */
static int
measure (const char *name, bool resources)
{
  ebb_pol_params params;
  ebb_pol_params_default (&params);
  params.nnodes = NODES;
  params.cutoff_sec = 10; /* eagle needs one; every job is short by its hint anyway */
  if (resources)
    params.node_cap = (ebb_pol_res){ 4000, 8LL << 30 };
  cleanup_free ebb_pol_job *jobs = ebb_xcalloc (JOBS, sizeof *jobs);
  cleanup_free event *q = ebb_xmalloc ((size_t)JOBS * TASKS * sizeof *q);
  /* Ids forgotten (free for the next job) and ids finished but not forgotten yet. */
  cleanup_free uint32_t *free_ids = ebb_xmalloc (JOBS * sizeof *free_ids);
  cleanup_free uint32_t *later = ebb_xmalloc (JOBS * sizeof *later);
  uint32_t n_free = 0, n_later = 0, ids = 0;
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new (name, &params, jobs, &err);
  if (!p)
    {
      fprintf (stderr, "%s: %s\n", name, ebb_error_msg (&err));
      ebb_error_free (&err);
      return 1;
    }
  double now = 0, warm = 0;
  uint32_t done = 0;
  for (uint32_t k = 0; k < JOBS; k++)
    {
      if (k == WARM)
        warm = heap_bytes ();
      uint32_t j = n_free ? free_ids[--n_free] : ids++;
      jobs[j] = (ebb_pol_job){ .ntasks = TASKS,
                               .est_task_sec = 1,
                               .demand = { 1000, 1 << 28 },
                               .class_hint = EBB_POL_CLASS_SHORT };
      now += 0.01;
      ebb_pol_job_arrived (p, now, j);
      drain (p, q, now);
      ebb_pol_tick (p, now);
      drain (p, q, now);
      done += jobs[j].finished == TASKS;
      later[n_later++] = j;
      /* As the controller: forget at the last task, or at a later tick when refused. */
      for (uint32_t i = 0; i < n_later;)
        if (ebb_pol_job_forget (p, later[i]))
          free_ids[n_free++] = later[i], later[i] = later[--n_later];
        else
          i++;
    }
  double per_job = (heap_bytes () - warm) / (JOBS - WARM);
  printf ("%-8s %-9s %14.1f %8u %12u\n", name, resources ? "resources" : "slots", per_job, ids,
          done);
  ebb_pol_free (p);
  return 0;
}

int
main (void)
{
  printf ("libebb-policy heap kept per finished job (%d jobs of %d tasks, %d nodes)\n", JOBS, TASKS,
          NODES);
  printf ("%-8s %-9s %14s %8s %12s\n", "policy", "mode", "bytes_per_job", "ids", "jobs_done");
  int rc = 0;
  static const char *const slots[] = { "fifo", "sparrow", "hawk", "eagle", "peacock" };
  static const char *const res[] = { "bigc", "ebb" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (slots); i++)
    rc |= measure (slots[i], false);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (res); i++)
    rc |= measure (res[i], true);
  return rc;
}
