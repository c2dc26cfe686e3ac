/* The status page, embedded at build time from controller/status-page.html (see
 * controller/status-page.mk), and its GET / handler. */
#include "config.h"

#include "controller/status-page-html.h"
#include "controller/status-page.h"

const char *
ebb_ctl_status_page_html (size_t *len)
{
  if (len)
    *len = sizeof status_page_html - 1;
  return status_page_html;
}

int
ebb_ctl_status_page (ebb_http_request *req, ebb_http_response *resp, void *userdata)
{
  (void)req, (void)userdata;
  ebb_http_reply_text (resp, 200, "text/html; charset=utf-8", status_page_html);
  /* The same policy as the page's meta tag, plus what only a header can say (framing). */
  ebb_http_reply_header (resp, "Content-Security-Policy",
                         "default-src 'none'; script-src 'unsafe-inline'; "
                         "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; "
                         "form-action 'none'; base-uri 'none'; frame-ancestors 'none'");
  ebb_http_reply_header (resp, "X-Content-Type-Options", "nosniff");
  ebb_http_reply_header (resp, "Referrer-Policy", "no-referrer");
  ebb_http_reply_header (resp, "Cache-Control", "no-store");
  return EBB_HTTP_REPLIED;
}
