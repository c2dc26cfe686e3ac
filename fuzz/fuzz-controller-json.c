/* libFuzzer target: the controller's validation of a POST /v1/jobs body (controller/api-jobs.c
 * and api-adopt.c through ebb_ctl_api_job_new): the body is parsed as the server does
 * (ebb_json_parse, nesting up to 16), then validated and built into a job as the handler
 * does, and freed (the job is never added nor stored). The first byte picks the policy the
 * "deps" are checked against: even a DAG policy (graphene), odd one that refuses them (fifo). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/log.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static ebb_ctl_config cfg_dag, cfg_plain;
static ebb_ctl ctl_dag, ctl_plain;

int
LLVMFuzzerInitialize (int *argc EBB_UNUSED, char ***argv EBB_UNUSED)
{
  ebb_log_set_level (LOG_CRIT);
  cfg_dag.policy = (char *)"graphene";
  cfg_plain.policy = (char *)"fifo";
  ctl_dag.cfg = &cfg_dag;
  ctl_plain.cfg = &cfg_plain;
  ctl_dag.next_job_id = ctl_plain.next_job_id = 1;
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  ebb_ctl *c = data[0] % 2 ? &ctl_plain : &ctl_dag;
  ebb_error *err = NULL;
  json_object *body = ebb_json_parse ((const char *)data + 1, size - 1, 16, &err);
  ebb_error_free (&err);
  if (!body)
    return 0;
  ebb_ctl_job *j = ebb_ctl_api_job_new (c, body, &err);
  ebb_error_free (&err);
  ebb_ctl_job_free (j);
  json_object_put (body);
  return 0;
}
