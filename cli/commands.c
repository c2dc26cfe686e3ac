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
  { "priority", true, EBBCTL_O_PRIORITY, "N",
    "the job's tier, an integer: higher wins, may suspend lower (default 0; policy ebb)" },
  { "time-limit", true, EBBCTL_O_TIME_LIMIT, "DURATION",
    "end each task once it has run that long, suspended time not counted (e.g. 90s, 2h)" },
  { "notify-signal", true, EBBCTL_O_NOTIFY_SIGNAL, "SIG",
    "signal sent to the tasks when suspended and when resumed (e.g. SIGUSR1; default none)" },
  { "wait", false, EBBCTL_O_WAIT, NULL, "wait until the job ends; exit 1 unless it is done" },
  { "json", true, EBBCTL_O_JSON_FILE, "FILE",
    "the whole POST /v1/jobs body from FILE (- for stdin), instead of ARGV and the job options" },
};

static const ebbctl_opt adopt_opts[] = {
  { "name", true, EBBCTL_O_NAME, "N", "job name (default: the container, or the cgroup's name)" },
  { "class", true, EBBCTL_O_CLASS, "short|long", "job class (default long)" },
  { "container", true, EBBCTL_O_CONTAINER, "NAME", "the container to adopt (name or id)" },
  { "runtime", true, EBBCTL_O_RUNTIME, "docker|podman",
    "the container's engine (default: each the agent has)" },
  { "cgroup", true, EBBCTL_O_CGROUP, "PATH",
    "the cgroup to adopt (under one of the agent's adopt roots)" },
  { "cpu", true, EBBCTL_O_CPU, "MILLIS", "CPU it holds (default: its ebb.cpu label or CPU limit)" },
  { "memory", true, EBBCTL_O_MEMORY, "SIZE",
    "memory it holds (default: its ebb.memory label or memory limit)" },
};

static const ebbctl_opt jobs_opts[] = {
  { "all", false, EBBCTL_O_ALL, NULL, "every job the controller keeps, the finished ones too" },
  { "active", false, EBBCTL_O_ACTIVE, NULL,
    "only the jobs not finished (queued or running): the default" },
  { "state", true, EBBCTL_O_STATE, "STATE",
    "only jobs in STATE: queued, running, done, failed, killed or active" },
  { "class", true, EBBCTL_O_CLASS, "short|long|auto", "only jobs of this class" },
  { "name", true, EBBCTL_O_NAME, "PATTERN", "only jobs whose name matches PATTERN (glob: *, ?)" },
};

static const ebbctl_opt history_opts[] = {
  { "since", true, EBBCTL_O_SINCE, "DURATION", "only jobs that ended within DURATION (1h, 30m)" },
  { "state", true, EBBCTL_O_STATE, "STATE",
    "only jobs that ended in STATE: done, failed or killed" },
};

static const ebbctl_opt decisions_opts[] = {
  { "follow", false, EBBCTL_O_FOLLOW, NULL, "keep printing new decisions until interrupted" },
};

static const ebbctl_opt logs_opts[] = {
  { "follow", false, EBBCTL_O_FOLLOW, NULL, "keep printing new output until the task ends" },
  { "tail", true, EBBCTL_O_TAIL, "N", "only the last N lines (0 to 1000000)" },
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

/* The commands that are one request and its answer (cli/request.c). */
static const ebbctl_request status_req
    = { .method = "GET", .path = "/v1/cluster", .print = ebbctl_print_answer_status };
static const ebbctl_request nodes_req = { .method = "GET",
                                          .path = "/v1/nodes",
                                          .print = ebbctl_print_answer_list,
                                          .list = "nodes",
                                          .table = ebbctl_nodes_table };
static const ebbctl_request node_req = {
  .method = "GET", .path = "/v1/nodes", .arg_what = "node name", .print = ebbctl_print_answer_node
};
static const ebbctl_request drain_req = { .method = "POST",
                                          .path = "/v1/nodes",
                                          .tail = "drain",
                                          .arg_what = "node name",
                                          .print = ebbctl_print_answer_state,
                                          .fallback = "drain" };
static const ebbctl_request undrain_req = { .method = "POST",
                                            .path = "/v1/nodes",
                                            .tail = "undrain",
                                            .arg_what = "node name",
                                            .print = ebbctl_print_answer_state,
                                            .fallback = "undrain" };
static const ebbctl_request jobs_req = { .method = "GET",
                                         .path = "/v1/jobs",
                                         .print = ebbctl_print_answer_list,
                                         .list = "jobs",
                                         .table = ebbctl_jobs_table,
                                         .paged = true };
static const ebbctl_request history_req = { .method = "GET",
                                            .path = "/v1/jobs",
                                            .print = ebbctl_print_answer_list,
                                            .list = "jobs",
                                            .table = ebbctl_history_table,
                                            .paged = true };
static const ebbctl_request job_req = {
  .method = "GET", .path = "/v1/jobs", .arg_what = "job id", .print = ebbctl_print_answer_job
};
static const ebbctl_request kill_req = { .method = "DELETE",
                                         .path = "/v1/jobs",
                                         .arg_what = "job id",
                                         .print = ebbctl_print_answer_state,
                                         .fallback = "killed" };
static const ebbctl_request tasks_req = { .method = "GET",
                                          .path = "/v1/tasks",
                                          .print = ebbctl_print_answer_list,
                                          .list = "tasks",
                                          .table = ebbctl_tasks_table };
static const ebbctl_request task_req
    = { .method = "GET", .path = "/v1/tasks", .arg_what = "task id" };

#define OPTS(a)    a, EBB_ARRAY_SIZE (a)
#define REQUEST(r) ebbctl_request_run, &r

static const ebbctl_cmd commands[] = {
  { "status", NULL, "show the cluster: policy, nodes, capacity, queues, preemptions", NULL, 0,
    false, REQUEST (status_req), "ebbctl status\nebbctl status -o json | jq .capacity" },
  { "nodes", NULL, "list nodes", NULL, 0, false, REQUEST (nodes_req),
    "ebbctl nodes\nebbctl nodes -o name" },
  { "node", "NAME", "show one node", NULL, 0, false, REQUEST (node_req),
    "ebbctl node node-a\nebbctl node node-a --json" },
  { "drain", "NAME", "stop placing tasks on a node", NULL, 0, false, REQUEST (drain_req),
    "ebbctl drain node-a" },
  { "undrain", "NAME", "place tasks on a drained node again", NULL, 0, false, REQUEST (undrain_req),
    "ebbctl undrain node-a" },
  { "jobs", NULL, "list the unfinished jobs (--all: every one)", OPTS (jobs_opts), false,
    ebbctl_jobs, &jobs_req,
    "ebbctl jobs\nebbctl jobs --all --class long -o wide\nebbctl jobs --state failed --name "
    "'nightly-*'\n"
    "ebbctl jobs -o name | xargs -n1 ebbctl kill" },
  { "history", NULL, "the finished jobs: waited, ran, suspended, who submitted them (sacct)",
    OPTS (history_opts), false, ebbctl_history, &history_req,
    "ebbctl history\nebbctl history --since 1h --state failed" },
  { "job", "ID", "show one job and its tasks", NULL, 0, false, REQUEST (job_req),
    "ebbctl job 42\nebbctl job 42 -o json | jq '.tasks[].state'" },
  { "submit", "-- ARGV... | --json FILE",
    "submit a job of identical tasks running ARGV, or a job from FILE", OPTS (submit_opts), false,
    ebbctl_submit, NULL,
    "ebbctl submit --tasks 8 --cpu 500 --memory 512M -- ./shard.sh\n"
    "ebbctl submit --class long --name etl --wait -- python3 etl.py\n"
    "ebbctl submit --json dag.json" },
  { "adopt", "NODE", "make a running container or cgroup on NODE a task of a new job",
    OPTS (adopt_opts), false, ebbctl_adopt, NULL,
    "ebbctl adopt node-a --container web --class long\n"
    "ebbctl adopt node-a --cgroup system.slice/batch.service --cpu 2000 --memory 4G" },
  { "kill", "JOB", "kill a job; prints its state before and after (running -> killing)", NULL, 0,
    false, ebbctl_kill, &kill_req, "ebbctl kill 42" },
  { "decisions", NULL, "show the preemption log", OPTS (decisions_opts), false, ebbctl_decisions,
    NULL, "ebbctl decisions\nebbctl decisions --follow" },
  { "watch", "[JOB]", "live view of the cluster or of one job, with a progress bar",
    OPTS (watch_opts), false, ebbctl_watch, NULL, "ebbctl watch\nebbctl watch 42 --interval 0.5" },
  { "tasks", NULL, "list an agent's tasks", NULL, 0, true, REQUEST (tasks_req),
    "ebbctl --agent unix:/run/ebb/agent.sock tasks" },
  { "task", "ID", "show one of an agent's tasks", NULL, 0, true, REQUEST (task_req),
    "ebbctl --agent unix:/run/ebb/agent.sock task j42-t0-g1" },
  { "suspend", "JOB[-TASK]",
    "hold a job's tasks suspended: the policy resumes them only by `resume` (--agent: an agent's "
    "task ID)",
    OPTS (suspend_opts), false, ebbctl_suspend, NULL,
    "ebbctl suspend 42\nebbctl suspend 42-3\n"
    "ebbctl --agent unix:/run/ebb/agent.sock suspend j42-t0-g1 --mode graceful --cpu 500" },
  { "resume", "JOB[-TASK]", "resume the held tasks of a job (--agent: an agent's task ID)", NULL, 0,
    false, ebbctl_resume, NULL,
    "ebbctl resume 42\nebbctl resume 42-3\nebbctl --agent unix:/run/ebb/agent.sock resume "
    "j42-t0-g1" },
  { "logs", "JOB[-TASK]", "print a task's output (through the controller; --agent: ID of an agent)",
    OPTS (logs_opts), false, ebbctl_logs, NULL,
    "ebbctl logs 42 --tail 20\nebbctl logs 42-3 -f\n"
    "ebbctl --agent unix:/run/ebb/agent.sock logs j42-t0-g1" },
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
