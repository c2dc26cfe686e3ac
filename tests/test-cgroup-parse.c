/* Parsers of kernel cgroup files, on well-formed and hostile input: truncated lines, numbers
 * past 2^64, garbage, embedded NULs cut short, missing fields. */
#include "config.h"
#include "cgroup/cgroup.h"
#include "tests/cu.h"

#include <math.h>

static void
test_cpu_max (void)
{
  uint64_t q = 1, p = 1;
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("max 100000\n", &q, &p, NULL), 0);
  CU_ASSERT_EQUAL (q, EBB_CG_MAX);
  CU_ASSERT_EQUAL (p, 100000);
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("1000 100000\n", &q, &p, NULL), 0);
  CU_ASSERT_EQUAL (q, 1000);
  CU_ASSERT_EQUAL (p, 100000);
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("50000", &q, &p, NULL), 0); /* period absent */
  CU_ASSERT_EQUAL (q, 50000);
  CU_ASSERT_EQUAL (p, 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("max", &q, &p, NULL), 0);
  CU_ASSERT_EQUAL (q, EBB_CG_MAX);
}

static void
test_cpu_max_hostile (void)
{
  uint64_t q = 7, p = 7;
  ebb_error *err = NULL;
  static const char *const bad[] = {
    "",
    "\n",
    "maxi 100000",
    "-1 100000",
    "1000 -5",
    "1000 100x",
    "1000 100000 7",
    "garbage",
    "1000  ",
    "m",
    "max 1e5",
    " \t",
    "18446744073709551615 1" /* aliases max */,
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      int r = ebb_cg_parse_cpu_max (bad[i], &q, &p, &err);
      if (strcmp (bad[i], "1000  ") == 0)
        {
          CU_ASSERT_EQUAL (r, 0); /* trailing blanks are fine */
          continue;
        }
      CU_ASSERT_TRUE (r < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
    }
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("99999999999999999999999 100000", &q, &p, &err),
                   -EBB_ERANGE);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ERANGE);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("100 18446744073709551616", &q, &p, NULL), -EBB_ERANGE);
  /* the largest representable value that is not "max" parses */
  CU_ASSERT_EQUAL (ebb_cg_parse_cpu_max ("18446744073709551614 1000", &q, &p, NULL), 0);
  CU_ASSERT_EQUAL (q, UINT64_MAX - 1);
}

static void
test_u64_or_max (void)
{
  uint64_t v = 0;
  CU_ASSERT_EQUAL (ebb_cg_parse_u64_or_max ("max\n", &v, NULL), 0);
  CU_ASSERT_EQUAL (v, EBB_CG_MAX);
  CU_ASSERT_EQUAL (ebb_cg_parse_u64_or_max ("67108864\n", &v, NULL), 0);
  CU_ASSERT_EQUAL (v, 67108864);
  CU_ASSERT_EQUAL (ebb_cg_parse_u64_or_max ("0", &v, NULL), 0);
  CU_ASSERT_EQUAL (v, 0);
  CU_ASSERT_TRUE (ebb_cg_parse_u64_or_max ("", &v, NULL) < 0);
  CU_ASSERT_TRUE (ebb_cg_parse_u64_or_max ("-1", &v, NULL) < 0);
  CU_ASSERT_TRUE (ebb_cg_parse_u64_or_max ("12 34", &v, NULL) < 0);
  CU_ASSERT_TRUE (ebb_cg_parse_u64_or_max ("maxx", &v, NULL) < 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_u64_or_max ("184467440737095516150", &v, NULL), -EBB_ERANGE);
  CU_ASSERT_EQUAL (ebb_cg_parse_u64_or_max ("18446744073709551615", &v, NULL), -EBB_ERANGE);
}

static const char memory_stat[] = "anon 314572800\n"
                                  "file 4096\n"
                                  "kernel 1234\n"
                                  "anon_thp 0\n"
                                  "pgfault 100\n"
                                  "pgmajfault 7\n"
                                  "workingset_refault_anon 3\n";

static void
test_keyed (void)
{
  uint64_t v = 0;
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "anon", &v, NULL), 1);
  CU_ASSERT_EQUAL (v, 314572800);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "file", &v, NULL), 1);
  CU_ASSERT_EQUAL (v, 4096);
  /* "pgfault" must not match "pgmajfault"'s line and vice versa; prefixes do not match */
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "pgmajfault", &v, NULL), 1);
  CU_ASSERT_EQUAL (v, 7);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "pgfault", &v, NULL), 1);
  CU_ASSERT_EQUAL (v, 100);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "anon_", &v, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "workingset", &v, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed (memory_stat, "", &v, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("", "anon", &v, NULL), 0);
  /* cgroup.events / memory.events / v1 oom_control */
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("populated 1\nfrozen 0\n", "frozen", &v, NULL), 1);
  CU_ASSERT_EQUAL (v, 0);
  CU_ASSERT_EQUAL (
      ebb_cg_parse_keyed ("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill", &v, NULL),
      1);
  CU_ASSERT_EQUAL (v, 2);
  /* v1 cpu.stat */
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("nr_periods 10\nnr_throttled 9\nthrottled_time 5000\n",
                                       "throttled_time", &v, NULL),
                   1);
  CU_ASSERT_EQUAL (v, 5000);
}

static void
test_keyed_hostile (void)
{
  uint64_t v = 42;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon \n", "anon", &v, &err), -EBB_EPARSE);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon -3\n", "anon", &v, NULL), -EBB_EPARSE);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon 12abc\n", "anon", &v, NULL), -EBB_EPARSE);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon 99999999999999999999\n", "anon", &v, NULL),
                   -EBB_ERANGE);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon 12", "anon", &v, NULL), 1); /* truncated: no \n */
  CU_ASSERT_EQUAL (v, 12);
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("anon", "anon", &v, NULL), 0); /* key without value */
  CU_ASSERT_EQUAL (ebb_cg_parse_keyed ("xanon 5\n", "anon", &v, NULL), 0);
  CU_ASSERT_EQUAL (v, 12);
}

static void
test_psi (void)
{
  ebb_cg_psi psi;
  const char *s = "some avg10=12.50 avg60=3.00 avg300=0.10 total=123456\n"
                  "full avg10=0.05 avg60=0.00 avg300=0.00 total=789\n";
  CU_ASSERT_EQUAL (ebb_cg_parse_psi (s, &psi, NULL), 0);
  CU_ASSERT_DOUBLE_EQUAL (psi.some_avg10, 12.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (psi.full_avg10, 0.05, 1e-9);
  CU_ASSERT_EQUAL (psi.some_total_usec, 123456);
  CU_ASSERT_EQUAL (psi.full_total_usec, 789);
  /* cpu.pressure on older kernels: "some" only */
  CU_ASSERT_EQUAL (ebb_cg_parse_psi ("some avg10=100.00 avg60=0 avg300=0 total=1\n", &psi, NULL),
                   0);
  CU_ASSERT_DOUBLE_EQUAL (psi.some_avg10, 100.0, 1e-9);
  CU_ASSERT_EQUAL (psi.full_total_usec, 0);
}

static void
test_psi_hostile (void)
{
  ebb_cg_psi psi;
  static const char *const bad[] = {
    "",
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", /* no some */
    "some avg10=0.00 avg60=0.00 avg300=0.00\n",         /* no total */
    "some avg60=0.00 total=1\n",                        /* no avg10 */
    "some avg10=abc avg60=0.00 avg300=0.00 total=1\n",  /* garbage */
    "some avg10=1. total=1\n",                          /* truncated decimal */
    "some avg10=1.00 avg60=0.00 avg300=0.00 total=\n",  /* truncated total */
    "some avg10=101.00 total=1\n",                      /* over 100% */
    "some avg10=1.00 total=99999999999999999999999\n",  /* overflow */
    "some avg10=1.00 total=5x\n",                       /* trailing junk */
    "some avg10=1.00 total=5\nbogus line\n",            /* unknown line */
    "some avg10 total=5\n",                             /* no '=' */
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_error *err = NULL;
      int r = ebb_cg_parse_psi (bad[i], &psi, &err);
      CU_ASSERT_TRUE (r == -EBB_EPARSE || r == -EBB_ERANGE);
      if (r >= 0)
        printf ("accepted bad PSI input %zu: %s\n", i, bad[i]);
      ebb_error_free (&err);
    }
  /* a very long fraction is accepted and rounded, not overflowed */
  CU_ASSERT_EQUAL (ebb_cg_parse_psi ("some avg10=1.123456789012345678901234 total=1\n", &psi, NULL),
                   0);
  CU_ASSERT_TRUE (fabs (psi.some_avg10 - 1.123456) < 1e-5);
}

static void
test_freezer_state (void)
{
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("THAWED\n", NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("FREEZING\n", NULL), 1);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("FROZEN\n", NULL), 2);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("FROZE", NULL), -EBB_EPARSE);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("FROZENX\n", NULL), -EBB_EPARSE);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("", NULL), -EBB_EPARSE);
  CU_ASSERT_EQUAL (ebb_cg_parse_freezer_state ("frozen\n", NULL), -EBB_EPARSE);
}

static void
test_proc_cgroup (void)
{
  const char *hybrid = "12:pids:/\n"
                       "4:memory:/process_api/abc\n"
                       "3:cpu,cpuacct:/ebb/t1\n"
                       "1:name=systemd:/\n"
                       "0::/user.slice/x.scope\n";
  char *p = NULL;
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup (hybrid, "memory", &p, NULL), 1);
  CU_ASSERT_STRING_EQUAL (p, "/process_api/abc");
  free (p);
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup (hybrid, "cpuacct", &p, NULL), 1);
  CU_ASSERT_STRING_EQUAL (p, "/ebb/t1");
  free (p);
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup (hybrid, NULL, &p, NULL), 1);
  CU_ASSERT_STRING_EQUAL (p, "/user.slice/x.scope");
  free (p);
  /* "cpu" is not "cpuset"; "freezer" absent */
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup ("5:cpuset:/a\n", "cpu", &p, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup (hybrid, "freezer", &p, NULL), 0);
  /* a path with spaces and colons survives (only the first two colons split) */
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup ("0::/a b:c\n", "", &p, NULL), 1);
  CU_ASSERT_STRING_EQUAL (p, "/a b:c");
  free (p);
  /* truncated: no newline at the end */
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup ("0::/x", NULL, &p, NULL), 1);
  CU_ASSERT_STRING_EQUAL (p, "/x");
  free (p);
}

static void
test_proc_cgroup_hostile (void)
{
  static const char *const bad[] = {
    "garbage\n",
    "4:memory\n",
    ":memory:/x\n",
    "x:memory:/x\n",
    "4:memory:relative\n",
    "4:memory:\n",
    "99999999999999999999999:memory:/a\n",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      char *p = NULL;
      ebb_error *err = NULL;
      CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup (bad[i], "memory", &p, &err), -EBB_EPARSE);
      CU_ASSERT_PTR_NULL (p);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
    }
  char *p = NULL;
  CU_ASSERT_EQUAL (ebb_cg_parse_proc_cgroup ("", "memory", &p, NULL), 0);
}

static const char mountinfo[]
    = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
      "35 31 0:32 /sub /sys/fs/cgroup/mem\\040ory rw - cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n";

static void
test_mountinfo (void)
{
  ebb_cg_mount *m = NULL;
  int n = ebb_cg_parse_mountinfo (mountinfo, &m, NULL);
  CU_ASSERT_EQUAL_FATAL (n, 4);
  CU_ASSERT_STRING_EQUAL (m[0].mount_point, "/sys/fs/cgroup/cpu");
  CU_ASSERT_TRUE (ebb_cg_mount_has_controller (&m[0], "cpu"));
  CU_ASSERT_FALSE (ebb_cg_mount_has_controller (&m[1], "cpu")); /* cpuset */
  CU_ASSERT_TRUE (ebb_cg_mount_has_controller (&m[1], "cpuset"));
  CU_ASSERT_STRING_EQUAL (m[2].mount_point, "/sys/fs/cgroup/mem ory"); /* \040 unescaped */
  CU_ASSERT_STRING_EQUAL (m[2].root, "/sub");
  CU_ASSERT_TRUE (m[3].v2);
  CU_ASSERT_FALSE (m[2].v2);
  CU_ASSERT_FALSE (ebb_cg_mount_has_controller (&m[3], "cpu"));
  ebb_cg_mounts_free (m, n);
  CU_ASSERT_EQUAL (ebb_cg_parse_mountinfo ("", &m, NULL), 0);
  ebb_cg_mounts_free (m, 0);
}

static void
test_mountinfo_hostile (void)
{
  static const char *const bad[] = {
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup\n", /* truncated after fstype */
    "32 31 0:29 / /x rw - cgroup cgroup\n",                   /* no super options */
    "32 31 0:29 / /x rw cgroup cgroup rw,cpu\n",              /* no separator */
    "garbage\n",
    "1 2 3\n",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_cg_mount *m = (ebb_cg_mount *)1;
      ebb_error *err = NULL;
      CU_ASSERT_EQUAL (ebb_cg_parse_mountinfo (bad[i], &m, &err), -EBB_EPARSE);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
    }
  /* a non-cgroup line is not inspected beyond its type (odd sources elsewhere must not
   * break discovery); a bad cgroup line after good ones still fails */
  ebb_cg_mount *m = NULL;
  CU_ASSERT_EQUAL (ebb_cg_parse_mountinfo ("22 1 8:1 / / rw - ext4\n", &m, NULL), 0);
  ebb_cg_mounts_free (m, 0);
  CU_ASSERT_EQUAL (
      ebb_cg_parse_mountinfo ("1 1 0:1 / /a rw - cgroup2 cgroup2 rw\n1 1 0:1 / /b rw - cgroup2\n",
                              &m, NULL),
      -EBB_EPARSE);
  /* a bad escape is kept literally */
  int n = ebb_cg_parse_mountinfo ("1 1 0:1 / /a\\9zz rw - cgroup2 cgroup2 rw\n", &m, NULL);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_STRING_EQUAL (m[0].mount_point, "/a\\9zz");
  ebb_cg_mounts_free (m, n);
  /* a very long line of fields does not overflow the field table */
  char *big = ebb_xmalloc (200 * 6 + 64);
  char *o = big;
  for (int i = 0; i < 200; i++)
    o += sprintf (o, "x%d ", i);
  strcpy (o, "\n");
  CU_ASSERT_EQUAL (ebb_cg_parse_mountinfo (big, &m, NULL), -EBB_EPARSE);
  free (big);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_cpu_max),       EBB_CU_TEST (test_cpu_max_hostile),
  EBB_CU_TEST (test_u64_or_max),    EBB_CU_TEST (test_keyed),
  EBB_CU_TEST (test_keyed_hostile), EBB_CU_TEST (test_psi),
  EBB_CU_TEST (test_psi_hostile),   EBB_CU_TEST (test_freezer_state),
  EBB_CU_TEST (test_proc_cgroup),   EBB_CU_TEST (test_proc_cgroup_hostile),
  EBB_CU_TEST (test_mountinfo),     EBB_CU_TEST (test_mountinfo_hostile),
};

EBB_CU_MAIN ("cgroup-parse", NULL, NULL, tests)
