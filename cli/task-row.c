/* An agent's tasks as a table (ebbctl --agent URL tasks). */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

static const char *const header[]
    = { "ID", "JOB", "CLASS", "STATE", "PID", "CPU(m)", "MEMORY", "CPU USED" };

static void
task_row (ebbctl_table *t, json_object *k, size_t i EBB_UNUSED)
{
  char pid[32], cpu[32], mem[32], used[32];
  double m = ebbctl_num (ebbctl_member (k, "limits"), "memory_bytes", -1);
  double u = ebbctl_num (ebbctl_member (k, "usage"), "cpu_usec", -1);
  const char *row[] = { ebbctl_str (k, "id"),
                        ebbctl_str (k, "job"),
                        ebbctl_str (k, "class"),
                        ebbctl_str (k, "state"),
                        ebbctl_cell (k, "pid", pid, sizeof pid),
                        ebbctl_cell (ebbctl_member (k, "limits"), "cpu_millis", cpu, sizeof cpu),
                        m < 0 ? "-" : ebbctl_bytes (mem, sizeof mem, (uint64_t)m),
                        u < 0 ? "-" : ebbctl_duration (used, sizeof used, u / 1e6) };
  ebbctl_table_add (t, row);
}

void
ebbctl_tasks_table (ebbctl_ctx *ctx, json_object *list)
{
  ebbctl_table_print_list (ctx, header, EBB_ARRAY_SIZE (header), list, task_row);
}
