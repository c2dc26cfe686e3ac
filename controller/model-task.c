/* A task's spec in the model: the JSON the agent gets (argv, env, cwd, limits, or the
 * "adopt" object) and, parsed from it once when it is set (at the submission or the load),
 * what the scheduler reads of it: the adoption's node and target (ebb_ctl_adopt), and for
 * the DAG policies the network demand, the stage and the parents (ebb_ctl_dag_load). */
#include "config.h"

#include <stdlib.h>

#include "controller/ctl.h"
#include "lib/util.h"

static char *
member (json_object *o, const char *key)
{
  json_object *v;
  return json_object_object_get_ex (o, key, &v) && json_object_is_type (v, json_type_string)
             ? ebb_xstrdup (json_object_get_string (v))
             : NULL;
}

/* See ctl.h. */
void
ebb_ctl_task_drop_spec (ebb_ctl_task *t)
{
  json_object_put (t->spec);
  t->spec = NULL;
  if (!t->adopt)
    return;
  free (t->adopt->node);
  free (t->adopt->container);
  free (t->adopt->runtime);
  free (t->adopt->cgroup);
  free (t->adopt);
  t->adopt = NULL;
}

/* See ctl.h. */
void
ebb_ctl_task_set_spec (ebb_ctl_task *t, json_object *spec)
{
  ebb_ctl_task_drop_spec (t);
  t->spec = spec;
  json_object *a;
  if (!spec || !json_object_object_get_ex (spec, "adopt", &a))
    return;
  t->adopt = ebb_xcalloc (1, sizeof *t->adopt);
  t->adopt->node = member (a, "node");
  t->adopt->container = member (a, "container");
  t->adopt->runtime = member (a, "runtime");
  t->adopt->cgroup = member (a, "cgroup");
}

/* See ctl.h. */
int
ebb_ctl_dag_load (ebb_ctl_job *j, ebb_ctl_task *t, json_object *spec)
{
  json_object *d, *v;
  t->stage = t->idx;
  if (!json_object_object_get_ex (spec, "dag", &d))
    return 0;
  if (json_object_object_get_ex (d, "net_mbps", &v))
    t->net_mbps = (uint64_t)json_object_get_int64 (v);
  if (json_object_object_get_ex (d, "stage", &v))
    t->stage = (uint32_t)json_object_get_int64 (v);
  if (!json_object_object_get_ex (d, "parents", &v) || !json_object_is_type (v, json_type_array))
    return 0;
  size_t np = json_object_array_length (v);
  if (j->nedges + np > EBB_CTL_MAX_EDGES_PER_JOB)
    return -1;
  j->edges = ebb_xrealloc (j->edges, (j->nedges + np) * 2 * sizeof *j->edges);
  for (size_t k = 0; k < np; k++)
    {
      int64_t p = json_object_get_int64 (json_object_array_get_idx (v, k));
      if (p < 0 || p >= j->ntasks)
        return -1;
      j->edges[2 * j->nedges] = (uint32_t)p;
      j->edges[2 * j->nedges + 1] = t->idx;
      j->nedges++;
    }
  return 0;
}

/* See ctl.h. */
void
ebb_ctl_job_free (ebb_ctl_job *j)
{
  if (!j)
    return;
  for (uint32_t i = 0; j->tasks && i < j->ntasks; i++) /* a listed job has none */
    {
      ebb_ctl_task_drop_spec (&j->tasks[i]);
      ebb_ctl_reason_clear (&j->tasks[i].reason);
    }
  ebb_ctl_reason_clear (&j->reason);
  free (j->tasks);
  free (j->edges);
  free (j->name);
  free (j->request_id);
  free (j->answer);
  free (j->body_digest);
  free (j);
}
