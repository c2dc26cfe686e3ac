/* Benchmark of libebb-cgroup on a real cgroup (root; `make bench-cgroup`):
 *  - CPU suspend and resume latency through the engine (CPU-only immediate suspend, then
 *    resume), p50/p99 over N operations, beside the raw cost of one write(2) of the same
 *    values to the same file on an already open fd, interleaved in the same run. Target:
 *    engine p50 <= 3x the raw write.
 *  - with --memory MB (cgroup v2 with swap, e.g. in the VM): memory reclaim rate of an
 *    immediate suspend through the engine on a process holding MB of anonymous memory,
 *    beside a raw memory.reclaim of the same size on an identical process, same run.
 * Usage: cgroup-latency [-n OPS] [--memory MB] */
#include "config.h"
#include "cgroup/cgroup-internal.h"
#include "tests/cgroup-live.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t
pct (uint64_t *v, size_t n, double p)
{
  qsort (v, n, sizeof *v, cmp_u64);
  size_t i = (size_t)(p * (double)(n - 1) + 0.5);
  return v[i];
}

static ebb_cg *
bench_cgroup (ebb_cg *self, const char *tag)
{
  char name[64];
  snprintf (name, sizeof name, "ebb-bench-%d-%s", (int)getpid (), tag);
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  if (ebb_cg_create_child (self, name, &cg, &err) < 0)
    {
      fprintf (stderr, "create %s: %s\n", name, ebb_error_msg (&err));
      ebb_error_free (&err);
      return NULL;
    }
  live_track_cgroup (cg);
  return cg;
}

/* One raw write(2) on an open fd, timed in ns. */
static uint64_t
raw_write_nsec (int fd, const char *s)
{
  uint64_t t0 = ebb_now_nsec ();
  ssize_t n = write (fd, s, strlen (s));
  uint64_t t1 = ebb_now_nsec ();
  if (n < 0)
    {
      perror ("raw write");
      exit (1);
    }
  return t1 - t0;
}

static int
bench_cpu (ebb_cg *cg, size_t n)
{
  int v2 = cg->dirfd >= 0;
  int dfd = v2 ? cg->dirfd : cg->ctrl_fd[EBB_CG_CTRL_CPU];
  const char *file = v2 ? "cpu.max" : "cpu.cfs_quota_us";
  const char *low = v2 ? "1000 100000" : "1000", *high = v2 ? "max 100000" : "-1";
  int fd = openat (dfd, file, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return perror (file), 1;
  uint64_t *raw = ebb_xcalloc (2 * n, sizeof *raw), *sus = ebb_xcalloc (n, sizeof *sus),
           *res = ebb_xcalloc (n, sizeof *res);
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  cfg.cpu_only = 1;
  for (size_t i = 0; i < n; i++)
    {
      raw[2 * i] = raw_write_nsec (fd, low);
      raw[2 * i + 1] = raw_write_nsec (fd, high);
      ebb_cg_result r;
      ebb_error *err = NULL;
      uint64_t t0 = ebb_now_nsec ();
      int a = ebb_cg_suspend (cg, &cfg, &r, &err);
      uint64_t t1 = ebb_now_nsec ();
      int b = a < 0 ? a : ebb_cg_resume (cg, &cfg, &r, &err);
      uint64_t t2 = ebb_now_nsec ();
      if (a < 0 || b < 0)
        {
          fprintf (stderr, "engine: %s\n", ebb_error_msg (&err));
          return 1;
        }
      sus[i] = t1 - t0;
      res[i] = t2 - t1;
    }
  close (fd);
  uint64_t w50 = pct (raw, 2 * n, 0.5), w99 = pct (raw, 2 * n, 0.99);
  uint64_t s50 = pct (sus, n, 0.5), s99 = pct (sus, n, 0.99);
  uint64_t r50 = pct (res, n, 0.5), r99 = pct (res, n, 0.99);
  printf ("cgroup %s (%s backend), %zu operations each, interleaved:\n", cg->path,
          ebb_cg_backend_name (ebb_cg_backend (cg)), n);
  printf ("  raw write(2) %-16s p50 %7.1f µs  p99 %7.1f µs\n", file, w50 / 1e3, w99 / 1e3);
  printf ("  engine CPU suspend       p50 %7.1f µs  p99 %7.1f µs  (p50 %.2fx raw, p99 %.2fx)\n",
          s50 / 1e3, s99 / 1e3, (double)s50 / (double)w50, (double)s99 / (double)w99);
  printf ("  engine CPU resume        p50 %7.1f µs  p99 %7.1f µs  (p50 %.2fx raw, p99 %.2fx)\n",
          r50 / 1e3, r99 / 1e3, (double)r50 / (double)w50, (double)r99 / (double)w99);
  int ok = s50 <= 3 * w50 && r50 <= 3 * w50;
  printf ("  target engine <= 3x raw write (p50): %s\n", ok ? "met" : "NOT met");
  free (raw);
  free (sus);
  free (res);
  return 0;
}

/* Starts a holder of mb MiB in cg; returns its pid or -1. */
static pid_t
holder_in (ebb_cg *cg, size_t mb)
{
  live_child h;
  if (live_spawn (&h, mb << 20) < 0 || ebb_cg_attach_pid (cg, h.pid, NULL) < 0
      || live_start (&h) < 0)
    return -1;
  return h.pid;
}

static uint64_t
current (ebb_cg *cg)
{
  ebb_cg_stats st;
  return ebb_cg_read_stats (cg, &st, NULL) < 0 ? 0 : st.memory_current_bytes;
}

static int
bench_memory (ebb_cg *self, size_t mb)
{
  ebb_cg *a = bench_cgroup (self, "mem-engine"), *b = bench_cgroup (self, "mem-raw");
  if (!a || !b || a->dirfd < 0)
    return fprintf (stderr, "memory benchmark needs cgroup v2\n"), 1;
  pid_t pa = holder_in (a, mb), pb = holder_in (b, mb);
  if (pa < 0 || pb < 0)
    return fprintf (stderr, "holders did not start\n"), 1;
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  ebb_cg_result r;
  ebb_error *err = NULL;
  uint64_t t0 = ebb_now_usec ();
  if (ebb_cg_suspend (a, &cfg, &r, &err) < 0)
    return fprintf (stderr, "suspend: %s\n", ebb_error_msg (&err)), 1;
  uint64_t eng_usec = ebb_now_usec () - t0;
  uint64_t before = current (b);
  char size[32];
  snprintf (size, sizeof size, "%llu", (unsigned long long)r.reclaimed_bytes);
  t0 = ebb_now_usec ();
  int rr = ebb_cg_write_at (b->dirfd, "memory.reclaim", size, NULL);
  uint64_t raw_usec = ebb_now_usec () - t0;
  uint64_t raw_bytes = before > current (b) ? before - current (b) : 0;
  printf ("memory: %zu MiB holders, engine immediate suspend vs raw memory.reclaim:\n", mb);
  printf ("  engine  reclaimed %6.1f MB in %7.1f ms: %7.1f MB/s\n", r.reclaimed_bytes / 1e6,
          eng_usec / 1e3, r.reclaimed_bytes / 1e6 / (eng_usec / 1e6));
  printf ("  raw     reclaimed %6.1f MB in %7.1f ms: %7.1f MB/s (write returned %d)\n",
          raw_bytes / 1e6, raw_usec / 1e3, raw_bytes / 1e6 / (raw_usec / 1e6), rr);
  ebb_cg_resume (a, &cfg, &r, NULL);
  live_kill (pa);
  live_kill (pb);
  return 0;
}

int
main (int argc, char **argv)
{
  size_t n = 1000, mb = 0;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-n") == 0 && i + 1 < argc)
      n = strtoul (argv[++i], NULL, 10);
    else if (strcmp (argv[i], "--memory") == 0 && i + 1 < argc)
      mb = strtoul (argv[++i], NULL, 10);
  if (n < 1 || geteuid () != 0)
    return fprintf (stderr, "needs root and -n >= 1\n"), 2;
  ebb_cg_ctx *ctx = NULL;
  ebb_cg *self = NULL;
  ebb_error *err = NULL;
  ebb_cg_ctx_config cfg;
  ebb_cg_ctx_config_init (&cfg);
  cfg.use_systemd = 0;
  if (ebb_cg_ctx_new (&cfg, &ctx, &err) < 0
      || ebb_cg_open_pid (ctx, 0, EBB_CG_OPEN_FILES_ONLY, &self, &err) < 0)
    return fprintf (stderr, "%s\n", ebb_error_msg (&err)), 1;
  int rc = 1;
  ebb_cg *cg = bench_cgroup (self, "cpu");
  if (cg)
    rc = bench_cpu (cg, n);
  if (rc == 0 && mb)
    rc = bench_memory (self, mb);
  live_cleanup_all ();
  ebb_cg_close (self);
  ebb_cg_ctx_free (ctx);
  return rc;
}
