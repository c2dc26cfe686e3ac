/* A small worker pool for the engine: writes that reclaim block for seconds (doc/design.md), so
 * they run here and report back through an eventfd the daemon's loop watches. Jobs on one
 * handle run one at a time, in submission order. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>

typedef struct job
{
  struct job *next;
  ebb_cg *cg;
  ebb_cg_job spec;
  ebb_cg_job_done_fn done;
  void *userdata;
  int rc;
  ebb_cg_result res;
  ebb_error *err;
} job;

struct ebb_cg_pool
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  job *queue, *queue_tail; /* waiting */
  job *done, *done_tail;   /* finished, not yet dispatched */
  unsigned running;
  int stopping;
  int efd;
  unsigned n_threads;
  pthread_t threads[16];
};

static void
append (job **head, job **tail, job *j)
{
  j->next = NULL;
  if (*tail)
    (*tail)->next = j;
  else
    *head = j;
  *tail = j;
}

/* Takes the first queued job whose handle is idle (keeps per-handle order). Locked. */
static job *
take_runnable (ebb_cg_pool *p)
{
  job *prev = NULL;
  for (job *j = p->queue; j; prev = j, j = j->next)
    {
      int earlier_same = 0;
      for (job *k = p->queue; k != j; k = k->next)
        earlier_same |= k->cg == j->cg;
      if (j->cg->pool_running || earlier_same)
        continue;
      if (prev)
        prev->next = j->next;
      else
        p->queue = j->next;
      if (p->queue_tail == j)
        p->queue_tail = prev;
      return j;
    }
  return NULL;
}

static void
run_job (job *j)
{
  const ebb_cg_job *s = &j->spec;
  switch (s->kind)
    {
    case EBB_CG_JOB_SUSPEND:
      j->rc = ebb_cg_suspend (j->cg, &s->config, &j->res, &j->err);
      break;
    case EBB_CG_JOB_STEP:
      j->rc = ebb_cg_step (j->cg, &s->config, &s->step, &j->res, &j->err);
      break;
    case EBB_CG_JOB_RESUME:
      j->rc = ebb_cg_resume (j->cg, &s->config, &j->res, &j->err);
      break;
    case EBB_CG_JOB_RECLAIM:
      j->rc = ebb_cg_reclaim (j->cg, s->memory_bytes, &j->err);
      break;
    case EBB_CG_JOB_FREEZE:
    case EBB_CG_JOB_THAW:
      j->rc = ebb_cg_set_frozen (j->cg, s->kind == EBB_CG_JOB_FREEZE, s->timeout_usec, &j->err);
      break;
    default:
      j->rc = ebb_error_set (&j->err, EINVAL, "unknown job kind %d", (int)s->kind);
    }
}

static void *
worker (void *arg)
{
  ebb_cg_pool *p = arg;
  pthread_mutex_lock (&p->lock);
  for (;;)
    {
      job *j = take_runnable (p);
      if (!j)
        {
          if (p->stopping && !p->queue)
            break;
          pthread_cond_wait (&p->cond, &p->lock);
          continue;
        }
      j->cg->pool_running = 1;
      p->running++;
      pthread_mutex_unlock (&p->lock);
      run_job (j);
      pthread_mutex_lock (&p->lock);
      j->cg->pool_running = 0;
      p->running--;
      append (&p->done, &p->done_tail, j);
      uint64_t one = 1;
      if (write (p->efd, &one, sizeof one) < 0)
        abort ();                        /* an eventfd write fails only on counter overflow */
      pthread_cond_broadcast (&p->cond); /* a job on the same handle may run now */
    }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

int
ebb_cg_pool_new (unsigned n_workers, ebb_cg_pool **out, ebb_error **err)
{
  if (n_workers < 1 || n_workers > 16)
    return ebb_error_set (err, EBB_ERANGE, "pool: %u workers (1..16)", n_workers);
  ebb_cg_pool *p = ebb_xcalloc (1, sizeof *p);
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->cond, NULL);
  p->efd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p->efd < 0)
    {
      int e = errno;
      free (p);
      return ebb_error_set_errno (err, e, "pool: eventfd");
    }
  for (; p->n_threads < n_workers; p->n_threads++)
    {
      int e = pthread_create (&p->threads[p->n_threads], NULL, worker, p);
      if (e)
        {
          ebb_cg_pool_free (p);
          return ebb_error_set_errno (err, e, "pool: start worker");
        }
    }
  *out = p;
  return 0;
}

int
ebb_cg_pool_fd (const ebb_cg_pool *pool)
{
  return pool->efd;
}

int
ebb_cg_pool_submit (ebb_cg_pool *pool, ebb_cg *cg, const ebb_cg_job *spec, ebb_cg_job_done_fn done,
                    void *userdata, ebb_error **err)
{
  job *j = ebb_xcalloc (1, sizeof *j);
  j->cg = cg;
  j->spec = *spec;
  j->done = done;
  j->userdata = userdata;
  pthread_mutex_lock (&pool->lock);
  if (pool->stopping)
    {
      pthread_mutex_unlock (&pool->lock);
      free (j);
      return ebb_error_set (err, ECANCELED, "pool: shutting down");
    }
  cg->pool_pending++;
  append (&pool->queue, &pool->queue_tail, j);
  pthread_cond_broadcast (&pool->cond);
  pthread_mutex_unlock (&pool->lock);
  return 0;
}

int
ebb_cg_pool_busy (ebb_cg_pool *pool, const ebb_cg *cg)
{
  pthread_mutex_lock (&pool->lock);
  int busy = cg->pool_pending > 0;
  pthread_mutex_unlock (&pool->lock);
  return busy;
}

int
ebb_cg_pool_dispatch (ebb_cg_pool *pool)
{
  uint64_t v;
  if (read (pool->efd, &v, sizeof v) < 0 && errno != EAGAIN)
    return 0;
  pthread_mutex_lock (&pool->lock);
  job *list = pool->done;
  pool->done = pool->done_tail = NULL;
  pthread_mutex_unlock (&pool->lock);
  int n = 0;
  while (list)
    {
      job *j = list;
      list = j->next;
      /* Before the callback, which may close the handle. */
      pthread_mutex_lock (&pool->lock);
      j->cg->pool_pending--;
      pthread_mutex_unlock (&pool->lock);
      if (j->done)
        j->done (j->cg, &j->spec, j->rc, &j->res, j->err, j->userdata);
      ebb_error_free (&j->err);
      free (j);
      n++;
    }
  return n;
}

void
ebb_cg_pool_free (ebb_cg_pool *pool)
{
  if (!pool)
    return;
  pthread_mutex_lock (&pool->lock);
  pool->stopping = 1;
  pthread_cond_broadcast (&pool->cond);
  pthread_mutex_unlock (&pool->lock);
  for (unsigned i = 0; i < pool->n_threads; i++)
    pthread_join (pool->threads[i], NULL);
  ebb_cg_pool_dispatch (pool);
  close (pool->efd);
  pthread_cond_destroy (&pool->cond);
  pthread_mutex_destroy (&pool->lock);
  free (pool);
}
