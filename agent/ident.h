/* Identity (agent/ident.c): who a launched task runs as. A launch that names a user or a
 * group gets it only from the allowlist of the configuration (task_users, task_groups; the
 * task user and a user's own primary group always); without a user, each job gets a user of
 * its own from task_uid_range, so tasks of different jobs cannot read or signal each other.
 * Pure: the configuration, NSS and a caller's view of the uids in use; no daemon state. */
#ifndef EBB_AGENT_IDENT_H
#define EBB_AGENT_IDENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "agent/options.h"
#include "lib/error.h"

#define EBB_AGENT_MAX_GROUPS 64
/* Ids below this are system accounts and groups (login.defs(5)'s default UID_MIN and
 * GID_MIN): a range in an allowlist never reaches them, only their name or id does. */
#define EBB_AGENT_FIRST_REGULAR_ID 1000

typedef struct ebb_agent_ident
{
  uid_t uid;
  gid_t gid;
  gid_t groups[EBB_AGENT_MAX_GROUPS];
  int n_groups;
} ebb_agent_ident;

/* Resolves the user and group a launch names (user NULL: the task user; group NULL: the
 * user's primary group), refusing with EBB_EREFUSED (the message names the setting) what the
 * allowlist does not hold, and root without allow_root_tasks; supplementary groups outside
 * the allowlist are dropped. EINVAL for an unknown name. Returns 0 and *out. */
int ebb_agent_ident_resolve (const ebb_agent_config *cfg, const char *user, const char *group,
                             ebb_agent_ident *out, ebb_error **err);

/* A group a launch names with its job's user (ebb_agent_ident_for_job): only from
 * task_groups (or root's with allow_root_tasks); it replaces the job's group. */
int ebb_agent_ident_job_group (const ebb_agent_config *cfg, const char *group, ebb_agent_ident *id,
                               ebb_error **err);

/* Parses task_uid_range ("LO-HI", LO >= EBB_AGENT_FIRST_REGULAR_ID); false for "none" and
 * anything else. */
bool ebb_agent_uid_range (const char *v, uid_t *lo, uid_t *hi);

/* Whether a task the caller knows has uid. */
typedef bool (*ebb_agent_uid_taken) (uid_t uid, void *ud);

/* The job's own user (group: the same number, no supplementary group): known (the uid a task
 * of the job already has; (uid_t)-1 for none) when it is in task_uid_range, else a free one
 * of the range, probed from a point the job's name picks (a job gets its uid again after a
 * pause when it is still free, and uids are reused late). Free: no task has it, no account
 * or group (NSS: systemd's dynamic users included), no process runs as it. EBB_EREFUSED when
 * task_uid_range is "none" (the caller uses the task user), EAGAIN when the range is used
 * up. */
int ebb_agent_ident_for_job (const ebb_agent_config *cfg, const char *job, uid_t known,
                             ebb_agent_uid_taken taken, void *ud, ebb_agent_ident *out,
                             ebb_error **err);

#endif
