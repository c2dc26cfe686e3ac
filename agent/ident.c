/* Identity: the allowlist of users and groups a launch may name, and a user per job from
 * task_uid_range (after systemd's DynamicUser=). Resolved in the agent, before the fork (NSS
 * is not async-signal-safe). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/ident.h"
#include "lib/util.h"

/* Returns true and *out when s is all digits (a numeric id that fits 32 bits). */
static bool
numeric_id (const char *s, unsigned long *out)
{
  if (!*s || strspn (s, "0123456789") != strlen (s) || strlen (s) > 10)
    return false;
  *out = strtoul (s, NULL, 10);
  return *out < 0xffffffffUL;
}

/* An allowlist entry: an id ("42", *lo == *hi) or a range ("1000-1999"). */
static bool
entry_ids (const char *e, unsigned long *lo, unsigned long *hi)
{
  const char *dash = strchr (e, '-');
  if (!dash)
    return numeric_id (e, lo) && (*hi = *lo, true);
  char a[16];
  if ((size_t)(dash - e) >= sizeof a)
    return false;
  memcpy (a, e, (size_t)(dash - e));
  a[dash - e] = '\0';
  return numeric_id (a, lo) && numeric_id (dash + 1, hi) && *lo <= *hi;
}

/* Whether list holds name or id: by name or exact id always, by a range only above the
 * system ids. */
static bool
listed (char **list, const char *name, unsigned long id)
{
  for (char **e = list; e && *e; e++)
    {
      unsigned long lo, hi;
      if (name && strcmp (*e, name) == 0)
        return true;
      if (entry_ids (*e, &lo, &hi) && id >= lo && id <= hi
          && (lo == hi || id >= EBB_AGENT_FIRST_REGULAR_ID))
        return true;
    }
  return false;
}

/* The task user's uid, or (uid_t)-1 when it does not resolve. */
static uid_t
task_user_uid (const ebb_agent_config *cfg)
{
  struct passwd pw, *pwp = NULL;
  char buf[4096];
  unsigned long n;
  if (!cfg->task_user)
    return (uid_t)-1;
  if (numeric_id (cfg->task_user, &n))
    return (uid_t)n;
  getpwnam_r (cfg->task_user, &pw, buf, sizeof buf, &pwp);
  return pwp ? pwp->pw_uid : (uid_t)-1;
}

/* Whether a task may hold gid: the user's own primary group, task_groups, root's with
 * allow_root_tasks. */
static bool
group_allowed (const ebb_agent_config *cfg, const struct passwd *pwp, gid_t gid)
{
  if ((pwp && gid == pwp->pw_gid) || (gid == 0 && cfg->allow_root_tasks))
    return true;
  struct group gr, *grp = NULL;
  char buf[4096];
  getgrgid_r (gid, &gr, buf, sizeof buf, &grp);
  return listed (cfg->task_groups, grp ? grp->gr_name : NULL, gid);
}

static int
resolve_user (const ebb_agent_config *cfg, const char *user, struct passwd *pw, char *buf,
              size_t len, struct passwd **pwp, ebb_agent_ident *id, ebb_error **err)
{
  unsigned long n;
  *pwp = NULL;
  if (numeric_id (user, &n))
    {
      getpwuid_r ((uid_t)n, pw, buf, len, pwp);
      id->uid = (uid_t)n;
    }
  else
    {
      getpwnam_r (user, pw, buf, len, pwp);
      if (!*pwp)
        return ebb_error_set (err, EINVAL, "no such user %s", user);
      id->uid = (*pwp)->pw_uid;
    }
  if (id->uid == 0 && !cfg->allow_root_tasks)
    return ebb_error_set (err, EBB_EREFUSED,
                          "running a task as root (user or group 0) needs --allow-root-tasks");
  if (id->uid != 0 && id->uid != task_user_uid (cfg)
      && !listed (cfg->task_users, *pwp ? (*pwp)->pw_name : NULL, id->uid))
    return ebb_error_set (err, EBB_EREFUSED,
                          "user %s (uid %lu) is not in task_users (--task-users; a system "
                          "account, below uid %d, only by its name or id)",
                          user, (unsigned long)id->uid, EBB_AGENT_FIRST_REGULAR_ID);
  return 0;
}

static int
resolve_group (const ebb_agent_config *cfg, const char *user, const char *group,
               const struct passwd *pwp, ebb_agent_ident *id, ebb_error **err)
{
  unsigned long n;
  if (group)
    {
      struct group gr, *grp = NULL;
      char gbuf[4096];
      if (numeric_id (group, &n))
        id->gid = (gid_t)n;
      else if (getgrnam_r (group, &gr, gbuf, sizeof gbuf, &grp) == 0 && grp)
        id->gid = grp->gr_gid;
      else
        return ebb_error_set (err, EINVAL, "no such group %s", group);
    }
  else if (pwp)
    id->gid = pwp->pw_gid;
  else
    return ebb_error_set (err, EINVAL, "user %s has no passwd entry: name a group", user);
  if (id->gid == 0 && !cfg->allow_root_tasks)
    return ebb_error_set (err, EBB_EREFUSED,
                          "running a task as root (user or group 0) needs --allow-root-tasks");
  if (!group_allowed (cfg, pwp, id->gid))
    return ebb_error_set (err, EBB_EREFUSED,
                          "group %s (gid %lu) is not in task_groups (--task-groups; a system "
                          "group, below gid %d, only by its name or id)",
                          group, (unsigned long)id->gid, EBB_AGENT_FIRST_REGULAR_ID);
  return 0;
}

int
ebb_agent_ident_resolve (const ebb_agent_config *cfg, const char *user, const char *group,
                         ebb_agent_ident *id, ebb_error **err)
{
  struct passwd pw, *pwp = NULL;
  char buf[4096];
  if (!user)
    user = cfg->task_user;
  if (!user)
    return ebb_error_set (err, EINVAL, "no task user (--task-user)");
  int r = resolve_user (cfg, user, &pw, buf, sizeof buf, &pwp, id, err);
  if (r < 0 || (r = resolve_group (cfg, user, group, pwp, id, err)) < 0)
    return r;
  gid_t all[EBB_AGENT_MAX_GROUPS];
  int n_all = EBB_AGENT_MAX_GROUPS;
  if (!pwp || getgrouplist (pwp->pw_name, id->gid, all, &n_all) < 0)
    {
      all[0] = id->gid; /* no entry, or more than EBB_AGENT_MAX_GROUPS: the primary one only */
      n_all = 1;
    }
  /* Supplementary groups come along only when the allowlist holds them: an allowed user in
   * docker or disk must not bring that group to its tasks. */
  id->n_groups = 0;
  for (int i = 0; i < n_all; i++)
    if (all[i] == id->gid || group_allowed (cfg, pwp, all[i]))
      id->groups[id->n_groups++] = all[i];
  return 0;
}

int
ebb_agent_ident_job_group (const ebb_agent_config *cfg, const char *group, ebb_agent_ident *id,
                           ebb_error **err)
{
  int r = resolve_group (cfg, "of the job", group, NULL, id, err);
  if (r < 0)
    return r;
  id->groups[0] = id->gid;
  id->n_groups = 1;
  return 0;
}

bool
ebb_agent_uid_range (const char *v, uid_t *lo, uid_t *hi)
{
  unsigned long l, h;
  if (!v || !strchr (v, '-') || !entry_ids (v, &l, &h) || l < EBB_AGENT_FIRST_REGULAR_ID
      || h >= 0x7fffffffUL)
    return false;
  *lo = (uid_t)l;
  *hi = (uid_t)h;
  return true;
}

/* Whether a process runs with uid (the owner of /proc/PID is its effective uid). */
static bool
uid_has_process (uid_t uid)
{
  cleanup_dir DIR *d = opendir ("/proc");
  struct dirent *de;
  while (d && (de = readdir (d)))
    {
      struct stat st;
      if (de->d_name[0] >= '1' && de->d_name[0] <= '9'
          && fstatat (dirfd (d), de->d_name, &st, 0) == 0 && st.st_uid == uid)
        return true;
    }
  return false;
}

/* Whether uid (and the gid of the same number) is no one's: no account, no group, no
 * process. */
static bool
uid_is_free (uid_t uid)
{
  struct passwd pw, *pwp = NULL;
  struct group gr, *grp = NULL;
  char buf[4096];
  getpwuid_r (uid, &pw, buf, sizeof buf, &pwp);
  if (pwp)
    return false;
  getgrgid_r ((gid_t)uid, &gr, buf, sizeof buf, &grp);
  return !grp && !uid_has_process (uid);
}

/* FNV-1a of the job's name: where its probe starts. */
static uint32_t
job_hash (const char *job)
{
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)job; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

int
ebb_agent_ident_for_job (const ebb_agent_config *cfg, const char *job, uid_t known,
                         ebb_agent_uid_taken taken, void *ud, ebb_agent_ident *out, ebb_error **err)
{
  uid_t lo, hi;
  if (!ebb_agent_uid_range (cfg->task_uid_range, &lo, &hi))
    return ebb_error_set (err, EBB_EREFUSED, "no task_uid_range");
  uint64_t size = (uint64_t)hi - lo + 1, start = job_hash (job) % size;
  uid_t pick = known >= lo && known <= hi ? known : (uid_t)-1;
  for (uint64_t i = 0; i < size && pick == (uid_t)-1; i++)
    {
      uid_t uid = (uid_t)(lo + (start + i) % size);
      if (!taken (uid, ud) && uid_is_free (uid))
        pick = uid;
    }
  if (pick == (uid_t)-1)
    return ebb_error_set (err, EAGAIN, "task_uid_range %s: every uid is in use",
                          cfg->task_uid_range);
  out->uid = pick;
  out->gid = (gid_t)pick;
  out->groups[0] = (gid_t)pick;
  out->n_groups = 1;
  return 0;
}
