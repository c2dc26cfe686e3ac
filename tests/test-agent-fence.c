/* agent/fence.c: the epoch decision (accepted, raised, refused, unfenced) and its journal in a
 * temporary state directory -- a raised epoch survives a reload (a restarted agent), a failed
 * write leaves the epoch in memory unchanged, and a damaged epoch file refuses to load rather
 * than start at 0 (which would readmit a deposed leader). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/fence.h"
#include "lib/util.h"
#include "tests/cu.h"

static char tmp[] = "/tmp/ebb-agent-fence-XXXXXX";
static int dirfd_ = -1;

static void
put_file (const char *text)
{
  int fd = openat (dirfd_, "epoch", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT (write (fd, text, strlen (text)) == (ssize_t)strlen (text));
  close (fd);
}

static void
test_parse (void)
{
  uint64_t v = 0;
  CU_ASSERT (ebb_agent_fence_parse ("1", &v, NULL) == 0 && v == 1);
  CU_ASSERT (ebb_agent_fence_parse ("9223372036854775807", &v, NULL) == 0
             && v == 9223372036854775807ULL);
  const char *bad[]
      = { "",   "0", "-1", "+1", " 1", "1 ", "0x10", "9223372036854775808", "99999999999999999999",
          "1.5" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_error *err = NULL;
      CU_ASSERT (ebb_agent_fence_parse (bad[i], &v, &err) == -EBB_EPARSE);
      CU_ASSERT (ebb_error_code (&err) == EBB_EPARSE);
      ebb_error_free (&err);
    }
  CU_ASSERT (ebb_agent_fence_parse (NULL, &v, NULL) == -EBB_EPARSE);
}

static void
test_decide (void)
{
  unlinkat (dirfd_, "epoch", 0);
  ebb_agent_fence f = { 0 };
  CU_ASSERT (ebb_agent_fence_load (dirfd_, &f, NULL) == 0 && f.epoch == 0); /* fresh */
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 0, NULL) == EBB_AGENT_FENCE_UNFENCED);
  CU_ASSERT (f.epoch == 0);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 7, NULL) == EBB_AGENT_FENCE_RAISED);
  CU_ASSERT (f.epoch == 7);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 7, NULL) == EBB_AGENT_FENCE_ACCEPTED);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 6, NULL) == EBB_AGENT_FENCE_REFUSED);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 1, NULL) == EBB_AGENT_FENCE_REFUSED);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 0, NULL) == EBB_AGENT_FENCE_UNFENCED);
  CU_ASSERT (f.epoch == 7); /* neither a refusal nor an unfenced call lowers it */
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 12, NULL) == EBB_AGENT_FENCE_RAISED);
  CU_ASSERT (f.counts[EBB_AGENT_FENCE_ACCEPTED] == 1 && f.counts[EBB_AGENT_FENCE_RAISED] == 2
             && f.counts[EBB_AGENT_FENCE_REFUSED] == 2 && f.counts[EBB_AGENT_FENCE_UNFENCED] == 2);
  CU_ASSERT_STRING_EQUAL (ebb_agent_fence_result_name (EBB_AGENT_FENCE_REFUSED), "refused");
}

/* A restarted agent reads back the highest epoch: a lower one stays refused. */
static void
test_replay (void)
{
  unlinkat (dirfd_, "epoch", 0);
  ebb_agent_fence f = { 0 };
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 41, NULL) == EBB_AGENT_FENCE_RAISED);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 40, NULL) == EBB_AGENT_FENCE_REFUSED);
  ebb_agent_fence g = { 0 };
  CU_ASSERT (ebb_agent_fence_load (dirfd_, &g, NULL) == 0);
  CU_ASSERT (g.epoch == 41);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &g, 40, NULL) == EBB_AGENT_FENCE_REFUSED);
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &g, 41, NULL) == EBB_AGENT_FENCE_ACCEPTED);
  struct stat st;
  CU_ASSERT (fstatat (dirfd_, ".epoch.tmp", &st, 0) < 0); /* no leftover of the atomic write */
}

/* The write fails (a directory where the temporary file goes): the call is not admitted and
 * the epoch in memory stays where the disk is. */
static void
test_write_fails (void)
{
  unlinkat (dirfd_, "epoch", 0);
  ebb_agent_fence f = { 0 };
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 5, NULL) == EBB_AGENT_FENCE_RAISED);
  CU_ASSERT_FATAL (mkdirat (dirfd_, ".epoch.tmp", 0700) == 0);
  ebb_error *err = NULL;
  CU_ASSERT (ebb_agent_fence_admit (dirfd_, &f, 9, &err) < 0);
  CU_ASSERT (strstr (ebb_error_msg (&err), "journal epoch 9") != NULL);
  ebb_error_free (&err);
  CU_ASSERT (f.epoch == 5 && f.counts[EBB_AGENT_FENCE_RAISED] == 1);
  unlinkat (dirfd_, ".epoch.tmp", AT_REMOVEDIR);
  ebb_agent_fence g = { 0 };
  CU_ASSERT (ebb_agent_fence_load (dirfd_, &g, NULL) == 0 && g.epoch == 5);
}

/* Damaged files refuse to load (the agent does not start) instead of reading as epoch 0. */
static void
test_damaged (void)
{
  const char *bad[] = { "",
                        "{",
                        "[]",
                        "{\"version\":1}",
                        "{\"epoch\":3}",
                        "{\"version\":2,\"epoch\":3}",
                        "{\"version\":1,\"epoch\":-3}",
                        "{\"version\":1,\"epoch\":\"3\"}" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      put_file (bad[i]);
      ebb_agent_fence f = { .epoch = 99 };
      ebb_error *err = NULL;
      int r = ebb_agent_fence_load (dirfd_, &f, &err);
      CU_ASSERT (r < 0);
      if (r >= 0)
        fprintf (stderr, "loaded %s\n", bad[i]);
      CU_ASSERT (strstr (ebb_error_msg (&err), "epoch") != NULL);
      ebb_error_free (&err);
    }
  put_file ("{\"version\":1,\"epoch\":3}\n");
  ebb_agent_fence f = { 0 };
  CU_ASSERT (ebb_agent_fence_load (dirfd_, &f, NULL) == 0 && f.epoch == 3);
}

static void
test_metrics (void)
{
  ebb_agent_fence f = { .epoch = 17, .counts = { 4, 1, 2, 3 } };
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  ebb_agent_fence_metrics (m, &f);
  fclose (m);
  CU_ASSERT (strstr (buf, "ebb_agent_leader_epoch 17\n") != NULL);
  CU_ASSERT (strstr (buf, "ebb_agent_fence_calls_total{result=\"refused\"} 2\n") != NULL);
  CU_ASSERT (strstr (buf, "ebb_agent_fence_calls_total{result=\"unfenced\"} 3\n") != NULL);
  free (buf);
}

static int
init (void)
{
  if (!mkdtemp (tmp))
    return -1;
  dirfd_ = open (tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return dirfd_ < 0 ? -1 : 0;
}

static int
clean (void)
{
  unlinkat (dirfd_, "epoch", 0);
  close (dirfd_);
  return rmdir (tmp);
}

int
main (void)
{
  static const ebb_cu_test tests[] = {
    EBB_CU_TEST (test_parse),       EBB_CU_TEST (test_decide),  EBB_CU_TEST (test_replay),
    EBB_CU_TEST (test_write_fails), EBB_CU_TEST (test_damaged), EBB_CU_TEST (test_metrics),
  };
  return ebb_cu_run ("agent-fence", init, clean, tests, EBB_ARRAY_SIZE (tests));
}
