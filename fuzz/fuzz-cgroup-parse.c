/* libFuzzer target: the cgroup file parsers (cgroup/parse.c): cpu.max, single values, keyed
 * files (memory.stat, cpu.stat), PSI, freezer.state, /proc/PID/cgroup, mountinfo. The first
 * byte picks the parser, the rest is the file's text. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  /* The kernel's files are text: the parsers take NUL-terminated strings. */
  char *s = malloc (size);
  memcpy (s, data + 1, size - 1);
  s[size - 1] = '\0';
  ebb_error *err = NULL;
  uint64_t a = 0, b = 0;
  char *path = NULL;
  switch (data[0] % 8)
    {
    case 0:
      ebb_cg_parse_cpu_max (s, &a, &b, &err);
      break;
    case 1:
      ebb_cg_parse_u64_or_max (s, &a, &err);
      break;
    case 2:
      ebb_cg_parse_keyed (s, "usage_usec", &a, &err);
      ebb_error_free (&err);
      ebb_cg_parse_keyed (s, "anon", &a, &err);
      break;
    case 3:
      {
        ebb_cg_psi psi;
        ebb_cg_parse_psi (s, &psi, &err);
        break;
      }
    case 4:
      ebb_cg_parse_freezer_state (s, &err);
      break;
    case 5:
      ebb_cg_parse_proc_cgroup (s, "memory", &path, &err);
      free (path);
      path = NULL;
      ebb_error_free (&err);
      ebb_cg_parse_proc_cgroup (s, NULL, &path, &err);
      break;
    default:
      {
        ebb_cg_mount *m = NULL;
        int n = ebb_cg_parse_mountinfo (s, &m, &err);
        if (n > 0)
          {
            for (int i = 0; i < n; i++)
              ebb_cg_mount_has_controller (&m[i], "cpu");
            ebb_cg_mounts_free (m, n);
          }
        break;
      }
    }
  free (path);
  ebb_error_free (&err);
  free (s);
  return 0;
}
