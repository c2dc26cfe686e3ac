/* The audit trail (issue 22): each operator action that changes the cluster (a submission,
 * a kill, a drain or undrain) is logged at the default verbosity, one line with who asked.
 * On a unix socket the caller is the uid of the connected process (its file mode and group
 * guard it, so the uid is what tells operators apart); on TCP it is whoever holds the cluster
 * token, which names no one more precisely. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "controller/api.h"
#include "lib/log.h"

/* See api.h. */
void
ebb_ctl_api_caller (const ebb_http_request *req, char *buf, size_t size)
{
  uid_t uid;
  if (ebb_http_request_peer_kind (req) != EBB_HTTP_PEER_UNIX)
    snprintf (buf, size, "token");
  else if (ebb_http_request_peer_uid (req, &uid) == 0)
    snprintf (buf, size, "uid %u", (unsigned)uid);
  else
    snprintf (buf, size, "uid unknown");
}

/* See api.h. */
void
ebb_ctl_api_audit (const ebb_http_request *req, const char *fmt, ...)
{
  char what[512], caller[32];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  ebb_ctl_api_caller (req, caller, sizeof caller);
  ebb_log_notice ("audit: %s: %s", caller, what);
}
