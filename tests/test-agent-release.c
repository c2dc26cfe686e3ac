/* agent/release.c on a fake cgroup v2 tree: a cgroup whose directory refuses rmdir (a file
 * in it: ENOTEMPTY, as a busy cgroup's EBUSY) is retried from a timer that kills what is
 * listed in it before each try, keeps retrying until the directory goes, and frees its state
 * when the loop is freed with a retry pending (LeakSanitizer and the open-fd count check it).
 * An adopted task's cgroup is only closed. */
#include "config.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/context.h"
#include "agent/release.h"
#include "lib/util.h"
#include "tests/cu.h"
#include "tests/fake-tree.h"

static char tmp[] = "/tmp/ebb-agent-release-XXXXXX";

static void
put (const char *rel, const char *content)
{
  ebb_fake_put (tmp, rel, content);
}

static bool
exists (const char *rel)
{
  struct stat st;
  return stat (ebb_fake_path (tmp, rel), &st) == 0;
}

static int
open_fds (void)
{
  int n = 0;
  DIR *d = opendir ("/proc/self/fd");
  if (!d)
    return -1;
  while (readdir (d))
    n++;
  closedir (d);
  return n;
}

static int
init (void)
{
  if (!mkdtemp (tmp))
    return 1;
  ebb_fake_v2_mount (tmp);
  put ("proc/meminfo", "MemTotal: 100 kB\nSwapTotal: 0 kB\n");
  put ("cg/cgroup.controllers", "cpu memory\n");
  put ("cg/cgroup.subtree_control", "\n");
  put ("cg/p/cgroup.controllers", "cpu memory\n");
  put ("cg/p/cgroup.subtree_control", "\n");
  return 0;
}

static int
clean (void)
{
  return ebb_fake_remove (tmp);
}

/* A daemon context with just what release.c uses: the loop and the cgroup context. */
typedef struct fixture
{
  ebb_agent a;
  ebb_cg *parent;
  ebb_agent_task *t;
} fixture;

static void
setup (fixture *f, const char *id, ebb_agent_source source)
{
  memset (f, 0, sizeof *f);
  CU_ASSERT_EQUAL_FATAL (ebb_fake_ctx_new (tmp, "proc", "cg", NULL, &f->a.cg_ctx, NULL), 0);
  CU_ASSERT_EQUAL_FATAL (sd_event_new (&f->a.event), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (f->a.cg_ctx, "/p", 0, &f->parent, NULL), 0);
  f->t = ebb_agent_task_new (id);
  f->t->owner = &f->a;
  f->t->source = source;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_create_child (f->parent, id, &f->t->cg, NULL), 0);
  f->t->cgroup = ebb_xstrdup (ebb_cg_path (f->t->cg));
}

static void
teardown (fixture *f)
{
  ebb_agent_task_free (f->t);
  ebb_cg_close (f->parent);
  sd_event_unref (f->a.event);
  ebb_cg_ctx_free (f->a.cg_ctx);
}

/* Runs the loop for up to usec or until done() holds. */
static bool
run_until (fixture *f, uint64_t usec, bool (*done) (void *), void *ud)
{
  for (uint64_t waited = 0; waited < usec; waited += 10000)
    {
      if (done && done (ud))
        return true;
      sd_event_run (f->a.event, 10000);
    }
  return done && done (ud);
}

static bool
gone (void *rel)
{
  return !exists (rel);
}

static void
test_first_pid (void)
{
  fixture f;
  setup (&f, "fp", EBB_AGENT_SRC_LAUNCHED);
  CU_ASSERT_EQUAL (ebb_agent_cgroup_first_pid (&f.a, "/p/fp"), 0); /* no cgroup.procs */
  put ("cg/p/fp/cgroup.procs", "4242\n4243\n");
  CU_ASSERT_EQUAL (ebb_agent_cgroup_first_pid (&f.a, "/p/fp"), 4242);
  unlink (ebb_fake_path (tmp, "cg/p/fp/cgroup.procs"));
  ebb_cg_remove (f.t->cg, NULL);
  ebb_cg_close (f.t->cg);
  teardown (&f);
}

/* The retry kills what appears in the cgroup, and its state goes with the loop. */
static void
test_retry_kills_and_frees_with_loop (void)
{
  fixture f;
  int fds0 = open_fds ();
  setup (&f, "r1", EBB_AGENT_SRC_LAUNCHED);
  put ("cg/p/r1/cgroup.procs", ""); /* the directory is not empty: rmdir refuses */
  ebb_agent_release_cgroup (&f.a, f.t, true);
  CU_ASSERT_PTR_NULL (f.t->cg);
  CU_ASSERT_TRUE (exists ("cg/p/r1"));
  pid_t pid = fork ();
  if (pid == 0)
    {
      pause ();
      _exit (0);
    }
  CU_ASSERT_TRUE_FATAL (pid > 0);
  char line[32];
  snprintf (line, sizeof line, "%d\n", (int)pid);
  put ("cg/p/r1/cgroup.procs", line);
  int status = 0;
  pid_t w = 0;
  for (int i = 0; i < 100 && w == 0; i++)
    {
      sd_event_run (f.a.event, 10000);
      w = waitpid (pid, &status, WNOHANG);
    }
  if (w == 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      CU_FAIL ("the retry did not kill the process listed in the cgroup");
    }
  else
    CU_ASSERT_TRUE (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  put ("cg/p/r1/cgroup.procs", "");
  CU_ASSERT_TRUE (exists ("cg/p/r1")); /* still retrying */
  teardown (&f);                       /* the loop goes with a retry pending */
  CU_ASSERT_EQUAL (open_fds (), fds0); /* the retry's cgroup handle was closed */
  unlink (ebb_fake_path (tmp, "cg/p/r1/cgroup.procs"));
  rmdir (ebb_fake_path (tmp, "cg/p/r1"));
}

/* The timer keeps retrying (it is one-shot: re-armed each time) until rmdir succeeds. */
static void
test_retry_until_removed (void)
{
  fixture f;
  int fds0 = open_fds ();
  setup (&f, "r2", EBB_AGENT_SRC_LAUNCHED);
  put ("cg/p/r2/cgroup.procs", "");
  ebb_agent_release_cgroup (&f.a, f.t, false);
  CU_ASSERT_FALSE (run_until (&f, 300000, gone, "cg/p/r2")); /* several tries: still busy */
  unlink (ebb_fake_path (tmp, "cg/p/r2/cgroup.procs"));
  CU_ASSERT_TRUE (run_until (&f, 1000000, gone, "cg/p/r2"));
  teardown (&f);
  CU_ASSERT_EQUAL (open_fds (), fds0);
}

/* An adopted task's cgroup is not ours to remove: closed only. */
static void
test_adopted_closed_only (void)
{
  fixture f;
  int fds0 = open_fds ();
  setup (&f, "ad", EBB_AGENT_SRC_CGROUP);
  ebb_agent_release_cgroup (&f.a, f.t, true);
  CU_ASSERT_PTR_NULL (f.t->cg);
  CU_ASSERT_TRUE (exists ("cg/p/ad"));
  teardown (&f);
  CU_ASSERT_EQUAL (open_fds (), fds0);
  rmdir (ebb_fake_path (tmp, "cg/p/ad"));
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_first_pid),
  EBB_CU_TEST (test_retry_kills_and_frees_with_loop),
  EBB_CU_TEST (test_retry_until_removed),
  EBB_CU_TEST (test_adopted_closed_only),
};

EBB_CU_MAIN ("agent-release", init, clean, tests)
