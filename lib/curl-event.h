/* curl multi driven by sd-event: one CURLM whose sockets and timeout are mapped to sd-event
 * io and timer sources. Used by the non-blocking http client and by the container runtime's
 * followed /events stream. Finished transfers are handed to the owner's completion callback.
 *
 * Callbacks run from the event loop, never from inside a curl callback, so the completion
 * callback may add or remove handles (but must not free the ebb_curl_event itself). */
#ifndef EBB_LIB_CURL_EVENT_H
#define EBB_LIB_CURL_EVENT_H

#include <curl/curl.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "lib/error.h"

typedef struct ebb_curl_event ebb_curl_event;

/* Called once per finished transfer. The handle has already been removed from the multi;
 * the owner still owns it (free it, or add it again). */
typedef void (*ebb_curl_event_done_fn) (CURL *easy, CURLcode code, void *userdata);

/* Creates the multi on `event`; `name` prefixes log messages. Returns the new object, or
 * NULL with *err. */
ebb_curl_event *ebb_curl_event_new (sd_event *event, const char *name, ebb_curl_event_done_fn done,
                                    void *userdata, ebb_error **err);

/* Starts driving `easy`. Returns 0, or negative with *err (the handle is then not added). */
int ebb_curl_event_add (ebb_curl_event *ce, CURL *easy, ebb_error **err);

/* Stops driving `easy` without calling the completion callback (a no-op for a handle that
 * is not in the multi). The caller keeps the handle. */
void ebb_curl_event_remove (ebb_curl_event *ce, CURL *easy);

/* Caps the connections: per_host to one host, total over all (0: no cap). Transfers over
 * the cap wait inside curl for a connection to free up (kept alive and reused), instead of
 * each opening its own: a burst of thousands of calls would otherwise open thousands of
 * sockets at once. */
void ebb_curl_event_limit (ebb_curl_event *ce, long per_host, long total);

/* Returns how many sockets currently have an io source (0 for NULL). */
size_t ebb_curl_event_n_watched (const ebb_curl_event *ce);

/* Frees the multi and its event sources. Remove the handles first: any still in the multi
 * are left to their owner, unfinished. NULL is a no-op. */
void ebb_curl_event_free (ebb_curl_event *ce);

#endif
