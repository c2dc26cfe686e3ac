/* Leader fencing: the agent's half of the epoch protocol of doc/ha.md. A leader's epoch is the
 * create_revision of its election key in etcd, so epochs only grow; the agent keeps the highest
 * it has seen on disk so a restart does not reopen the door to a deposed leader. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/fence.h"
#include "agent/journal.h"
#include "lib/file.h"
#include "lib/json.h"
#include "lib/prom.h"
#include "lib/util.h"

#define EPOCH_FILE       "epoch"
#define EPOCH_VERSION    1
#define EPOCH_MAX        ((uint64_t)INT64_MAX) /* etcd revisions are int64 */
#define EPOCH_FILE_BYTES 4096

static const char *const result_names[EBB_AGENT_FENCE_N]
    = { "accepted", "raised", "refused", "unfenced" };

/* Returns a static name. */
const char *
ebb_agent_fence_result_name (ebb_agent_fence_result r)
{
  return (unsigned)r < EBB_AGENT_FENCE_N ? result_names[r] : "?";
}

/* Returns 0 and *out, or -EBB_EPARSE with *err. */
int
ebb_agent_fence_parse (const char *text, uint64_t *out, ebb_error **err)
{
  /* strtoull takes "-1", " 1" and "+1": accept digits only. */
  if (!text || !*text || strlen (text) > 19 || strspn (text, "0123456789") != strlen (text))
    return ebb_error_set (err, EBB_EPARSE, "%s must be a decimal number", EBB_AGENT_EPOCH_HEADER);
  uint64_t v = strtoull (text, NULL, 10);
  if (v == 0 || v > EPOCH_MAX)
    return ebb_error_set (err, EBB_EPARSE, "%s must be from 1 to %" PRIu64, EBB_AGENT_EPOCH_HEADER,
                          EPOCH_MAX);
  *out = v;
  return 0;
}

/* Returns 0 (f->epoch set, 0 when absent), or negative with *err. */
int
ebb_agent_fence_load (int dirfd, ebb_agent_fence *f, ebb_error **err)
{
  f->epoch = 0;
  cleanup_close int fd = openat (dirfd, EPOCH_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return errno == ENOENT ? 0 : ebb_error_set_errno (err, errno, "open %s", EPOCH_FILE);
  char buf[EPOCH_FILE_BYTES];
  ssize_t n = read (fd, buf, sizeof buf);
  if (n < 0)
    return ebb_error_set_errno (err, errno, "read %s", EPOCH_FILE);
  json_object *o = ebb_json_parse (buf, (size_t)n, 4, err);
  if (!o)
    return ebb_error_wrap (err, "%s", EPOCH_FILE);
  uint64_t v = 0, version = 0;
  int r = ebb_json_get_uint64 (o, "version", 1, EPOCH_VERSION, &version, err);
  if (r == 1)
    r = ebb_json_get_uint64 (o, "epoch", 0, EPOCH_MAX, &v, err);
  json_object_put (o);
  if (r != 1)
    return r < 0 ? ebb_error_wrap (err, "%s", EPOCH_FILE)
                 : ebb_error_set (err, EBB_EPARSE, "%s: no version or epoch", EPOCH_FILE);
  f->epoch = v;
  return 0;
}

static int
journal_epoch (int dirfd, uint64_t epoch, ebb_error **err)
{
  char text[64];
  snprintf (text, sizeof text, "{\"version\":%d,\"epoch\":%" PRIu64 "}\n", EPOCH_VERSION, epoch);
  /* Synchronous: the epoch is on disk before the call that raised it acts. Raises are rare
   * (one per new leader), so this fsync is not on any hot path. */
  if (ebb_file_write_atomic (dirfd, EPOCH_FILE, text, err) < 0)
    return ebb_error_wrap (err, "journal epoch %" PRIu64, epoch);
  return 0;
}

/* Returns an ebb_agent_fence_result, or negative with *err. */
int
ebb_agent_fence_admit (int dirfd, ebb_agent_fence *f, uint64_t epoch, ebb_error **err)
{
  ebb_agent_fence_result res;
  if (epoch == 0)
    res = EBB_AGENT_FENCE_UNFENCED;
  else if (epoch < f->epoch)
    res = EBB_AGENT_FENCE_REFUSED;
  else if (epoch == f->epoch)
    res = EBB_AGENT_FENCE_ACCEPTED;
  else
    {
      int r = journal_epoch (dirfd, epoch, err);
      if (r < 0)
        return r;
      f->epoch = epoch;
      res = EBB_AGENT_FENCE_RAISED;
    }
  f->counts[res]++;
  return (int)res;
}

/* Writes the epoch gauge and the calls by result in Prometheus text to f. */
void
ebb_agent_fence_metrics (FILE *f, const ebb_agent_fence *fence)
{
  ebb_prom_gauge (f, "ebb_agent_leader_epoch",
                  "The highest controller epoch this agent has seen (0: none).", fence->epoch);
  ebb_prom_head (f, "ebb_agent_fence_calls_total",
                 "Mutating calls by their leader epoch: accepted, raised (a higher epoch, "
                 "journaled first), refused (409 stale_leader), unfenced (no epoch header).",
                 "counter");
  for (unsigned i = 0; i < EBB_AGENT_FENCE_N; i++)
    fprintf (f, "ebb_agent_fence_calls_total{result=\"%s\"} %llu\n", result_names[i],
             (unsigned long long)fence->counts[i]);
}
