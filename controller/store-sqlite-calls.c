/* The calls table: the agent calls whose effect the tasks table does not show (SUSPEND,
 * RESUME, the policy's KILL) from their decision to their answer. A restart after kill -9
 * finds there what was decided, committed, maybe not sent, and sends it again with its
 * request id (the agent answers a repeated id with the reply it kept, without acting twice).
 * Launches and kills of a job need no row: the task's state says them (STARTING,
 * kill_wanted) and their request ids are fixed. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "controller/store-sqlite.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_put_call (ebb_ctl_store *base, const ebb_ctl_task *t, uint64_t seq, const char *kind,
                         const char *path, json_object *body)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st = ebb_ctl_sqlite_cached (s, &s->st_call,
                                            "INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?,?,?)");
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)t->job->id);
  sqlite3_bind_int64 (st, 2, t->idx);
  sqlite3_bind_int64 (st, 3, (sqlite3_int64)t->generation);
  sqlite3_bind_int64 (st, 4, (sqlite3_int64)seq);
  sqlite3_bind_text (st, 5, kind, -1, SQLITE_STATIC);
  sqlite3_bind_text (st, 6, path, -1, SQLITE_TRANSIENT);
  if (body)
    sqlite3_bind_text (st, 7, json_object_to_json_string_ext (body, EBB_JSON_TO_STRING_FLAGS), -1,
                       SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, 7);
  return ebb_ctl_sqlite_step_done (s, st, "store call");
}

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_call_done (ebb_ctl_store *base, uint64_t job, uint32_t idx, uint64_t seq)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st = ebb_ctl_sqlite_cached (
      s, &s->st_call_done, "DELETE FROM calls WHERE job = ? AND idx = ? AND seq = ?");
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)job);
  sqlite3_bind_int64 (st, 2, idx);
  sqlite3_bind_int64 (st, 3, (sqlite3_int64)seq);
  return ebb_ctl_sqlite_step_done (s, st, "forget call");
}

/* See store-sqlite.h. */
size_t
ebb_ctl_sqlite_calls (ebb_ctl_store *base, ebb_ctl_stored_call **out)
{
  *out = NULL;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (ebb_ctl_sqlite_of (base)->db,
                          "SELECT job, idx, generation, seq, kind, path, body FROM calls"
                          " ORDER BY seq",
                          -1, &st, NULL)
      != SQLITE_OK)
    return 0;
  size_t n = 0, cap = 0;
  ebb_ctl_stored_call *v = NULL;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      if (n == cap)
        {
          cap = cap ? cap * 2 : 16;
          v = ebb_xrealloc (v, cap * sizeof *v);
        }
      ebb_ctl_stored_call *k = &v[n++];
      k->job = (uint64_t)sqlite3_column_int64 (st, 0);
      k->idx = (uint32_t)sqlite3_column_int64 (st, 1);
      k->generation = (uint64_t)sqlite3_column_int64 (st, 2);
      k->seq = (uint64_t)sqlite3_column_int64 (st, 3);
      k->kind = ebb_ctl_sqlite_col_str (st, 4);
      k->path = ebb_ctl_sqlite_col_str (st, 5);
      k->body = ebb_ctl_sqlite_col_str (st, 6);
    }
  sqlite3_finalize (st);
  *out = v;
  return n;
}
