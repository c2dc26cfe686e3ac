/* The use cases other than a submission (ops-submit.c): kill, drain, undrain, heartbeat,
 * and reading a job or a page of jobs (from memory and the store).
 * See ops.h for the transaction each is. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ops.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/util.h"

/* See ops.h. */
void
ebb_ctl_op_kill (ebb_ctl *c, ebb_ctl_job *j)
{
  ebb_ctl_store_begin (c);
  ebb_ctl_kill_job (c, j);
  ebb_ctl_flush (c); /* the kills are committed before the answer, then sent */
}

/* See ops.h. */
int
ebb_ctl_op_drain (ebb_ctl *c, int idx, bool drain, ebb_error **err)
{
  if (c->nodes[idx]->state == NODE_LOST)
    return ebb_error_set (err, EBB_EREFUSED, "node %s is lost", c->nodes[idx]->name);
  ebb_ctl_store_begin (c);
  ebb_ctl_node_drain (c, idx, drain);
  ebb_ctl_flush (c); /* committed before the answer */
  return 0;
}

/* See ops.h. */
int
ebb_ctl_op_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err)
{
  /* Its writes open the loop iteration's transaction; the flush at the iteration's end
   * commits it with the other heartbeats of the iteration, then sends what they decided. */
  return ebb_ctl_heartbeat (c, name, body, err);
}

/* See ops.h. */
ebb_ctl_job *
ebb_ctl_job_get (ebb_ctl *c, uint64_t id, ebb_ctl_job **loaded)
{
  *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_job_find (c, id);
  if (j || !c->store || id >= c->next_job_id)
    return j;
  *loaded = ebb_ctl_store_job_get (c, id);
  return *loaded;
}

/* Returns the index in c->jobs (in id order) of the first job of id > after. */
static size_t
first_after (const ebb_ctl *c, uint64_t after)
{
  size_t lo = 0, hi = c->n_jobs;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (c->jobs[mid]->id <= after)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The model's jobs of a page, in the page's order: c->jobs[pos] ascending, c->jobs[pos - 1]
 * descending. */
typedef struct
{
  ebb_ctl *c;
  const ebb_ctl_jobs_query *q;
  size_t pos;
} mem_cursor;

/* Returns the cursor's job, skipping the finished ones for an active page, or NULL past the
 * last. Every active job is in memory (only finished ones leave it, sched-evict.c): an
 * active page reads the model only, skipping at most the finished jobs it keeps. */
static ebb_ctl_job *
mem_peek (mem_cursor *m)
{
  while (m->q->desc ? m->pos > 0 : m->pos < m->c->n_jobs)
    {
      ebb_ctl_job *j = m->c->jobs[m->q->desc ? m->pos - 1 : m->pos];
      if (!m->q->active || j->state < JOB_DONE)
        return j;
      m->pos = m->q->desc ? m->pos - 1 : m->pos + 1;
    }
  return NULL;
}

/* See ops.h. */
int
ebb_ctl_op_jobs_page (ebb_ctl *c, const ebb_ctl_jobs_query *q, ebb_ctl_jobs_page_items *out)
{
  /* The model's jobs and the store's, merged in the page's order: the model's copy is
   * current (a job whose row could not be written is still listed). The page holds the
   * first limit ids of either; one more of the store's tells whether a next page exists. */
  memset (out, 0, sizeof *out);
  size_t k = 0;
  mem_cursor m = { c, q, 0 };
  if (!q->desc)
    m.pos = first_after (c, q->after);
  else if (q->after > 0)
    m.pos = first_after (c, q->after - 1); /* the jobs of id < after are below it */
  if (c->store && !q->active
      && ebb_ctl_store_job_page (c, q->after, q->desc, q->limit + 1, &out->rows, &out->nrows) < 0)
    return -EIO;
  const ebb_ctl_job_summary *rows = out->rows;
  size_t n = out->nrows;
  out->items = ebb_xcalloc (q->limit ? q->limit : 1, sizeof *out->items);
  out->last = q->after;
  ebb_ctl_job *j;
  while (((j = mem_peek (&m)) || k < n) && out->n < q->limit)
    {
      ebb_ctl_jobs_page_item *it = &out->items[out->n++];
      /* The model's job comes first unless the store's next row is before it. */
      if (j && (k == n || (q->desc ? j->id >= rows[k].id : j->id <= rows[k].id)))
        {
          k += k < n && j->id == rows[k].id;
          out->last = j->id;
          it->job = j;
          m.pos = q->desc ? m.pos - 1 : m.pos + 1;
        }
      else
        {
          out->last = rows[k].id;
          it->row = &rows[k++];
        }
    }
  out->more = mem_peek (&m) || k < n;
  return 0;
}

/* See ops.h. */
void
ebb_ctl_jobs_page_items_clear (ebb_ctl_jobs_page_items *p)
{
  ebb_ctl_job_summaries_free (p->rows, p->nrows);
  free (p->items);
  memset (p, 0, sizeof *p);
}

/* See ops.h. */
json_object *
ebb_ctl_op_decisions (ebb_ctl *c, uint64_t since, unsigned limit)
{
  return ebb_ctl_store_decisions (c, since, limit);
}

/* See ops.h. */
uint64_t
ebb_ctl_op_last_seq (ebb_ctl *c)
{
  return ebb_ctl_store_last_seq (c);
}

/* See ops.h. */
void
ebb_ctl_op_store_stats (ebb_ctl *c, ebb_ctl_store_stats *st)
{
  ebb_ctl_store_get_stats (c, st);
}
