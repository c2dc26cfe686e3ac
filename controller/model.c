/* The model's names of states and classes, and the clock of the API's times. */
#include "config.h"

#include <inttypes.h>

#include "controller/ctl.h"
#include "lib/time.h"
#include "lib/util.h"

static const char *const task_names[]
    = { "pending", "starting", "running", "suspended", "exited", "failed", "killed" };
static const char *const job_names[] = { "queued", "running", "done", "failed", "killed" };
static const char *const node_names[] = { "ready", "lost", "draining" };
static const char *const class_names[] = { "short", "long", "auto" };

/* The name of value i in a table of n names; "?" outside it (a corrupt or newer value). */
static const char *
name_of (const char *const *names, size_t n, unsigned i)
{
  return i < n ? names[i] : "?";
}

const char *
ebb_ctl_task_state_name (ebb_ctl_task_state s)
{
  return name_of (task_names, EBB_ARRAY_SIZE (task_names), (unsigned)s);
}
const char *
ebb_ctl_job_state_name (ebb_ctl_job_state s)
{
  return name_of (job_names, EBB_ARRAY_SIZE (job_names), (unsigned)s);
}
const char *
ebb_ctl_node_state_name (ebb_ctl_node_state s)
{
  return name_of (node_names, EBB_ARRAY_SIZE (node_names), (unsigned)s);
}
const char *
ebb_ctl_class_name (ebb_ctl_class c)
{
  return name_of (class_names, EBB_ARRAY_SIZE (class_names), (unsigned)c);
}

/* Returns the wall clock in unix seconds (the API's times). */
double
ebb_ctl_now (void)
{
  return (double)ebb_realtime_usec () / 1e6;
}

/* See ctl.h. */
char *
ebb_ctl_task_agent_id (uint64_t job, uint32_t idx, uint64_t gen)
{
  return ebb_xasprintf ("j%" PRIu64 "-t%u-g%" PRIu64, job, idx, gen);
}

/* See ctl.h. */
uint32_t
ebb_ctl_node_slots (uint64_t cap_cpu_millis)
{
  return (uint32_t)(cap_cpu_millis / 1000 ? cap_cpu_millis / 1000 : 1);
}
