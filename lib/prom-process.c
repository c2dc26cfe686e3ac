/* The process_* families every Prometheus client library exports (client_golang's
 * process_collector reads the same files), read from procfs on each scrape. */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/prom.h"
#include "lib/util.h"

typedef struct self_stat
{
  uint64_t utime_ticks, stime_ticks, start_ticks, vsize_bytes, rss_pages;
} self_stat;

/* Reads proc_dir/rel into buf (NUL-terminated); returns false when it cannot. */
static bool
read_small (const char *proc_dir, const char *rel, char *buf, size_t size)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", proc_dir, rel);
  cleanup_fclose FILE *f = fopen (path, "re");
  size_t n = f ? fread (buf, 1, size - 1, f) : 0;
  buf[n] = '\0';
  return n > 0;
}

/* /proc/self/stat: the command name may hold spaces and ')' so fields are counted from the
 * last ')'; after it come field 3 (state) onwards. */
static bool
parse_stat (const char *buf, self_stat *st)
{
  const char *p = strrchr (buf, ')');
  if (!p)
    return false;
  unsigned long long v[5];
  int n = sscanf (p + 1,
                  " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
                  "%*d %llu %llu %llu",
                  &v[0], &v[1], &v[2], &v[3], &v[4]);
  if (n != 5)
    return false;
  *st = (self_stat){ v[0], v[1], v[2], v[3], v[4] };
  return true;
}

/* Returns the boot time in seconds since the epoch ("btime" of /proc/stat), 0 if unknown. */
static uint64_t
boot_time_sec (const char *proc_dir)
{
  char path[PATH_MAX], line[256];
  snprintf (path, sizeof path, "%s/stat", proc_dir);
  cleanup_fclose FILE *f = fopen (path, "re");
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, "btime ", 6) == 0)
      return strtoull (line + 6, NULL, 10);
  return 0;
}

/* Returns the number of entries in proc_dir/self/fd, -1 if it cannot be read. */
static long
count_fds (const char *proc_dir)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/self/fd", proc_dir);
  cleanup_dir DIR *d = opendir (path);
  if (!d)
    return -1;
  long n = 0;
  for (struct dirent *e; (e = readdir (d));)
    if (e->d_name[0] != '.')
      n++;
  return n;
}

static void
sample_double (FILE *f, const char *name, const char *help, const char *type, double v)
{
  ebb_prom_head (f, name, help, type);
  fprintf (f, "%s %.2f\n", name, v);
}

static int
put_stat (FILE *f, const char *proc_dir)
{
  char buf[1024];
  self_stat st;
  if (!read_small (proc_dir, "self/stat", buf, sizeof buf) || !parse_stat (buf, &st))
    return 0;
  double tck = (double)sysconf (_SC_CLK_TCK);
  long page = sysconf (_SC_PAGESIZE);
  int n = 3;
  sample_double (f, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                 "counter", (double)(st.utime_ticks + st.stime_ticks) / tck);
  ebb_prom_gauge (f, "process_resident_memory_bytes", "Resident memory size in bytes.",
                  st.rss_pages * (uint64_t)page);
  ebb_prom_gauge (f, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
                  st.vsize_bytes);
  uint64_t btime = boot_time_sec (proc_dir);
  if (btime > 0)
    {
      sample_double (f, "process_start_time_seconds",
                     "Start time of the process since unix epoch in seconds.", "gauge",
                     (double)btime + (double)st.start_ticks / tck);
      n++;
    }
  return n;
}

int
ebb_prom_process (FILE *f, const char *proc_dir)
{
  int n = put_stat (f, proc_dir);
  long fds = count_fds (proc_dir);
  if (fds >= 0)
    {
      ebb_prom_gauge (f, "process_open_fds", "Number of open file descriptors.", (uint64_t)fds);
      n++;
    }
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    {
      ebb_prom_gauge (f, "process_max_fds", "Maximum number of open file descriptors.",
                      (uint64_t)rl.rlim_cur);
      n++;
    }
  return n;
}
