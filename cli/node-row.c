/* One node as a table row, shared by nodes and watch. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

/* "used/capacity" of a resource, by key inside allocated and capacity. */
static const char *
pair (char *buf, size_t size, json_object *node, const char *key, bool bytes)
{
  double used = ebbctl_num (ebbctl_member (node, "allocated"), key, -1);
  double cap = ebbctl_num (ebbctl_member (node, "capacity"), key, -1);
  char a[32], b[32];
  if (cap < 0)
    return "-";
  if (bytes)
    snprintf (buf, size, "%s/%s", used < 0 ? "-" : ebbctl_bytes (a, sizeof a, (uint64_t)used),
              ebbctl_bytes (b, sizeof b, (uint64_t)cap));
  else
    snprintf (buf, size, "%.0f/%.0f", used < 0 ? 0 : used, cap);
  return buf;
}

static const char *const node_header[]
    = { "NAME", "STATE", "CPU(m)", "MEMORY", "TASKS", "HEARTBEAT" };

static void
node_row (ebbctl_table *t, json_object *n, size_t i EBB_UNUSED)
{
  char cpu[64], mem[64], tasks[32], hb[48], tmp[32];
  json_object *tv = ebbctl_member (n, "tasks");
  if (json_object_is_type (tv, json_type_array))
    snprintf (tasks, sizeof tasks, "%zu", json_object_array_length (tv));
  else
    snprintf (tasks, sizeof tasks, "%s", ebbctl_cell (n, "tasks", tmp, sizeof tmp));
  double last = ebbctl_num (n, "last_heartbeat", -1);
  if (last < 0)
    last = ebbctl_num (n, "last_heartbeat_at", -1);
  if (last > 0)
    {
      ebbctl_duration (tmp, sizeof tmp, ebbctl_now () - last);
      snprintf (hb, sizeof hb, "%s ago", tmp);
    }
  else
    snprintf (hb, sizeof hb, "-");
  const char *row[] = { ebbctl_str (n, "name"),
                        ebbctl_str (n, "state"),
                        pair (cpu, sizeof cpu, n, "cpu_millis", false),
                        pair (mem, sizeof mem, n, "memory_bytes", true),
                        tasks,
                        hb };
  ebbctl_table_add (t, row);
}

/* -o wide: the address the controller calls the node's agent on. */
static const char *const node_wide_header[]
    = { "NAME", "STATE", "CPU(m)", "MEMORY", "TASKS", "HEARTBEAT", "ADDRESS" };

static void
node_wide_row (ebbctl_table *t, json_object *n, size_t i)
{
  const char *extra[] = { ebbctl_str (n, "url") };
  ebbctl_table_add_more (t, EBB_ARRAY_SIZE (node_header), node_row, n, i, extra, 1);
}

void
ebbctl_nodes_table (ebbctl_ctx *ctx, json_object *list)
{
  if (ctx->output == EBBCTL_OUT_WIDE)
    ebbctl_table_print_list (ctx, node_wide_header, EBB_ARRAY_SIZE (node_wide_header), list,
                             node_wide_row);
  else
    ebbctl_table_print_list (ctx, node_header, EBB_ARRAY_SIZE (node_header), list, node_row);
}
