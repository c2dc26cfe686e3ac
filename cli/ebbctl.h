/* ebbctl: the operator CLI. Commands are dispatched from the table in cli/commands.c (crun's
 * layout); a command that is one request and its answer is described there by an
 * ebbctl_request and run by cli/request.c, the others have their own file (cli/<command>.c).
 * The pure parts (option tables, URL and size parsing, table and progress formatting) are in
 * cli/opts.c and cli/format.c and have a CUnit suite. */
#ifndef EBB_EBBCTL_H
#define EBB_EBBCTL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

/* Exit codes (documented in ebbctl(1)). */
enum
{
  EBBCTL_EXIT_OK = 0,
  EBBCTL_EXIT_FAILURE = 1,
  EBBCTL_EXIT_USAGE = 2,
  EBBCTL_EXIT_NOT_FOUND = 4,
};

#define EBBCTL_DEFAULT_CONTROLLER_SOCKET "/run/ebb/controller.sock"
#define EBBCTL_DEFAULT_AGENT_SOCKET      "/run/ebb/agent.sock"
#define EBBCTL_DEFAULT_CONTROLLER_TOKEN  LOCALSTATEDIR "/lib/ebb/controller/token"

/* -o / --output: how answers are printed. */
typedef enum
{
  EBBCTL_OUT_TABLE = 0, /* tables and summaries */
  EBBCTL_OUT_JSON,      /* the API's JSON (also --json) */
  EBBCTL_OUT_WIDE,      /* tables with more columns */
  EBBCTL_OUT_NAME,      /* the ids (jobs) or names (nodes) alone, one a line */
} ebbctl_output;

typedef struct
{
  char *controller;   /* base URL ("http://h:p", "https://h:p" or "unix:/path"), owned; after a
                       * call, the one that answered */
  char **controllers; /* --controller URL,URL...: the replicas (NULL for one), owned */
  char *agent;        /* NULL when no --agent and no EBB_AGENT; owned */
  bool agent_given;   /* by --agent or EBB_AGENT, not the default socket (ebbctl logs) */
  char *token_file;   /* --token-file, owned */
  char *ca_file;      /* --ca-file (https), owned */
  bool json;          /* output == EBBCTL_OUT_JSON */
  ebbctl_output output;
  bool controller_default; /* no --controller, no EBB_CONTROLLER: the built-in address */
  bool color;              /* state colours (a tty without NO_COLOR) */
  FILE *out;               /* stdout; tests substitute a memstream */
} ebbctl_ctx;

/* Option values of the commands' tables (cli/commands.c), seen by their on_opt. */
enum
{
  EBBCTL_O_NAME = 1,
  EBBCTL_O_CLASS,
  EBBCTL_O_TASKS,
  EBBCTL_O_CPU,
  EBBCTL_O_MEMORY,
  EBBCTL_O_EST,
  EBBCTL_O_WAIT,
  EBBCTL_O_JSON_FILE,
  EBBCTL_O_FOLLOW,
  EBBCTL_O_MODE,
  EBBCTL_O_INTERVAL,
  EBBCTL_O_COUNT,
  EBBCTL_O_CONTAINER,
  EBBCTL_O_RUNTIME,
  EBBCTL_O_CGROUP,
  EBBCTL_O_ACTIVE,
  EBBCTL_O_ALL,
  EBBCTL_O_STATE,
  EBBCTL_O_TAIL,
  EBBCTL_O_PRIORITY,
  EBBCTL_O_TIME_LIMIT,
  EBBCTL_O_NOTIFY_SIGNAL,
  EBBCTL_O_SINCE,
};

/* One option of a command: the table produces the getopt parser, --help and the synopsis. */
typedef struct
{
  const char *name; /* long name without "--" */
  bool has_arg;
  int val;          /* returned to the command's on_opt */
  const char *arg;  /* metavariable for --help ("SEC", "short|long|auto") */
  const char *help; /* one line */
} ebbctl_opt;

/* A request and how its answer is printed (without --json; with it, the answer is printed as
 * JSON). The path is path, then "/ARG" when the command takes an argument, then "/TAIL". */
typedef struct ebbctl_request ebbctl_request;
struct ebbctl_request
{
  const char *method;   /* "GET", "POST", "DELETE" */
  const char *path;     /* "/v1/jobs" */
  const char *tail;     /* last segment after the argument ("drain"), or NULL */
  const char *arg_what; /* the argument, for errors ("job id"); NULL: the command takes none */
  /* Prints a 2xx answer and returns the exit code; NULL: ebbctl_print_answer_kv. */
  int (*print) (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg, json_object *answer);
  const char *fallback;                               /* answer_state: when there is no state */
  const char *list;                                   /* answer_list: the member with the list */
  void (*table) (ebbctl_ctx *ctx, json_object *list); /* answer_list: prints the list */
  bool paged; /* GET of a paged list (next_after): every page is read (ebbctl_call_pages) */
  /* Edits a 2xx answer before it is printed (jobs' filters), with data; NULL: none. */
  void (*filter) (ebbctl_ctx *ctx, const ebbctl_request *req, json_object *answer);
  const void *data;
};

typedef struct ebbctl_cmd
{
  const char *name;
  const char *args;    /* positional arguments for the synopsis ("NAME", "-- ARGV...") */
  const char *summary; /* one line */
  const ebbctl_opt *opts;
  size_t n_opts;
  bool agent; /* talks to an agent (needs --agent) rather than the controller */
  int (*run) (ebbctl_ctx *ctx, const struct ebbctl_cmd *cmd, int argc, char **argv);
  const ebbctl_request *request; /* for run = ebbctl_request_run or ebbctl_jobs */
  const char *examples;          /* lines of examples for --help ("ebbctl jobs --all\n...") */
} ebbctl_cmd;

/* --- cli/commands.c */

/* Returns the command table and its size. */
const ebbctl_cmd *ebbctl_commands (size_t *n);

/* Returns the command called name, or NULL. */
const ebbctl_cmd *ebbctl_command_find (const char *name);

/* --- cli/opts.c */

/* The global options, for help and completion. */
const ebbctl_opt *ebbctl_global_opts (size_t *n);

/* Parses the global options of argv (up to the command name, which must come first after
 * them) into ctx (defaults from EBB_CONTROLLER / EBB_AGENT, else the controller's defaults).
 * Returns the index of the command name in argv (argc when there is none), -1 when --help or
 * --version was printed, or -EINVAL with *err set on a usage error. */
int ebbctl_parse_global (ebbctl_ctx *ctx, int argc, char **argv, ebb_error **err);

/* Takes the output options out of a command's arguments (argv[0] is the command name), as
 * kubectl accepts them anywhere: --json (unless cmd has a --json of its own, as submit
 * does), -o FORMAT, -oFORMAT, --output FORMAT, --output=FORMAT; up to a "--", never taking
 * the value of one of cmd's options. Sets ctx->output and ctx->json, removes them from argv
 * and *argc. Returns 0, or -EINVAL with *err set (an unknown format, a missing one). */
int ebbctl_take_output_opts (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int *argc, char **argv,
                             ebb_error **err);

/* Parses an output format (json, wide, name; table as the default). Returns 0, or -EINVAL. */
int ebbctl_parse_output (const char *s, ebbctl_output *out, ebb_error **err);

/* The candidate closest to word (edit distance at most 2, and less than half of word's
 * length; or the only one word is a prefix of), or NULL. For "did you mean". */
const char *ebbctl_suggest (const char *word, const char *const *cands, size_t n);

/* The command closest to name, or NULL. */
const char *ebbctl_suggest_command (const char *name);

/* Frees what ctx owns. */
void ebbctl_ctx_clear (ebbctl_ctx *ctx);

/* Normalises a base URL: "unix:/path" and "http://..." as given, "HOST:PORT" and "[V6]:PORT"
 * with "http://" prepended. Returns a new string, or NULL with *err set (EINVAL) for anything
 * else (another scheme, an empty or relative unix path, a missing port, spaces). */
char *ebbctl_normalize_url (const char *s, ebb_error **err);

/* Parses a command's options from argv[0] (the command name) on, calling on_opt for each.
 * Returns the index of the first positional argument, -1 when --help was printed (to out),
 * or -EINVAL with *err set. on_opt returns 0, or negative with *err set. */
int ebbctl_parse_cmd (const ebbctl_cmd *cmd, int argc, char **argv,
                      int (*on_opt) (int val, const char *arg, void *data, ebb_error **err),
                      void *data, FILE *out, ebb_error **err);

/* For a command without options: parses --help and checks for exactly n positional arguments.
 * Returns the index of the first one, -1 when --help was printed, or -EINVAL with *err. */
int ebbctl_simple_args (const ebbctl_cmd *cmd, int argc, char **argv, int n, FILE *out,
                        ebb_error **err);

/* Prints a command's --help, or (cmd NULL) the whole program's. */
void ebbctl_print_help (FILE *out, const ebbctl_cmd *cmd);

/* Parses a positive integer in [min, max]. Returns 0, or -EINVAL with *err naming what. */
int ebbctl_parse_uint (const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                       ebb_error **err);

/* Parses a memory size ("512M", "1GiB", "1048576"; 1024-based) in [1, 2^50]. Returns 0, or
 * -EINVAL with *err set. */
int ebbctl_parse_size (const char *what, const char *s, uint64_t *out_bytes, ebb_error **err);

/* Takes s as a job's --name (1-128 characters of [A-Za-z0-9._-]). Returns 0, or -EINVAL
 * with *err set. */
int ebbctl_parse_name (const char *s, const char **out, ebb_error **err);

/* Checks that exactly n positional arguments follow index first. Returns 0 or -EINVAL. */
int ebbctl_want_args (const ebbctl_cmd *cmd, int argc, int first, int n, ebb_error **err);

/* Checks that s is an id usable in a URL path ([A-Za-z0-9._-], at most 128). */
int ebbctl_check_id (const char *what, const char *s, ebb_error **err);

/* --- cli/format.c */

typedef struct
{
  size_t n_cols;
  size_t n_rows; /* the header is row 0 */
  char **cells;  /* n_rows * n_cols, owned */
  bool color;    /* print the STATE column in colour (ebbctl_state_color) */
} ebbctl_table;

/* Starts a table with the given header (n_cols names). */
void ebbctl_table_init (ebbctl_table *t, size_t n_cols, const char *const *header);
/* Appends a row of n_cols cells (NULL prints "-"); cells are copied. */
void ebbctl_table_add (ebbctl_table *t, const char *const *cells);
/* Prints the table: columns left-aligned, padded to their widest cell, two spaces apart, no
 * trailing blanks. Control characters in cells are shown as '?' (a hostile name must not
 * drive the terminal). */
void ebbctl_table_print (const ebbctl_table *t, FILE *out);
void ebbctl_table_clear (ebbctl_table *t);
/* Appends the row that row (a function that adds n_row_cols cells) makes of item, with the
 * n_extra cells of extra after them: a wide table from a narrow one's row. */
void ebbctl_table_add_more (ebbctl_table *t, size_t n_row_cols,
                            void (*row) (ebbctl_table *t, json_object *item, size_t i),
                            json_object *item, size_t i, const char *const *extra, size_t n_extra);
/* Prints to ctx->out (in colour when ctx->color) the table of header (n_cols names) with the
 * rows row adds (one call per element i of the array list, item). */
void ebbctl_table_print_list (const ebbctl_ctx *ctx, const char *const *header, size_t n_cols,
                              json_object *list,
                              void (*row) (ebbctl_table *t, json_object *item, size_t i));

/* The SGR colour of a job, task or node state ("32" green: running, ready, starting; "33"
 * yellow: suspended, draining, queued, pending; "31" red: failed, lost; "90" grey: killed),
 * or NULL (done, exited, anything else). */
const char *ebbctl_state_color (const char *state);

/* True when human output to fd should be coloured: a table or wide output, fd a terminal,
 * NO_COLOR unset or empty, TERM not "dumb". */
bool ebbctl_want_color (const ebbctl_ctx *ctx, int fd);

/* Prints an already sanitised state, in its colour when color. */
void ebbctl_print_state (FILE *out, bool color, const char *clean_state);

/* Prints text, or when it has more than max_lines lines (0: no limit) its first
 * max_lines - 1 and a line saying how many more there are, each line cut to max_cols
 * columns (0: no limit; colour sequences take none): a watch frame that fits the terminal
 * (a line wrapped would take two). */
void ebbctl_clip_lines (FILE *out, const char *text, size_t max_lines, size_t max_cols);

/* Writes a progress line into buf:
 *   "[#####>>>~~~.......]  3/10 done, 2 running, 1 suspended"
 * bar of width cells ('#' done, '>' running, '~' suspended, '.' the rest). Counts are clamped
 * so that done + running + suspended <= total. Returns buf. */
char *ebbctl_progress (char *buf, size_t size, uint64_t done, uint64_t running, uint64_t suspended,
                       uint64_t total, unsigned width);

/* Formats a duration in seconds as "850ms", "12.3s", "4m05s", "2h03m" ("-" when negative
 * or not finite). Returns buf. */
char *ebbctl_duration (char *buf, size_t size, double sec);

/* Formats a byte count as "512M", "1.5G", "100" (1024-based). Returns buf. */
char *ebbctl_bytes (char *buf, size_t size, uint64_t bytes);

/* --- cli/client.c: calls and their results */

/* Calls the controller (agent false) or the agent. On 2xx stores the parsed JSON body in
 * *out (a new reference, may be NULL for an empty body) and returns EBBCTL_EXIT_OK; otherwise
 * prints why to stderr and returns EBBCTL_EXIT_NOT_FOUND for 404 and EBBCTL_EXIT_FAILURE for
 * anything else. */
int ebbctl_call (ebbctl_ctx *ctx, bool agent, const char *method, const char *path,
                 json_object *body, json_object **out);

/* GET path and write its 2xx body to `to` as it arrives, without a time limit (a followed
 * log). Returns the exit code (errors printed as ebbctl_call's). */
int ebbctl_call_stream (ebbctl_ctx *ctx, bool agent, const char *path, FILE *to);

/* GET path of the controller page after page: while an answer's "next_after" is a number,
 * asks again with ?after= it. *out is the first answer with every page's items in its
 * array member list and "next_after" null. A cursor that does not grow, or a page without
 * the list, is an error (a server that would page for ever). Returns as ebbctl_call. */
int ebbctl_call_pages (ebbctl_ctx *ctx, const char *path, const char *list, json_object **out);

/* Prints obj as pretty JSON (no slash escaping) to ctx->out. */
void ebbctl_print_json (ebbctl_ctx *ctx, json_object *obj);

/* Returns the array obj itself or its member key when that is an array, else NULL. */
json_object *ebbctl_list (json_object *obj, const char *key);

/* Borrowed string of a member, or NULL (also when it is not a string). */
const char *ebbctl_str (json_object *obj, const char *key);
/* A member as text for a table cell ("-" when absent or null); buf for numbers. */
const char *ebbctl_cell (json_object *obj, const char *key, char *buf, size_t size);
/* A numeric member, or def when absent or not a number. */
double ebbctl_num (json_object *obj, const char *key, double def);

/* Prints the scalar members of obj as "key: value" lines, nested objects as "key.sub", arrays
 * of scalars joined by commas and members named *_at as local date and time; arrays of objects
 * are left to the caller. */
void ebbctl_print_kv (FILE *out, json_object *obj, const char *prefix);

/* Replaces in s, in place, each C0 control, DEL, C1 control (U+0080-U+009F) and each byte
 * that is not part of valid UTF-8 by one '?' (ebbctl(1), OUTPUT). */
void ebbctl_sanitize (char *s);

/* Copies s into buf (truncated to size) with control characters shown as '?'; NULL gives
 * "-". Every server-provided string printed outside a table or key: value list goes through
 * it, so a hostile name cannot drive the terminal. Returns buf. */
const char *ebbctl_clean (char *buf, size_t size, const char *s);

/* Formats unix seconds as local "YYYY-MM-DD HH:MM:SS" ("-" when not positive). Returns buf. */
char *ebbctl_timestamp (char *buf, size_t size, double unix_sec);

/* Now, in unix seconds with fractions. */
double ebbctl_now (void);

/* Prints an error "ebbctl CMD: msg" and returns the exit code for err's code (EINVAL: usage). */
int ebbctl_fail (const ebbctl_cmd *cmd, ebb_error **err);

/* The member key of obj, or NULL (also when obj is not an object). */
json_object *ebbctl_member (json_object *obj, const char *key);

/* --- cli/request.c: commands that are one request */

/* Calls req on the agent (agent true) or the controller for arg (NULL when the command takes
 * none) with body (may be NULL), and prints the answer. Returns the exit code. */
int ebbctl_request_send (ebbctl_ctx *ctx, bool agent, const ebbctl_request *req, const char *arg,
                         json_object *body);
/* The run of a command without options described by cmd->request: parses --help and its
 * argument (checked with ebbctl_check_id), then ebbctl_request_send. */
int ebbctl_request_run (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv);
/* jobs [--active]: cmd->request, every page; --active asks for the unfinished jobs only
 * (GET /v1/jobs?state=active). */
int ebbctl_jobs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv);
/* -o name: the id (or name) of obj, or of each element of the array obj, one a line. */
void ebbctl_print_names (ebbctl_ctx *ctx, json_object *obj);

/* history's filter (cli/history.c): the finished jobs, of one state, ended within since_sec. */
typedef struct
{
  const char *state; /* --state: done, failed, killed; NULL: any */
  double since_sec;  /* --since: 0 for any time */
} ebbctl_history_filter;
int ebbctl_history_opt (int val, const char *arg, void *data, ebb_error **err);
/* True when job (an element of GET /v1/jobs) is finished and passes f at now (unix s). */
bool ebbctl_history_match (const ebbctl_history_filter *f, json_object *job, double now);
void ebbctl_history_table (ebbctl_ctx *ctx, json_object *list);
int ebbctl_history (ebbctl_ctx *, const ebbctl_cmd *, int, char **);

/* jobs' filters (cli/jobs-filter.c). */
typedef struct
{
  bool all;          /* --all */
  const char *state; /* --state: queued, running, done, failed, killed, active; NULL */
  const char *klass; /* --class */
  const char *name;  /* --name PATTERN (fnmatch) */
} ebbctl_jobs_filter;

/* on_opt of jobs (data: an ebbctl_jobs_filter). Returns 0, or -EINVAL with *err set. */
int ebbctl_jobs_filter_opt (int val, const char *arg, void *data, ebb_error **err);
/* True when the filter needs the finished jobs too (--all, a finished --state). */
bool ebbctl_jobs_filter_wants_finished (const ebbctl_jobs_filter *f);
/* True when job (an element of GET /v1/jobs) passes every filter of f. */
bool ebbctl_jobs_filter_match (const ebbctl_jobs_filter *f, json_object *job);

/* Printers of answers: "key: value" lines; "ARG: state" (req->fallback when the answer has no
 * state); the table req->table of the list in member req->list (exit 1 when there is none). */
int ebbctl_print_answer_kv (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                            json_object *answer);
int ebbctl_print_answer_state (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                               json_object *answer);
/* kill JOB: the job's state first (GET), then DELETE; prints "JOB: BEFORE -> AFTER". */
int ebbctl_kill (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv);
int ebbctl_print_answer_list (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                              json_object *answer);

/* Tables and answers shared by several commands (cli/node-row.c, cli/job-row.c,
 * cli/task-row.c). */
void ebbctl_nodes_table (ebbctl_ctx *ctx, json_object *list);
void ebbctl_jobs_table (ebbctl_ctx *ctx, json_object *list);
void ebbctl_job_tasks_table (ebbctl_ctx *ctx, json_object *job);
void ebbctl_tasks_table (ebbctl_ctx *ctx, json_object *list);
/* Summaries in the manner of kubectl describe (cli/describe.c): a job (then the table of its
 * tasks), a node, the cluster (and which controller answered). */
int ebbctl_print_answer_job (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                             json_object *answer);
int ebbctl_print_answer_node (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                              json_object *answer);
int ebbctl_print_answer_status (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                                json_object *answer);
/* The CPU an agent applied to task (its "applied" cpu.max), in millicores. Returns 0, or -1
 * when there is none or no quota ("max"). */
int ebbctl_applied_cpu_millis (json_object *task, uint64_t *out);
/* Why a job or task waits or failed: its "reason"'s message (a string reason as it is, else
 * its code), or NULL when it has none. */
const char *ebbctl_reason (json_object *obj);
/* True for a job state that will not change any more (done, failed, killed). */
bool ebbctl_job_finished (const char *state);
/* How long job waited: from its submission to when its last task left pending (the
 * controller's placed_at), or until now while one is pending (placed_at null); without
 * placed_at (an older controller), until its start; "-" when unknown. */
const char *ebbctl_job_waited (char *buf, size_t size, json_object *job);

/* --- commands with options (cli/<name>.c) */
int ebbctl_submit (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
int ebbctl_decisions (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
int ebbctl_watch (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
int ebbctl_suspend (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
int ebbctl_adopt (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
int ebbctl_logs (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
/* JOB or JOB-TASK (decimal numbers) as "JOB/tasks/TASK" (TASK 0 when left out), or NULL
 * with *err (cli/logs.c). */
char *ebbctl_job_task_path (const char *arg, ebb_error **err);
/* cli/hold.c: suspend|resume JOB[-TASK] through the controller (the operator's hold); an
 * agent's task id (jJOB-tTASK-gGEN) or --agent: the agent's own call (ebbctl_suspend). */
bool ebbctl_hold_wanted (const ebbctl_ctx *ctx, const char *arg);
int ebbctl_hold_send (ebbctl_ctx *ctx, const char *arg, bool hold, ebb_error **err);
int ebbctl_resume (ebbctl_ctx *, const ebbctl_cmd *, int, char **);
/* The state of a task or job (an element of GET /v1/jobs or of a job's tasks) with the
 * operator's hold: "suspended (held)", "running (1 held)"; a job none of whose tasks runs
 * but some are suspended shows as "suspended". Returns buf. */
const char *ebbctl_held_state (char *buf, size_t size, json_object *obj);

/* --- submit's pure parts (cli/submit.c), for the unit suite */
typedef struct
{
  const char *name;
  const char *klass; /* short|long|auto */
  uint64_t tasks, cpu_millis, memory_bytes;
  double est_sec;            /* < 0: not given */
  int64_t priority;          /* the job's tier (0: the default, not sent) */
  uint64_t time_limit_sec;   /* 0: none */
  const char *notify_signal; /* NULL: none */
  bool wait;
  char **argv;           /* borrowed from the command line */
  const char *json_file; /* --json FILE ("-": stdin): the whole body, not built */
  bool body_opts;        /* one of --name --class --tasks --cpu --memory --est given */
} ebbctl_submit_args;

/* Parses submit's arguments (argv[0] is "submit"). Returns 0, -1 when --help was printed, or
 * -EINVAL with *err set. */
int ebbctl_submit_parse (const ebbctl_cmd *cmd, int argc, char **argv, ebbctl_submit_args *out,
                         FILE *help_out, ebb_error **err);
/* Returns the POST /v1/jobs body for a (request_id may be NULL). */
json_object *ebbctl_submit_body (const ebbctl_submit_args *a, const char *request_id);
/* Reads FILE ("-": stdin, at most 16 MiB) as one JSON object, the whole POST /v1/jobs body.
 * Returns a new reference, or NULL with *err (EINVAL: unreadable, too large, not JSON, not
 * an object). */
json_object *ebbctl_submit_read_json (const char *file, ebb_error **err);

/* Writes a fresh request id into buf ("ebbctl-" and random hex), so that a retried
 * submission is not a second job. */
void ebbctl_request_id (char *buf, size_t size);
/* The fields every POST /v1/jobs body starts with: name, class, est_task_sec (when > 0)
 * and the request id (unless NULL). */
json_object *ebbctl_job_body (const char *name, const char *klass, double est_sec,
                              const char *request_id);
/* POSTs body (taken) to /v1/jobs; with print, prints the answer (--json) or the job id;
 * *id (unless id is NULL) gets the job id, freed by the caller. Returns an exit code. */
int ebbctl_post_job (ebbctl_ctx *ctx, json_object *body, bool print, char **id);

/* --- adopt's pure parts (cli/adopt.c), for the unit suite */
typedef struct
{
  const char *name;  /* default: the container, or the cgroup's last component */
  const char *klass; /* short|long (default long) */
  const char *node, *container, *runtime, *cgroup;
  uint64_t cpu_millis, memory_bytes; /* 0: from the container (or cgroup) */
} ebbctl_adopt_args;

/* Parses adopt's arguments (argv[0] is "adopt"). Returns 0, -1 when --help was printed, or
 * -EINVAL with *err set. */
int ebbctl_adopt_parse (const ebbctl_cmd *cmd, int argc, char **argv, ebbctl_adopt_args *out,
                        FILE *help_out, ebb_error **err);
/* Returns the POST /v1/jobs body for a (request_id may be NULL). */
json_object *ebbctl_adopt_body (const ebbctl_adopt_args *a, const char *request_id);

/* Counts a job's tasks by state into done (exited/failed/killed), running, suspended, total. */
void ebbctl_job_counts (json_object *job, uint64_t *done, uint64_t *running, uint64_t *suspended,
                        uint64_t *total);

#endif
