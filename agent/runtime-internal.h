/* The Docker/Podman client's inside (agent/runtime.c, runtime-track.c, runtime-events.c):
 * the client's state and what its files share. Not for users of agent/runtime.h. */
#ifndef EBB_AGENT_RUNTIME_INTERNAL_H
#define EBB_AGENT_RUNTIME_INTERNAL_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/runtime.h"
#include "lib/curl-event.h"
#include "lib/http-client.h"

#define API "/v1.40"
#define EVENTS_PATH                                                                                \
  API "/events?filters=%7B%22type%22%3A%5B%22container%22%5D%7D" /* {"type":["container"]} */

typedef struct tracked
{
  ebb_rt_info info;
  uint64_t confirmed_usec; /* when the inspect that produced info was started */
  bool followed;           /* no ebb labels, but inspected by the agent (adopted by id) */
  struct tracked *next;
} tracked;

/* An inspect in flight for one container; further events for it set `again`. */
typedef struct pending
{
  char id[65];
  bool again, want_update;
  struct pending *next;
} pending;

struct ebb_rt
{
  sd_event *event;
  ebb_rt_kind kind;
  char *socket_path;
  char *base; /* "unix:PATH" for lib/http-client */
  ebb_rt_event_fn fn;
  void *userdata;
  ebb_rt_options opts;
  /* The event stream. */
  ebb_curl_event *multi;
  CURL *easy;
  sd_event_source *retry_timer;
  ebb_rt_stream *stream;
  char errbuf[CURL_ERROR_SIZE];
  bool connected;
  bool stream_failed; /* the splitter refused the stream: abort the transfer */
  uint64_t backoff_usec;
  /* Requests triggered by events. */
  ebb_http_client *http;
  pending *pending;
  bool freeing;
  tracked *tracked;
};

/* runtime-track.c: what is known of each container, and the inspects and lists that keep it
 * current. */
void ebb_rt_emit (ebb_rt *rt, ebb_rt_event_type type, const ebb_rt_info *info, int exit_code,
                  const char *detail);
tracked *ebb_rt_tracked_find (ebb_rt *rt, const char *id);
void ebb_rt_tracked_drop (ebb_rt *rt, tracked *t);
/* The container is gone from the engine: DIED (if it was running) then REMOVED. */
void ebb_rt_report_removed (ebb_rt *rt, tracked *t, int exit_code);
/* Resolves the cgroups of a running container (empty when its process just exited). */
void ebb_rt_resolve_cgroups (ebb_rt *rt, ebb_rt_info *info);
const ebb_http_call_opts *ebb_rt_call_opts (ebb_rt *rt, ebb_http_call_opts *o);
pending *ebb_rt_pending_find (ebb_rt *rt, const char *id, pending ***prevp);
/* Inspects a container without blocking (once at a time per container; an event meanwhile
 * inspects again after). */
void ebb_rt_request_inspect (ebb_rt *rt, const char *id, bool want_update);
/* Lists the containers without blocking (after each (re)connect). */
void ebb_rt_request_list (ebb_rt *rt);

/* runtime-events.c: the followed /events stream. */
int ebb_rt_stream_start (ebb_rt *rt, ebb_error **err);
void ebb_rt_stream_stop (ebb_rt *rt);

#endif
