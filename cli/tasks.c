/* ebbctl --agent URL tasks: GET /v1/tasks of an agent. */
#include "config.h"

#include "cli/ebbctl.h"

static json_object *
member (json_object *o, const char *key)
{
  json_object *v = NULL;
  return json_object_is_type (o, json_type_object) && json_object_object_get_ex (o, key, &v) ? v
                                                                                             : NULL;
}

static const char *const header[]
    = { "ID", "JOB", "CLASS", "STATE", "PID", "CPU(m)", "MEMORY", "CPU USED" };

static void
print_table (ebbctl_ctx *ctx, json_object *list)
{
  ebbctl_table t;
  ebbctl_table_init (&t, 8, header);
  for (size_t i = 0; i < json_object_array_length (list); i++)
    {
      json_object *k = json_object_array_get_idx (list, i);
      char pid[32], cpu[32], mem[32], used[32];
      double m = ebbctl_num (member (k, "limits"), "memory_bytes", -1);
      double u = ebbctl_num (member (k, "usage"), "cpu_usec", -1);
      const char *row[] = { ebbctl_str (k, "id"),
                            ebbctl_str (k, "job"),
                            ebbctl_str (k, "class"),
                            ebbctl_str (k, "state"),
                            ebbctl_cell (k, "pid", pid, sizeof pid),
                            ebbctl_cell (member (k, "limits"), "cpu_millis", cpu, sizeof cpu),
                            m < 0 ? "-" : ebbctl_bytes (mem, sizeof mem, (uint64_t)m),
                            u < 0 ? "-" : ebbctl_duration (used, sizeof used, u / 1e6) };
      ebbctl_table_add (&t, row);
    }
  ebbctl_table_print (&t, ctx->out);
  ebbctl_table_clear (&t);
}

int
ebbctl_tasks (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 0, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, true, "GET", "/v1/tasks", NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      json_object *list = ebbctl_list (o, "tasks");
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else if (list)
        print_table (ctx, list);
      else
        {
          fprintf (stderr, "ebbctl tasks: the answer holds no list of tasks\n");
          rc = EBBCTL_EXIT_FAILURE;
        }
    }
  json_object_put (o);
  return rc;
}
