/* Process identity (see proc.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/proc.h"
#include "lib/util.h"

/* Returns field 22 of /proc/PID/stat (start time in clock ticks), 0 when gone. */
uint64_t
ebb_agent_pid_starttime (pid_t pid)
{
  char path[64], buf[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", (int)pid);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* The command name may hold spaces and ')': fields restart after the last ')'. */
  char *p = strrchr (buf, ')');
  if (!p)
    return 0;
  unsigned long long v = 0;
  /* After ')': state is field 3, so the start time is the 20th field from there. */
  if (sscanf (p + 2,
              "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
              "%*d %llu",
              &v)
      != 1)
    return 0;
  return v;
}

/* True while pid still names the process we know. */
bool
ebb_agent_pid_is (pid_t pid, uint64_t starttime)
{
  uint64_t st = pid > 0 ? ebb_agent_pid_starttime (pid) : 0;
  return st != 0 && (starttime == 0 || st == starttime);
}
