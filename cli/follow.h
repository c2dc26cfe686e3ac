/* Calls that follow the leader of several controllers (cli/follow.c). */
#ifndef EBBCTL_FOLLOW_H
#define EBBCTL_FOLLOW_H

#include "lib/http-client.h"

/* cli/follow.c: with several controllers listed, how often an unanswered call asks the
 * others GET /v1/cluster (also each probe's time limit). */
#define EBBCTL_FOLLOW_PROBE_MS 1000

/* As ebb_http_call to base, one of controllers (NULL-terminated), but while it is unanswered
 * the others are asked who leads; when one shows a leader other than base (see cli/follow.c),
 * the call is abandoned: returns 0 with *out zeroed and *moved_to (owned) the leader's URL. */
int ebbctl_follow_call (const char *const *controllers, const char *method, const char *base,
                        const char *path, json_object *body, const ebb_http_call_opts *opts,
                        ebb_http_result *out, char **moved_to, ebb_error **err);

/* Whether the answer cluster of controller url to GET /v1/cluster shows a leader other than
 * base, the one waited on: url itself when it leads, else the leader it names when that one is
 * not base and its epoch is above *base_epoch (the highest epoch any answer named for base,
 * raised here; 0: none yet). Returns that URL (in url or cluster), else NULL. */
const char *ebbctl_follow_leader (const char *base, uint64_t *base_epoch, const char *url,
                                  json_object *cluster);

#endif
