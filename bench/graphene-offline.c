/* graphene-offline TRACE NODES: Graphene's offline schedule of every DAG job of a trace on
 * its own (the space the policy would build with NODES machines to itself), one CSV line per
 * job: job,tasks,machines,offline_makespan,critical_path,candidates,troublesome,work_bound
 * (TWork, section 2.2: the largest resource's work over the NODES the DAG has). With
 * ebb-sim's --jobs-csv of the same trace run alone (bench/sim-graphene.sh, "alone"), it says
 * how much better the preferred schedule is than what each policy realizes. */
#include "config.h"

#include "policies/graphene.h"
#include "sim/dag.h"
#include "sim/trace.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: graphene-offline TRACE NODES\n");
      return 2;
    }
  cleanup_error ebb_error *err = NULL;
  ebb_sim_trace *t = ebb_sim_trace_new ();
  if (ebb_sim_trace_read (t, argv[1], &err) < 0)
    {
      fprintf (stderr, "graphene-offline: %s\n", ebb_error_msg (&err));
      ebb_sim_trace_free (t);
      return 1;
    }
  uint32_t nodes = (uint32_t)strtoul (argv[2], NULL, 10);
  /* The node of ebb-sim gen dag's defaults. */
  const double cap[EBB_DAG_NRES] = { 16000, 64.0 * 1024 * 1024 * 1024, 10000 };
  printf ("job,tasks,machines,offline_makespan,critical_path,candidates,troublesome,work_bound\n");
  for (uint32_t j = 0; j < t->njobs && nodes > 0; j++)
    {
      if (!ebb_sim_dag_is_dag (t, j))
        continue;
      uint32_t n = t->ntasks[j], bad;
      uint64_t first = t->first_task[j];
      ebb_dag_graph g;
      if (ebb_dag_graph_build (&g, n, t->dag->edges + 2 * t->dag->edge_first[j], t->dag->nedges[j],
                               &bad)
          < 0)
        abort (); /* the reader refused cycles */
      double *dem = ebb_xmalloc ((size_t)n * EBB_DAG_NRES * sizeof *dem);
      for (size_t i = 0; i < (size_t)n * EBB_DAG_NRES; i++)
        dem[i] = (double)t->dag->demand[first * EBB_DAG_NRES + i] / cap[i % EBB_DAG_NRES];
      ebb_gr_dag d = {
        .n = n, .g = &g, .dur = t->dur_sec + first, .dem = dem, .stage = t->dag->stage + first
      };
      d.machines = ebb_gr_space_machines (&d, nodes);
      double *start = ebb_xmalloc (n * sizeof *start), *cp = ebb_xmalloc (n * sizeof *cp);
      uint32_t *rank = ebb_xmalloc (n * sizeof *rank);
      ebb_gr_plan plan = { .start = start, .rank = rank };
      if (ebb_gr_build_schedule (&d, &plan) < 0)
        abort ();
      ebb_dag_cp_length (&g, d.dur, cp);
      double cpl = 0, work[EBB_DAG_NRES] = { 0 }, twork = 0;
      for (uint32_t i = 0; i < n; i++)
        {
          cpl = cp[i] > cpl ? cp[i] : cpl;
          for (int r = 0; r < EBB_DAG_NRES; r++)
            work[r] += d.dur[i] * dem[(size_t)i * EBB_DAG_NRES + r];
        }
      for (int r = 0; r < EBB_DAG_NRES; r++)
        twork = work[r] / nodes > twork ? work[r] / nodes : twork;
      printf ("%u,%u,%u,%.3f,%.3f,%u,%u,%.3f\n", j, n, d.machines, plan.makespan, cpl,
              plan.candidates, plan.ntrouble, twork);
      free (dem);
      free (start);
      free (cp);
      free (rank);
      ebb_dag_graph_free (&g);
    }
  ebb_sim_trace_free (t);
  return 0;
}
