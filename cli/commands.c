/* The command table: name, synopsis, options and the function that runs it. */
#include "config.h"

#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

static const ebbctl_opt submit_opts[] = {
  { "name", true, EBBCTL_O_NAME, "N", "job name (default: the program's name)" },
  { "class", true, EBBCTL_O_CLASS, "short|long|auto", "job class (default auto)" },
  { "tasks", true, EBBCTL_O_TASKS, "K", "number of tasks, each running ARGV (default 1)" },
  { "cpu", true, EBBCTL_O_CPU, "MILLIS", "CPU per task in millicores (default 1000)" },
  { "memory", true, EBBCTL_O_MEMORY, "SIZE", "memory per task, e.g. 512M (default 256M)" },
  { "est", true, EBBCTL_O_EST, "SEC", "estimated task duration in seconds" },
  { "wait", false, EBBCTL_O_WAIT, NULL, "wait until the job ends; exit 1 unless it is done" },
};

static const ebbctl_opt decisions_opts[] = {
  { "follow", false, EBBCTL_O_FOLLOW, NULL, "keep printing new decisions until interrupted" },
};

static const ebbctl_opt watch_opts[] = {
  { "interval", true, EBBCTL_O_INTERVAL, "SEC", "refresh period (default 1)" },
  { "count", true, EBBCTL_O_COUNT, "N",
    "stop after N refreshes (default: until interrupted, or "
    "until JOB ends)" },
};

static const ebbctl_opt suspend_opts[] = {
  { "mode", true, EBBCTL_O_MODE, "immediate|graceful", "how to suspend (default immediate)" },
  { "cpu", true, EBBCTL_O_CPU, "MILLIS", "graceful: CPU to take away, in millicores" },
  { "memory", true, EBBCTL_O_MEMORY, "SIZE", "graceful: memory to take away, e.g. 256M" },
};

#define OPTS(a) a, EBB_ARRAY_SIZE (a)

static const ebbctl_cmd commands[] = {
  { "status", NULL, "show the cluster: policy, nodes, capacity, queues, preemptions", NULL, 0,
    false, ebbctl_status },
  { "nodes", NULL, "list nodes", NULL, 0, false, ebbctl_nodes },
  { "node", "NAME", "show one node", NULL, 0, false, ebbctl_node },
  { "drain", "NAME", "stop placing tasks on a node", NULL, 0, false, ebbctl_drain },
  { "undrain", "NAME", "place tasks on a drained node again", NULL, 0, false, ebbctl_drain },
  { "jobs", NULL, "list jobs", NULL, 0, false, ebbctl_jobs },
  { "job", "ID", "show one job and its tasks", NULL, 0, false, ebbctl_job },
  { "submit", "-- ARGV...", "submit a job of identical tasks running ARGV", OPTS (submit_opts),
    false, ebbctl_submit },
  { "kill", "JOB", "kill a job", NULL, 0, false, ebbctl_kill },
  { "decisions", NULL, "show the preemption log", OPTS (decisions_opts), false, ebbctl_decisions },
  { "watch", "[JOB]", "live view of the cluster or of one job, with a progress bar",
    OPTS (watch_opts), false, ebbctl_watch },
  { "tasks", NULL, "list an agent's tasks", NULL, 0, true, ebbctl_tasks },
  { "task", "ID", "show one of an agent's tasks", NULL, 0, true, ebbctl_task },
  { "suspend", "ID", "suspend a task on an agent", OPTS (suspend_opts), true, ebbctl_suspend },
  { "resume", "ID", "resume a suspended task on an agent", NULL, 0, true, ebbctl_resume },
};

const ebbctl_cmd *
ebbctl_commands (size_t *n)
{
  *n = EBB_ARRAY_SIZE (commands);
  return commands;
}

const ebbctl_cmd *
ebbctl_command_find (const char *name)
{
  for (size_t i = 0; i < EBB_ARRAY_SIZE (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}
