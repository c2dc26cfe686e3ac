/* Requests (agent/request.c): JSON bodies validated into structs, cgroup paths made
 * canonical. Pure. */
#ifndef EBB_AGENT_REQUEST_H
#define EBB_AGENT_REQUEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/task.h"
#include "lib/error.h"

#define EBB_AGENT_MAX_ARGV      1024
#define EBB_AGENT_MAX_ARG_BYTES 4096
#define EBB_AGENT_MAX_ENV       1024
#define EBB_AGENT_MAX_BODY      (256 * 1024)
/* A launched task's PATH when the launch gives no environment. */
#define EBB_AGENT_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

typedef struct ebb_agent_launch_req
{
  char *id, *job, *cls, *cwd, *request_id;
  char *user, *group; /* names or numeric ids; NULL: --task-user and its primary group */
  char **argv, **env;
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation;     /* 0: none */
  uint64_t time_limit_sec; /* running time after which the agent ends it; 0: none */
  int notify_signal;       /* sent when it is suspended and resumed; 0: none */
} ebb_agent_launch_req;

/* The longest time limit a launch may ask for: ten years. */
#define EBB_AGENT_TIME_LIMIT_SEC_MAX (10ULL * 366 * 86400)

/* What the scheduler counts a task as holding (a suspend request's "booked"); 0: not said. */
typedef struct ebb_agent_booked
{
  uint64_t cpu_millis, memory_bytes;
} ebb_agent_booked;

typedef struct ebb_agent_suspend_req
{
  char *mode, *request_id;
  uint64_t cpu_millis, memory_bytes; /* graceful: the step */
  ebb_agent_booked booked;           /* graceful: what the task holds before the step */
  uint64_t generation;               /* 0: not checked */
  bool graceful;
} ebb_agent_suspend_req;

typedef struct ebb_agent_adopt_req
{
  char *container, *cgroup, *id, *job, *cls, *request_id;
  char *runtime; /* "docker" or "podman": ask that engine only; NULL: each configured */
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation; /* 0: none */
} ebb_agent_adopt_req;

typedef struct ebb_agent_simple_req
{
  char *request_id;
  uint64_t grace_millis;
  uint64_t generation; /* 0: not checked */
} ebb_agent_simple_req;

/* Each parses and validates a JSON request body (obj may be NULL only where a body is
 * optional: resume, delete). Returns 0 and fills *out (free with the matching _clear), or
 * negative (EBB_EPARSE, EBB_ERANGE) with *err naming the field. */
int ebb_agent_parse_launch (json_object *obj, ebb_agent_launch_req *out, ebb_error **err);
void ebb_agent_launch_req_clear (ebb_agent_launch_req *r);
int ebb_agent_parse_suspend (json_object *obj, ebb_agent_suspend_req *out, ebb_error **err);
void ebb_agent_suspend_req_clear (ebb_agent_suspend_req *r);
int ebb_agent_parse_adopt (json_object *obj, ebb_agent_adopt_req *out, ebb_error **err);
void ebb_agent_adopt_req_clear (ebb_agent_adopt_req *r);
int ebb_agent_parse_simple (json_object *obj, ebb_agent_simple_req *out, ebb_error **err);
void ebb_agent_simple_req_clear (ebb_agent_simple_req *r);

/* Returns the environment a launched task gets (a new NULL-terminated vector; free with
 * ebb_strv_free): env (NULL: a PATH and HOME=/) without any EBB_JOB_ID, EBB_TASK_ID or
 * EBB_CLASS of the caller's, then those three from req. */
char **ebb_agent_task_env (const ebb_agent_launch_req *req);

/* Canonicalizes a cgroup path: absolute, "//" collapsed, trailing "/" dropped, no "." or
 * ".." components, only printable non-space characters. Returns a new string, or NULL with
 * *err (EBB_EREFUSED for "..", EBB_EPARSE otherwise). */
char *ebb_agent_cgroup_canon (const char *path, ebb_error **err);

/* Returns true when canon (a canonical path) is root or below it, component-wise. */
bool ebb_agent_path_under (const char *canon, const char *root);

#endif
