#include "config.h"
#include "lib/file.h"
#include "lib/util.h"
#include "tests/cu.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

static void
test_id_validation (void)
{
  CU_ASSERT_TRUE (ebb_id_is_valid ("web-1", 64));
  CU_ASSERT_TRUE (ebb_id_is_valid ("a.b_c-D9", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid ("", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid (NULL, 64));
  CU_ASSERT_FALSE (ebb_id_is_valid ("..", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid (".", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid ("a/b", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid ("a b", 64));
  CU_ASSERT_FALSE (ebb_id_is_valid ("é", 64));
  char long_id[66];
  memset (long_id, 'x', 65);
  long_id[65] = '\0';
  CU_ASSERT_FALSE (ebb_id_is_valid (long_id, 64));
  long_id[64] = '\0';
  CU_ASSERT_TRUE (ebb_id_is_valid (long_id, 64));
}

static int closed_fd = -2;

static void
test_cleanup_closes_and_steal_keeps (void)
{
  int kept;
  {
    cleanup_close int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    CU_ASSERT_FATAL (fd >= 0);
    closed_fd = fd;
  }
  CU_ASSERT_EQUAL (fcntl (closed_fd, F_GETFD), -1); /* closed by the cleanup attribute */
  {
    cleanup_close int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    kept = ebb_steal_fd (&fd);
    CU_ASSERT_EQUAL (fd, -1);
  }
  CU_ASSERT (fcntl (kept, F_GETFD) >= 0);
  close (kept);
  char *owned;
  {
    cleanup_free char *s = ebb_xasprintf ("%d-%s", 5, "x");
    owned = ebb_steal_ptr (&s);
    CU_ASSERT_PTR_NULL (s);
  }
  CU_ASSERT_STRING_EQUAL (owned, "5-x");
  free (owned);
}

/* The daemon's signals are blocked (SIGCHLD only when asked) and SIGPIPE ignored. */
static void
test_daemon_block_signals (void)
{
  sigset_t none, old, now;
  sigemptyset (&none);
  CU_ASSERT_FATAL (sigprocmask (SIG_SETMASK, &none, &old) == 0);
  struct sigaction old_pipe;
  CU_ASSERT_FATAL (sigaction (SIGPIPE, NULL, &old_pipe) == 0);
  for (int children = 0; children < 2; children++)
    {
      sigprocmask (SIG_SETMASK, &none, NULL);
      signal (SIGPIPE, SIG_DFL);
      ebb_daemon_block_signals (children);
      CU_ASSERT_FATAL (sigprocmask (SIG_SETMASK, NULL, &now) == 0);
      CU_ASSERT (sigismember (&now, SIGTERM) && sigismember (&now, SIGINT)
                 && sigismember (&now, SIGHUP));
      CU_ASSERT_EQUAL (sigismember (&now, SIGCHLD), children);
      CU_ASSERT_FALSE (sigismember (&now, SIGUSR1));
      struct sigaction sa;
      CU_ASSERT (sigaction (SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN);
    }
  sigaction (SIGPIPE, &old_pipe, NULL);
  sigprocmask (SIG_SETMASK, &old, NULL);
}

static void
test_grow_cap (void)
{
  CU_ASSERT_EQUAL (ebb_grow_cap (0, 16, 1), 16);
  CU_ASSERT_EQUAL (ebb_grow_cap (0, 16, 17), 32);
  CU_ASSERT_EQUAL (ebb_grow_cap (64, 16, 64), 64);
  CU_ASSERT_EQUAL (ebb_grow_cap (64, 16, 65), 128);
  CU_ASSERT_EQUAL (ebb_grow_cap (3, 16, 100), 192);
}

/* Returns the text of dirfd/name (static buffer), or NULL. */
static const char *
read_small (int dirfd, const char *name)
{
  static char buf[256];
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return buf;
}

static void
test_file_write_atomic (void)
{
  char dir[] = "/tmp/ebb-test-file-XXXXXX";
  CU_ASSERT_FATAL (mkdtemp (dir) != NULL);
  cleanup_close int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CU_ASSERT_FATAL (dfd >= 0);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_file_write_atomic (dfd, "a", "one\n", &err), 0);
  CU_ASSERT_EQUAL (ebb_file_write_atomic (dfd, "a", "two\n", &err), 0);
  CU_ASSERT_STRING_EQUAL (read_small (dfd, "a"), "two\n");
  /* keep_fd: renamed, the descriptor handed over for a later fsync. */
  int fd = -1;
  CU_ASSERT_EQUAL (ebb_file_write_atomic_fd (dfd, "b", "b\n", &fd, &err), 0);
  CU_ASSERT (fd >= 0);
  CU_ASSERT_EQUAL (fsync (fd), 0);
  close (fd);
  CU_ASSERT_STRING_EQUAL (read_small (dfd, "b"), "b\n");
  /* A failed rename (the final name is a non-empty directory) leaves no temp file. */
  CU_ASSERT_EQUAL (mkdirat (dfd, "c", 0700), 0);
  int xfd = openat (dfd, "c/x", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  CU_ASSERT (xfd >= 0);
  close (xfd);
  CU_ASSERT (ebb_file_write_atomic (dfd, "c", "lost\n", &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
  CU_ASSERT (faccessat (dfd, ".c.tmp", F_OK, 0) < 0 && errno == ENOENT);
  /* The same through a path, as the controller writes its epoch file. */
  cleanup_free char *path = ebb_xasprintf ("%s/c", dir);
  CU_ASSERT (ebb_file_write_atomic_path (path, "lost\n", &err) < 0);
  ebb_error_free (&err);
  CU_ASSERT (faccessat (dfd, ".c.tmp", F_OK, 0) < 0 && errno == ENOENT);
  cleanup_free char *apath = ebb_xasprintf ("%s/a", dir);
  CU_ASSERT_EQUAL (ebb_file_write_atomic_path (apath, "three\n", &err), 0);
  CU_ASSERT_STRING_EQUAL (read_small (dfd, "a"), "three\n");
  unlinkat (dfd, "c/x", 0);
  unlinkat (dfd, "c", AT_REMOVEDIR);
  unlinkat (dfd, "a", 0);
  unlinkat (dfd, "b", 0);
  rmdir (dir);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_grow_cap),
  EBB_CU_TEST (test_file_write_atomic),
  EBB_CU_TEST (test_daemon_block_signals),
  EBB_CU_TEST (test_id_validation),
  EBB_CU_TEST (test_cleanup_closes_and_steal_keeps),
};
EBB_CU_MAIN ("util", NULL, NULL, tests)
