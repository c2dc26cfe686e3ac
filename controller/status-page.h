/* The controller's status page: one static HTML page (no framework, no external resources)
 * that shows nodes, jobs, suspended tasks and recent decisions, refreshed every 2 s from the
 * JSON API (/v1/cluster, /v1/nodes, /v1/jobs, /v1/decisions) by fetch().
 *
 * The token: the page itself holds no data. The unix socket needs no token (reach it with
 * `ssh -L PORT:/run/ebb/controller.sock HOST`); a TCP listener wants the token on every request,
 * GET / included, which a browser's address bar cannot send (serving GET / there needs the HTTP
 * glue to exempt that one route). When its API calls get a 401 the page asks for the token; it
 * also reads one from the address's fragment (http://HOST:PORT/#token=TOKEN; a fragment is
 * never sent to a server nor logged), keeps it in the tab's sessionStorage, drops it from the
 * address bar, and sends it as "Authorization: Bearer". Cookies are never used, so another
 * site cannot make the browser call the API with it. */
#ifndef EBB_CTL_STATUS_PAGE_H
#define EBB_CTL_STATUS_PAGE_H

#include <stddef.h>

#include "lib/http-server.h"

/* Returns the page (static, NUL-terminated) and its length in *len when len is non-NULL. */
const char *ebb_ctl_status_page_html (size_t *len);

/* The route handler for GET / (controller/api-routes.c declares it weak and answers 404 without
 * it): the page as text/html with a Content-Security-Policy that allows nothing but its own inline
 * script and style and calls to its own origin, no caching, no framing. userdata is unused. Always
 * EBB_HTTP_REPLIED. */
int ebb_ctl_status_page (ebb_http_request *req, ebb_http_response *resp, void *userdata);

#endif
