/* Fake /proc and cgroup trees for the suites that test on them (test-cgroup-fake,
 * test-agent-release): files written below a temporary root, parent directories made, and
 * a cgroup context on them. */
#ifndef EBB_TESTS_FAKE_TREE_H
#define EBB_TESTS_FAKE_TREE_H

#include "cgroup/cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Writes content to root/rel, making its directories. Aborts when it cannot (also called
 * from a suite's init, outside any test: no CUnit assertion there). */
static inline void
ebb_fake_put (const char *root, const char *rel, const char *content)
{
  char path[512];
  snprintf (path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen (root) + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        mkdir (path, 0755);
        *p = '/';
      }
  FILE *f = fopen (path, "w");
  if (!f)
    {
      perror (path);
      abort ();
    }
  fputs (content, f);
  fclose (f);
}

/* A fake /proc at root/proc whose mountinfo has cgroup2 mounted at root/cg. */
static inline void
ebb_fake_v2_mount (const char *root)
{
  char mi[1024];
  snprintf (mi, sizeof mi,
            "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
            "40 22 0:38 / %s/cg rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n",
            root);
  ebb_fake_put (root, "proc/self/mountinfo", mi);
}

/* Returns root/rel (a static buffer, overwritten by the next call). */
static inline const char *
ebb_fake_path (const char *root, const char *rel)
{
  static char path[512];
  snprintf (path, sizeof path, "%s/%s", root, rel);
  return path;
}

/* Removes the tree below root and root itself. Returns 0, or 1 when rm failed. */
static inline int
ebb_fake_remove (const char *root)
{
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", root);
  return system (cmd) == 0 ? 0 : 1;
}

/* A cgroup context on the fake tree: /proc at root/proc_rel, the hierarchy at root/cg_rel,
 * neither libcgroup nor systemd, confined to allowed (NULL: no confinement). */
static inline int
ebb_fake_ctx_new (const char *root, const char *proc_rel, const char *cg_rel,
                  const char *const *allowed, ebb_cg_ctx **out, ebb_error **err)
{
  char proc[512], cgroot[512];
  snprintf (proc, sizeof proc, "%s/%s", root, proc_rel);
  snprintf (cgroot, sizeof cgroot, "%s/%s", root, cg_rel);
  ebb_cg_ctx_config cfg;
  ebb_cg_ctx_config_init (&cfg);
  cfg.proc_root = proc;
  cfg.cgroup_root = cgroot;
  cfg.use_libcgroup = 0;
  cfg.use_systemd = 0;
  cfg.allowed_roots = allowed;
  return ebb_cg_ctx_new (&cfg, out, err);
}

#endif
