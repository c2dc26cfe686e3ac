/* ebbctl decisions [--follow]: GET /v1/decisions?since=SEQ, polled once a second to follow. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  (void)arg, (void)err;
  if (val == EBBCTL_O_FOLLOW)
    *(bool *)data = true;
  return 0;
}

static const char *const header[]
    = { "SEQ", "TIME", "ACTION", "TASK", "NODE", "FOR JOB", "REASON" };

/* Prints the decisions of list (a header first when header_too); returns the highest seq. */
static int64_t
print_decisions (ebbctl_ctx *ctx, json_object *list, bool header_too, int64_t since)
{
  int64_t seen = header_too ? -1 : since;
  ebbctl_table t;
  ebbctl_table_init (&t, 7, header);
  for (size_t i = 0; i < json_object_array_length (list); i++)
    {
      json_object *d = json_object_array_get_idx (list, i);
      int64_t seq = (int64_t)ebbctl_num (d, "seq", -1);
      if (seq >= 0 && seq <= seen)
        continue; /* already printed: never twice, whatever the server sends again */
      if (seq > since)
        since = seq;
      if (ctx->json)
        {
          fprintf (ctx->out, "%s\n",
                   json_object_to_json_string_ext (d, JSON_C_TO_STRING_PLAIN
                                                          | JSON_C_TO_STRING_NOSLASHESCAPE));
          continue;
        }
      char s[32], tm[32], job[64], task[64];
      double when = ebbctl_num (d, "time", -1);
      if (when < 0)
        when = ebbctl_num (d, "at", -1);
      const char *row[]
          = { ebbctl_cell (d, "seq", s, sizeof s), ebbctl_timestamp (tm, sizeof tm, when),
              ebbctl_str (d, "action"), ebbctl_cell (d, "task", task, sizeof task),
              ebbctl_str (d, "node"),
              /* The job it was done for (a suspension's is the short job),
               * not the task's own job ("job"); older answers had only "job". */
              ebbctl_cell (d, ebbctl_member (d, "for_job") ? "for_job" : "job", job, sizeof job),
              ebbctl_str (d, "reason") };
      ebbctl_table_add (&t, row);
    }
  if (!ctx->json)
    {
      if (!header_too)
        {
          /* Following: the rows alone, aligned on their own (a header once, at the start). */
          free (t.cells[0]), free (t.cells[1]), free (t.cells[2]), free (t.cells[3]);
          free (t.cells[4]), free (t.cells[5]), free (t.cells[6]);
          t.n_rows--;
          memmove (t.cells, t.cells + 7, t.n_rows * 7 * sizeof *t.cells);
        }
      if (t.n_rows)
        ebbctl_table_print (&t, ctx->out);
    }
  ebbctl_table_clear (&t);
  fflush (ctx->out);
  return since;
}

int
ebbctl_decisions (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  bool follow = false;
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &follow, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 0, &err) < 0)
    return ebbctl_fail (cmd, &err);
  int64_t since = 0;
  /* Without --follow: the whole log, page by page (the controller answers at most a page per
   * call, and says its last seq): --json prints the pages as one answer. */
  json_object *all = NULL;
  for (bool once = true;; once = false)
    {
      char path[64];
      snprintf (path, sizeof path, "/v1/decisions?since=%lld", (long long)since);
      json_object *o = NULL;
      int rc = ebbctl_call (ctx, false, "GET", path, NULL, &o);
      if (rc != EBBCTL_EXIT_OK)
        {
          json_object_put (all);
          return rc;
        }
      json_object *list = ebbctl_list (o, "decisions");
      if (!list && !(ctx->json && !follow && !all))
        {
          fprintf (stderr, "ebbctl decisions: the answer holds no list of decisions\n");
          json_object_put (o), json_object_put (all);
          return EBBCTL_EXIT_FAILURE;
        }
      int64_t before = since;
      double last = ebbctl_num (o, "last_seq", -1);
      if (!follow && ctx->json)
        {
          json_object *into = all ? ebbctl_list (all, "decisions") : NULL;
          for (size_t i = 0; list && i < json_object_array_length (list); i++)
            {
              json_object *d = json_object_array_get_idx (list, i);
              int64_t seq = (int64_t)ebbctl_num (d, "seq", -1);
              if (into && seq > before) /* a later page: its new decisions only */
                json_object_array_add (into, json_object_get (d));
              since = seq > since ? seq : since;
            }
          if (!all)
            all = json_object_get (o);
        }
      else
        since = print_decisions (ctx, list, once, since);
      json_object_put (o);
      if (!follow && (since <= before || last < 0 || since >= (int64_t)last))
        {
          if (all)
            ebbctl_print_json (ctx, all);
          json_object_put (all);
          return EBBCTL_EXIT_OK;
        }
      if (!follow)
        continue; /* the next page at once */
      struct timespec ts = { 1, 0 };
      nanosleep (&ts, NULL);
    }
}
