/* Graceful preemption (BIG-C §3): take r = (c, m) from a task per round; when the task
 * starts thrashing, put it at the CPU footprint and leave it out of further rounds. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/time.h"

static uint64_t
fault_count (const ebb_cg_stats *st)
{
  return st->pgmajfault + st->swapin_pages;
}

/* The CPU quota the step starts from, as usec per period. What the scheduler booked when
 * it says (its amount is a part of that), else the limit in force. Unlimited then counts as
 * what the task was given (its allocation as the caller knows it): taking the amount from
 * all online CPUs would leave the task far above the footprint (a 990-millicore step on a
 * 2-CPU host left 1.01 CPUs instead of 10 millicores). Without either, unlimited counts as
 * all online CPUs. */
static uint64_t
base_quota (const ebb_cg_limits *l, uint64_t period, const ebb_cg_step_req *req)
{
  if (req->booked_cores > 0)
    return (uint64_t)llround (req->booked_cores * (double)period);
  if (l->cpu_quota_usec != EBB_CG_MAX)
    return l->cpu_quota_usec;
  if (req->given_cores > 0)
    return (uint64_t)llround (req->given_cores * (double)period);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return (uint64_t)(n > 0 ? n : 1) * period;
}

static int
step_cpu (ebb_cg *cg, const ebb_cg_engine_config *cfg, const ebb_cg_step_req *req,
          const ebb_cg_limits *l, ebb_error **err)
{
  if (!(l->valid & EBB_CG_LIM_CPU) || req->cpu_cores <= 0)
    return 0;
  uint64_t period = l->cpu_period_usec ? l->cpu_period_usec : EBB_CG_FOOTPRINT_PERIOD_USEC;
  uint64_t q = base_quota (l, period, req);
  uint64_t take = (uint64_t)llround (req->cpu_cores * (double)period);
  /* The footprint expressed in this period, never below the kernel's 1000 µs floor. */
  uint64_t floor_q = cfg->footprint_quota_usec * period / cfg->footprint_period_usec;
  if (floor_q < EBB_CG_QUOTA_MIN_USEC)
    floor_q = EBB_CG_QUOTA_MIN_USEC;
  uint64_t nq = q > floor_q + take ? q - take : floor_q;
  if (l->cpu_quota_usec != EBB_CG_MAX && nq >= l->cpu_quota_usec)
    return 0; /* a step never gives CPU back (booked above the limit in force) */
  return ebb_cg_set_cpu (cg, nq, period, err);
}

static int
step_memory (ebb_cg *cg, const ebb_cg_engine_config *cfg, const ebb_cg_step_req *req,
             const ebb_cg_limits *l, uint64_t usage, ebb_error **err)
{
  uint64_t bytes = req->memory_bytes;
  if (bytes == 0)
    return 0;
  int v2 = cg->ops->set_memory_high != NULL;
  uint64_t limit = v2 ? l->memory_high_bytes : l->memory_max_bytes;
  uint64_t cur = req->booked_memory_bytes;
  if (!cur)
    {
      cur = limit;
      if (cur == EBB_CG_MAX || cur > usage)
        cur = usage; /* step from what the task uses, not from an unused limit */
    }
  uint64_t target
      = cur > cfg->footprint_memory_bytes + bytes ? cur - bytes : cfg->footprint_memory_bytes;
  if (v2)
    return target < limit ? ebb_cg_set_memory_high (cg, target, err) : 0;
  if (cg->ops->set_oom_kill_disable && !cg->orig.oom_kill_disabled)
    {
      int r = cg->ops->set_oom_kill_disable (cg, 1, err);
      if (r < 0)
        return r;
      cg->orig.oom_kill_disabled = 1;
    }
  if (target >= l->memory_max_bytes)
    return 0;
  cleanup_error ebb_error *e = NULL;
  int r = ebb_cg_set_memory_max (cg, target, &e);
  if (r == -EBUSY)
    return 0; /* cannot reclaim more without swap: held, reported by the caller */
  return r < 0 ? ebb_error_set (err, -r, "%s", ebb_error_msg (&e)) : 0;
}

/* Thrashing: memory PSI some avg10 over the threshold, or faults growing too fast since
 * the previous step. */
static int
thrashing (ebb_cg *cg, const ebb_cg_engine_config *cfg, const ebb_cg_stats *st)
{
  if ((st->valid & EBB_CG_STAT_PSI_MEMORY)
      && st->memory_psi.some_avg10 > cfg->thrash_psi_some_avg10)
    return 1;
  uint64_t f = fault_count (st);
  return f > cg->step_majfault_base && f - cg->step_majfault_base > cfg->thrash_majfault_delta;
}

int
ebb_cg_step (ebb_cg *cg, const ebb_cg_engine_config *cfg, const ebb_cg_step_req *req,
             ebb_cg_result *res, ebb_error **err)
{
  ebb_cg_engine_config def;
  cfg = ebb_cg_engine_begin (cfg, &def, res);
  uint64_t t0 = ebb_now_usec ();
  ebb_cg_stats st = { 0 };
  ebb_cg_limits l = { 0 };
  int r = ebb_cg_record_original (cg, NULL, err);
  ebb_cg_state s = cg->orig.state;
  if (r >= 0 && (s == EBB_CG_STATE_FROZEN_OUT || s == EBB_CG_STATE_SUSPENDED))
    {
      res->state = s; /* left out of further steps */
      res->elapsed_usec = ebb_now_usec () - t0;
      return 0;
    }
  if (r >= 0)
    r = ebb_cg_read_stats (cg, &st, err);
  if (r >= 0 && s == EBB_CG_STATE_RUNNING)
    cg->step_majfault_base = fault_count (&st);
  if (r >= 0)
    r = ebb_cg_read_limits (cg, &l, err);
  if (r >= 0)
    r = step_cpu (cg, cfg, req, &l, err);
  if (r >= 0)
    r = step_memory (cg, cfg, req, &l, st.memory_current_bytes, err);
  if (r < 0)
    return ebb_error_wrap (err, "graceful step on %s", cg->path);
  cg->orig.state = EBB_CG_STATE_SHRUNK;
  ebb_cg_stats after;
  if (ebb_cg_read_stats (cg, &after, err) < 0)
    return ebb_error_wrap (err, "graceful step on %s", cg->path);
  if (thrashing (cg, cfg, &after))
    {
      ebb_log_info ("cgroup %s thrashes (memory some avg10 %.2f, faults +%llu): CPU to the "
                    "footprint, out of further steps",
                    cg->path, after.memory_psi.some_avg10,
                    (unsigned long long)(fault_count (&after) - cg->step_majfault_base));
      r = ebb_cg_set_cpu (cg, cfg->footprint_quota_usec, cfg->footprint_period_usec, err);
      if (r < 0)
        return ebb_error_wrap (err, "freeze thrashing %s at the CPU footprint", cg->path);
      cg->orig.state = EBB_CG_STATE_FROZEN_OUT;
      res->thrashing = 1;
    }
  cg->step_majfault_base = fault_count (&after);
  uint64_t before = st.memory_current_bytes;
  res->state = cg->orig.state;
  ebb_cg_result_memory (cg, res, before, after.memory_current_bytes);
  res->elapsed_usec = ebb_now_usec () - t0;
  return 0;
}
