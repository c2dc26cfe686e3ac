/* An agent's tasks as a table (ebbctl --agent URL tasks). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

static const char *const header[]
    = { "ID", "JOB", "CLASS", "STATE", "PID", "CPU(m)", "MEMORY", "CPU USED" };

int
ebbctl_applied_cpu_millis (json_object *task, uint64_t *out)
{
  /* cgroup v2's cpu.max text, as the agent applied it: "QUOTA PERIOD" or "max PERIOD". */
  const char *s = ebbctl_str (ebbctl_member (task, "applied"), "cpu_max");
  char *end = NULL;
  if (!s || strncmp (s, "max", 3) == 0)
    return -1;
  unsigned long long q = strtoull (s, &end, 10);
  if (end == s || *end != ' ')
    return -1;
  const char *ps = end + 1;
  unsigned long long p = strtoull (ps, &end, 10);
  if (end == ps || *end || p == 0 || q > UINT64_MAX / 1000)
    return -1;
  *out = q * 1000 / p;
  return 0;
}

/* What is applied, and the task's own limit after it in parentheses when they differ (a
 * suspended task: "10 (1000)"); the limit alone when nothing applied is known. */
static const char *
applied_cell (char *buf, size_t size, bool have_applied, uint64_t applied, double limit, bool bytes)
{
  char a[32], l[32];
  if (limit < 0 && !have_applied)
    return "-";
  if (bytes)
    {
      ebbctl_bytes (a, sizeof a, applied);
      ebbctl_bytes (l, sizeof l, limit < 0 ? 0 : (uint64_t)limit);
    }
  else
    snprintf (a, sizeof a, "%llu", (unsigned long long)applied),
        snprintf (l, sizeof l, "%.0f", limit);
  if (!have_applied)
    snprintf (buf, size, "%s", l);
  else if (limit < 0 || (uint64_t)limit == applied)
    snprintf (buf, size, "%s", a);
  else
    snprintf (buf, size, "%s (%s)", a, l);
  return buf;
}

static void
task_row (ebbctl_table *t, json_object *k, size_t i EBB_UNUSED)
{
  char pid[32], cpu[80], mem[80], used[32];
  json_object *lim = ebbctl_member (k, "limits");
  double u = ebbctl_num (ebbctl_member (k, "usage"), "cpu_usec", -1);
  uint64_t acpu = 0;
  bool have_cpu = ebbctl_applied_cpu_millis (k, &acpu) == 0;
  double amem = ebbctl_num (ebbctl_member (k, "applied"), "memory_max", -1);
  const char *row[]
      = { ebbctl_str (k, "id"),
          ebbctl_str (k, "job"),
          ebbctl_str (k, "class"),
          ebbctl_str (k, "state"),
          ebbctl_cell (k, "pid", pid, sizeof pid),
          applied_cell (cpu, sizeof cpu, have_cpu, acpu, ebbctl_num (lim, "cpu_millis", -1), false),
          applied_cell (mem, sizeof mem, amem >= 0, amem >= 0 ? (uint64_t)amem : 0,
                        ebbctl_num (lim, "memory_bytes", -1), true),
          u < 0 ? "-" : ebbctl_duration (used, sizeof used, u / 1e6) };
  ebbctl_table_add (t, row);
}

void
ebbctl_tasks_table (ebbctl_ctx *ctx, json_object *list)
{
  ebbctl_table_print_list (ctx, header, EBB_ARRAY_SIZE (header), list, task_row);
}
