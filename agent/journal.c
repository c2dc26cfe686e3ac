/* The journal: one JSON record per task, written atomically before any limit change
 * (doc/design.md "Crash safety"), read back and reconciled on start. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/journal.h"
#include "lib/file.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

#define JOURNAL_VERSION  1
#define RECORD_MAX_BYTES (1024 * 1024)

static int
get_u64 (json_object *o, const char *key, uint64_t *out, ebb_error **err)
{
  json_object *v;
  if (!json_object_object_get_ex (o, key, &v))
    return 0;
  if (json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), "max") == 0)
    {
      *out = EBB_CG_MAX;
      return 1;
    }
  return ebb_json_get_uint64 (o, key, 0, UINT64_MAX - 1, out, err);
}

static json_object *
encode_replies (const ebb_agent_task *t)
{
  json_object *a = json_object_new_array ();
  for (unsigned i = 0; i < t->n_replies; i++)
    {
      json_object *r = json_object_new_object ();
      ebb_json_add_string (r, "request_id", t->replies[i].request_id);
      ebb_json_add_string (r, "key", t->replies[i].key);
      ebb_json_add_uint64 (r, "status", t->replies[i].status);
      ebb_json_add_string (r, "body", t->replies[i].body);
      json_object_array_add (a, r);
    }
  return a;
}

/* Returns the record of t. */
json_object *
ebb_agent_journal_encode (const ebb_agent_task *t)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_int64 (o, "version", JOURNAL_VERSION);
  ebb_agent_task_add_identity (o, t);
  ebb_json_add_string (o, "source", ebb_agent_source_name (t->source));
  ebb_json_add_string (o, "state", ebb_agent_state_name (t->state));
  ebb_json_add_string (o, "prev_state", ebb_agent_state_name (t->prev_state));
  ebb_json_add_int64 (o, "pid", t->pid);
  ebb_json_add_uint64 (o, "pid_starttime", t->pid_starttime);
  ebb_json_add_string (o, "cgroup", t->cgroup);
  ebb_json_add_uint64 (o, "cgroup_inode", t->cgroup_inode);
  ebb_json_add_string (o, "container", t->container);
  ebb_json_add_uint64 (o, "cpu_millis", t->cpu_millis);
  ebb_json_add_uint64 (o, "memory_bytes", t->memory_bytes);
  json_object_object_add (o, "original", ebb_agent_original_json (&t->orig));
  ebb_json_add_bool (o, "graceful", t->graceful);
  ebb_json_add_string (o, "error", t->error);
  ebb_json_add_int64 (o, "uid", t->uid);
  ebb_json_add_int64 (o, "gid", t->gid);
  ebb_json_add_uint64 (o, "step_cpu_millis", t->step_cpu_millis);
  ebb_json_add_uint64 (o, "step_memory_bytes", t->step_memory_bytes);
  ebb_json_add_uint64 (o, "reclaimed_bytes", t->reclaimed_bytes);
  ebb_json_add_uint64 (o, "held_bytes", t->held_bytes);
  ebb_json_add_int64 (o, "exit_status", t->exit_status);
  ebb_json_add_int64 (o, "exit_signal", t->exit_signal);
  json_object_object_add (o, "requests", encode_replies (t));
  ebb_agent_task_add_accounting (o, t);
  return o;
}

static int
decode_orig (json_object *o, ebb_cg_original *g, ebb_error **err)
{
  bool b = false;
  uint64_t v = 0;
  int64_t st = 0;
  if (ebb_json_get_bool (o, "recorded", &b, err) < 0)
    return -EBB_EPARSE;
  g->recorded = b;
  if (ebb_json_get_uint64 (o, "valid", 0, UINT32_MAX, &v, err) < 0)
    return -EBB_EPARSE;
  g->limits.valid = (uint32_t)v;
  if (get_u64 (o, "cpu_quota_usec", &g->limits.cpu_quota_usec, err) < 0
      || get_u64 (o, "cpu_period_usec", &g->limits.cpu_period_usec, err) < 0
      || get_u64 (o, "cpu_burst_usec", &g->limits.cpu_burst_usec, err) < 0
      || get_u64 (o, "memory_high_bytes", &g->limits.memory_high_bytes, err) < 0
      || get_u64 (o, "memory_max_bytes", &g->limits.memory_max_bytes, err) < 0
      || get_u64 (o, "swap_max_bytes", &g->limits.swap_max_bytes, err) < 0)
    return -EBB_EPARSE;
  if (ebb_json_get_bool (o, "swap_raised", &b, err) < 0)
    return -EBB_EPARSE;
  g->swap_raised = b;
  b = false;
  if (ebb_json_get_bool (o, "oom_kill_disabled", &b, err) < 0)
    return -EBB_EPARSE;
  g->oom_kill_disabled = b;
  if (ebb_json_get_int64 (o, "engine_state", 0, EBB_CG_STATE_FROZEN_OUT, &st, err) < 0)
    return -EBB_EPARSE;
  g->state = (ebb_cg_state)st;
  v = 0;
  if (ebb_json_get_uint64 (o, "changed", 0, UINT32_MAX, &v, err) < 0)
    return -EBB_EPARSE;
  g->changed = (uint32_t)v;
  return 0;
}

static int
decode_replies (json_object *o, ebb_agent_task *t, ebb_error **err)
{
  json_object *a;
  if (!json_object_object_get_ex (o, "requests", &a) || !json_object_is_type (a, json_type_array))
    return 0;
  for (size_t i = 0; i < json_object_array_length (a); i++)
    {
      json_object *r = json_object_array_get_idx (a, i);
      const char *rid = NULL, *key = NULL, *body = NULL;
      uint64_t status = 0;
      if (ebb_json_get_string (r, "request_id", 256, NULL, &rid, err) != 1
          || ebb_json_get_string (r, "key", 0, NULL, &key, err) != 1
          || ebb_json_get_string (r, "body", 0, NULL, &body, err) != 1
          || ebb_json_get_uint64 (r, "status", 100, 599, &status, err) != 1)
        return ebb_error_set (err, EBB_EPARSE, "bad request entry %zu", i);
      ebb_agent_task_add_reply (t, rid, key, (unsigned)status, body);
    }
  return 0;
}

static int
decode_strings (json_object *o, ebb_agent_task *t, ebb_error **err)
{
  const char *s = NULL;
  if (ebb_json_get_string (o, "job", 256, NULL, &s, err) < 0)
    return -EBB_EPARSE;
  t->job = s ? ebb_xstrdup (s) : NULL;
  s = NULL;
  if (ebb_json_get_string (o, "cgroup", EBB_AGENT_MAX_PATH, NULL, &s, err) < 0)
    return -EBB_EPARSE;
  t->cgroup = s ? ebb_xstrdup (s) : NULL;
  s = NULL;
  if (ebb_json_get_string (o, "container", 256, NULL, &s, err) < 0)
    return -EBB_EPARSE;
  t->container = s ? ebb_xstrdup (s) : NULL;
  s = NULL;
  if (ebb_json_get_string (o, "class", 16, NULL, &s, err) < 0)
    return -EBB_EPARSE;
  t->long_class = s && strcmp (s, "long") == 0;
  s = NULL;
  if (ebb_json_get_string (o, "error", 1024, NULL, &s, err) < 0)
    return -EBB_EPARSE;
  t->error = s ? ebb_xstrdup (s) : NULL;
  const char *st = NULL, *pst = NULL, *src = NULL;
  if (ebb_json_get_string (o, "state", 32, NULL, &st, err) != 1
      || ebb_agent_state_from_name (st, &t->state) < 0)
    return ebb_error_set (err, EBB_EPARSE, "bad or missing state");
  if (ebb_json_get_string (o, "prev_state", 32, NULL, &pst, err) == 1)
    ebb_agent_state_from_name (pst, &t->prev_state);
  if (ebb_json_get_string (o, "source", 32, NULL, &src, err) != 1
      || ebb_agent_source_from_name (src, &t->source) < 0)
    return ebb_error_set (err, EBB_EPARSE, "bad or missing source");
  return 0;
}

static int
decode_numbers (json_object *o, ebb_agent_task *t, ebb_error **err)
{
  int64_t pid = 0, es = -1, sig = 0, uid = -1, gid = -1;
  bool g = false;
  if (ebb_json_get_int64 (o, "pid", 0, INT32_MAX, &pid, err) < 0
      || ebb_json_get_uint64 (o, "pid_starttime", 0, UINT64_MAX, &t->pid_starttime, err) < 0
      || ebb_json_get_uint64 (o, "cgroup_inode", 0, UINT64_MAX, &t->cgroup_inode, err) < 0
      || ebb_json_get_uint64 (o, "generation", 0, UINT64_MAX, &t->generation, err) < 0
      || ebb_json_get_uint64 (o, "cpu_millis", 0, UINT64_MAX, &t->cpu_millis, err) < 0
      || ebb_json_get_uint64 (o, "memory_bytes", 0, UINT64_MAX, &t->memory_bytes, err) < 0
      || ebb_json_get_bool (o, "graceful", &g, err) < 0
      || ebb_json_get_uint64 (o, "step_cpu_millis", 0, UINT64_MAX, &t->step_cpu_millis, err) < 0
      || ebb_json_get_uint64 (o, "step_memory_bytes", 0, UINT64_MAX, &t->step_memory_bytes, err) < 0
      || ebb_json_get_uint64 (o, "reclaimed_bytes", 0, UINT64_MAX, &t->reclaimed_bytes, err) < 0
      || ebb_json_get_uint64 (o, "held_bytes", 0, UINT64_MAX, &t->held_bytes, err) < 0
      || ebb_json_get_int64 (o, "exit_status", -1, 255, &es, err) < 0
      || ebb_json_get_int64 (o, "exit_signal", 0, 128, &sig, err) < 0
      || ebb_json_get_int64 (o, "uid", -1, UINT32_MAX, &uid, err) < 0
      || ebb_json_get_int64 (o, "gid", -1, UINT32_MAX, &gid, err) < 0)
    return -EBB_EPARSE;
  t->uid = uid;
  t->gid = gid;
  t->pid = (pid_t)pid;
  t->graceful = g;
  t->exit_status = (int)es;
  t->exit_signal = (int)sig;
  return 0;
}

/* Decodes a record into a new task. */
int
ebb_agent_journal_decode (json_object *rec, ebb_agent_task **out, ebb_error **err)
{
  const char *id = NULL;
  int64_t version = 0;
  if (!json_object_is_type (rec, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "record is not an object");
  if (ebb_json_get_int64 (rec, "version", 1, 1, &version, err) != 1)
    return ebb_error_set (err, EBB_EPARSE, "missing or unknown version");
  if (ebb_json_get_string (rec, "id", EBB_AGENT_ID_MAX, ebb_json_validate_id, &id, err) != 1)
    return ebb_error_set (err, EBB_EPARSE, "missing or invalid id");
  ebb_agent_task *t = ebb_agent_task_new (id);
  json_object *orig;
  int r = decode_strings (rec, t, err);
  if (r >= 0)
    r = decode_numbers (rec, t, err);
  if (r >= 0 && json_object_object_get_ex (rec, "original", &orig))
    r = decode_orig (orig, &t->orig, err);
  if (r >= 0)
    r = decode_replies (rec, t, err);
  if (r >= 0)
    r = ebb_agent_task_get_accounting (rec, t, err);
  if (r < 0)
    {
      ebb_agent_task_free (t);
      return ebb_error_wrap (err, "journal record %s", id);
    }
  t->exited = t->state == EBB_AGENT_EXITED;
  *out = t;
  return 0;
}

/* ---- Group commit: fsyncs off the loop --------------------------------------------- */

#define SYNC_MAX_BATCH 256

struct ebb_agent_syncer
{
  int dirfd;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake, idle;
  int *fds;
  size_t n, cap;
  bool busy, stop;
  uint64_t batches, files;
};

/* The worker: takes every queued descriptor at once, fsyncs each, then the directory once
 * for all the renames of the batch (one directory fsync per batch, not per record). */
static void *
syncer_main (void *ud)
{
  ebb_agent_syncer *s = ud;
  int batch[SYNC_MAX_BATCH];
  pthread_mutex_lock (&s->lock);
  for (;;)
    {
      while (s->n == 0 && !s->stop)
        pthread_cond_wait (&s->wake, &s->lock);
      if (s->n == 0 && s->stop)
        break;
      size_t k = s->n < SYNC_MAX_BATCH ? s->n : SYNC_MAX_BATCH;
      memcpy (batch, s->fds, k * sizeof *batch);
      memmove (s->fds, s->fds + k, (s->n - k) * sizeof *s->fds);
      s->n -= k;
      s->busy = true;
      pthread_mutex_unlock (&s->lock);
      for (size_t i = 0; i < k; i++)
        {
          if (fsync (batch[i]) < 0)
            ebb_log_warn ("journal: fsync: %s", strerror (errno));
          close (batch[i]);
        }
      if (fsync (s->dirfd) < 0)
        ebb_log_warn ("journal: fsync directory: %s", strerror (errno));
      pthread_mutex_lock (&s->lock);
      s->busy = false;
      s->batches++;
      s->files += k;
      pthread_cond_broadcast (&s->idle);
    }
  pthread_mutex_unlock (&s->lock);
  return NULL;
}

/* Frees s, its thread stopped or never started. */
static void
syncer_destroy (ebb_agent_syncer *s)
{
  pthread_cond_destroy (&s->wake);
  pthread_cond_destroy (&s->idle);
  pthread_mutex_destroy (&s->lock);
  free (s->fds);
  free (s);
}

/* Starts a syncer for dirfd (borrowed). Returns it, or NULL when no thread can start. */
ebb_agent_syncer *
ebb_agent_syncer_new (int dirfd)
{
  ebb_agent_syncer *s = ebb_xcalloc (1, sizeof *s);
  s->dirfd = dirfd;
  pthread_mutex_init (&s->lock, NULL);
  pthread_cond_init (&s->wake, NULL);
  pthread_cond_init (&s->idle, NULL);
  if (pthread_create (&s->thread, NULL, syncer_main, s) != 0)
    {
      syncer_destroy (s);
      return NULL;
    }
  return s;
}

/* Queues fd (owned from now on) for fsync. */
static void
syncer_add (ebb_agent_syncer *s, int fd)
{
  pthread_mutex_lock (&s->lock);
  if (s->n == s->cap)
    {
      s->cap = s->cap ? s->cap * 2 : 64;
      s->fds = ebb_xrealloc (s->fds, s->cap * sizeof *s->fds);
    }
  s->fds[s->n++] = fd;
  pthread_cond_signal (&s->wake);
  pthread_mutex_unlock (&s->lock);
}

/* Waits until everything queued so far is on disk. */
void
ebb_agent_syncer_flush (ebb_agent_syncer *s)
{
  if (!s)
    return;
  pthread_mutex_lock (&s->lock);
  while (s->n > 0 || s->busy)
    pthread_cond_wait (&s->idle, &s->lock);
  pthread_mutex_unlock (&s->lock);
}

/* Returns the number of batches and of records synced so far. */
void
ebb_agent_syncer_stats (ebb_agent_syncer *s, uint64_t *batches, uint64_t *files)
{
  pthread_mutex_lock (&s->lock);
  *batches = s->batches;
  *files = s->files;
  pthread_mutex_unlock (&s->lock);
}

/* Flushes, stops the thread, frees s. */
void
ebb_agent_syncer_free (ebb_agent_syncer *s)
{
  if (!s)
    return;
  pthread_mutex_lock (&s->lock);
  s->stop = true;
  pthread_cond_signal (&s->wake);
  pthread_mutex_unlock (&s->lock);
  pthread_join (s->thread, NULL);
  syncer_destroy (s);
}

/* Writes name atomically in dirfd (lib/file.c); with a syncer the fsyncs happen on its thread. */
int
ebb_agent_write_atomic_sync (int dirfd, const char *name, const char *text,
                             ebb_agent_syncer *syncer, ebb_error **err)
{
  int fd = -1;
  int r = ebb_file_write_atomic_fd (dirfd, name, text, syncer ? &fd : NULL, err);
  if (r < 0)
    return r;
  if (syncer)
    syncer_add (syncer, fd); /* the syncer closes it */
  return 0;
}

/* Journals t. */
int
ebb_agent_journal_write (int dirfd, const ebb_agent_task *t, ebb_error **err)
{
  return ebb_agent_journal_write_sync (dirfd, t, NULL, err);
}

/* Journals t, the fsyncs through syncer (may be NULL). */
int
ebb_agent_journal_write_sync (int dirfd, const ebb_agent_task *t, ebb_agent_syncer *syncer,
                              ebb_error **err)
{
  json_object *o = ebb_agent_journal_encode (t);
  cleanup_free char *text = ebb_json_to_string (o);
  json_object_put (o);
  cleanup_free char *name = ebb_xasprintf ("%s.json", t->id);
  return ebb_agent_write_atomic_sync (dirfd, name, text, syncer, err);
}

/* Removes a record. */
int
ebb_agent_journal_remove (int dirfd, const char *id, ebb_error **err)
{
  cleanup_free char *name = ebb_xasprintf ("%s.json", id);
  if (unlinkat (dirfd, name, 0) < 0 && errno != ENOENT)
    return ebb_error_set_errno (err, errno, "remove journal record %s", name);
  if (fsync (dirfd) < 0)
    return ebb_error_set_errno (err, errno, "fsync journal directory");
  return 0;
}

static char *
read_record (int dirfd, const char *name, size_t *len, ebb_error **err)
{
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "open %s", name), NULL;
  cleanup_free char *buf = ebb_xmalloc (RECORD_MAX_BYTES + 1);
  size_t n = 0;
  for (;;)
    {
      ssize_t r = read (fd, buf + n, RECORD_MAX_BYTES - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ebb_error_set_errno (err, errno, "read %s", name), NULL;
      if (r == 0)
        break;
      n += (size_t)r;
      if (n == RECORD_MAX_BYTES)
        return ebb_error_set (err, EBB_ERANGE, "%s: record too large", name), NULL;
    }
  buf[n] = '\0';
  *len = n;
  return ebb_steal_ptr (&buf);
}

static int
load_one (int dirfd, const char *name, ebb_agent_task **out, ebb_error **err)
{
  size_t len = 0;
  cleanup_free char *text = read_record (dirfd, name, &len, err);
  if (!text)
    return -EIO;
  json_object *o = ebb_json_parse (text, len, 0, err);
  if (!o)
    return ebb_error_wrap (err, "%s", name);
  int r = ebb_agent_journal_decode (o, out, err);
  json_object_put (o);
  if (r == 0)
    {
      cleanup_free char *want = ebb_xasprintf ("%s.json", (*out)->id);
      if (strcmp (want, name) != 0)
        {
          ebb_agent_task_free (*out);
          *out = NULL;
          return ebb_error_set (err, EBB_EPARSE, "%s: id does not match the file name", name);
        }
    }
  return r;
}

static bool
is_record_name (const char *n)
{
  size_t l = strlen (n);
  /* An id may start with '.', so ".x.json" is a record; temp files end in ".tmp". */
  return l > 5 && strcmp (n + l - 5, ".json") == 0;
}

/* Loads every record of dirfd. */
int
ebb_agent_journal_load (int dirfd, void (*fn) (ebb_agent_task *t, void *ud), void *ud,
                        ebb_error **err)
{
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "open journal directory");
  cleanup_dir DIR *d = fdopendir (fd);
  if (!d)
    {
      close (fd);
      return ebb_error_set_errno (err, errno, "open journal directory");
    }
  int n = 0;
  struct dirent *de;
  while ((de = readdir (d)))
    {
      size_t nl = strlen (de->d_name);
      if (de->d_name[0] == '.' && nl > 4 && strcmp (de->d_name + nl - 4, ".tmp") == 0)
        {
          /* A temp file left by a crash mid-write: the record it replaced is intact. */
          unlinkat (dirfd, de->d_name, 0);
          continue;
        }
      if (!is_record_name (de->d_name))
        continue;
      cleanup_error ebb_error *e = NULL;
      ebb_agent_task *t = NULL;
      if (load_one (dirfd, de->d_name, &t, &e) < 0)
        {
          ebb_log_err ("journal: %s; moving it aside", ebb_error_msg (&e));
          cleanup_free char *bad = ebb_xasprintf ("%s.bad", de->d_name);
          renameat (dirfd, de->d_name, dirfd, bad);
          continue;
        }
      fn (t, ud);
      n++;
    }
  return n;
}
