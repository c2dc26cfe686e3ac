/* A task's spec in the model: the JSON the agent gets (argv, env, cwd, limits, or the
 * "adopt" object) and, parsed from it once when it is set (at the submission or the load),
 * what the scheduler reads of it: the adoption's node and target (ebb_ctl_adopt). */
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
