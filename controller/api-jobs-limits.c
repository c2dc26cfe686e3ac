/* POST /v1/jobs: the members of a job about its tier and its tasks' limits (issue 23):
 * "priority" (an integer, higher wins, 0 by default; refused by a policy without tiers
 * rather than silently ignored), "time_limit_sec" and "notify_signal", which are the
 * agent's (man ebb-agent(8)) and go into each launched task's spec: they are stored with
 * it and sent in its launch body. The signal is checked here as the agent checks it, so a
 * bad one is refused (400) rather than failing every task at its launch. */
#include "config.h"

#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "lib/json.h"

/* The agent's bound (agent/request.h): ten years. */
#define TIME_LIMIT_SEC_MAX (10ULL * 366 * 86400)

/* See api.h. */
int
ebb_ctl_api_parse_limits (json_object *b, ebb_ctl_submit_req *jr, const ebb_pol_ops *ops,
                          const char *policy, ebb_error **err)
{
  int64_t prio = 0;
  uint64_t limit = 0;
  json_object *sig = NULL;
  if (ebb_json_get_int64 (b, "priority", EBB_CTL_PRIORITY_MIN, EBB_CTL_PRIORITY_MAX, &prio, err) < 0
      || ebb_json_get_uint64 (b, "time_limit_sec", 1, TIME_LIMIT_SEC_MAX, &limit, err) < 0)
    return -EBB_EPARSE;
  int signo = 0;
  if (json_object_object_get_ex (b, "notify_signal", &sig) && sig
      && ebb_json_signal (sig, "notify_signal", &signo, err) < 0)
    return -EBB_EPARSE;
  if (prio != 0 && !(ops && ops->tiers))
    return ebb_error_set (
        err, EBB_EPARSE,
        "field \"priority\": policy '%s' has no priority tiers (ebb and bigc have)", policy);
  jr->priority = (int32_t)prio;
  for (size_t i = 0; i < jr->n; i++)
    {
      json_object *spec = jr->specs[i];
      if (json_object_object_get_ex (spec, "adopt", NULL))
        continue; /* adopted work runs already: no limit of ours */
      if (limit)
        ebb_json_add_uint64 (spec, "time_limit_sec", limit);
      if (sig)
        json_object_object_add (spec, "notify_signal", json_object_get (sig));
    }
  return 0;
}
