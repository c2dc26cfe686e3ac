/* The non-blocking client: transfers in a curl multi driven by sd-event (lib/curl-event.c),
 * each handed to its own callback when it finishes. */
#include "config.h"

#include "lib/curl-event.h"
#include "lib/http-xfer.h"

struct ebb_http_client
{
  ebb_curl_event *multi;
  ebb_http_xfer *xfers; /* in flight */
  size_t n_pending;
};

static void
xfer_unlink (ebb_http_client *c, ebb_http_xfer *x)
{
  if (x->prev)
    x->prev->next = x->next;
  else
    c->xfers = x->next;
  if (x->next)
    x->next->prev = x->prev;
  x->prev = x->next = NULL;
  c->n_pending--;
}

/* The completion callback of the curl multi: hands the transfer to its own callback. */
static void
on_xfer_done (CURL *easy, CURLcode code, void *userdata)
{
  ebb_http_client *c = userdata;
  ebb_http_xfer *x = NULL;
  curl_easy_getinfo (easy, CURLINFO_PRIVATE, (char **)&x);
  xfer_unlink (c, x);
  ebb_error *err = NULL;
  ebb_http_result res;
  ebb_http_xfer_finish (x, code, &res, &err);
  x->done (&res, err, x->userdata);
  ebb_http_result_clear (&res);
  ebb_error_free (&err);
  ebb_http_xfer_free (x);
}

ebb_http_client *
ebb_http_client_new (sd_event *event, ebb_error **err)
{
  if (!event)
    return ebb_error_set (err, EINVAL, "http client: no event loop"), NULL;
  ebb_http_client *c = ebb_xcalloc (1, sizeof *c);
  c->multi = ebb_curl_event_new (event, "http client", on_xfer_done, c, err);
  if (!c->multi)
    {
      free (c);
      return NULL;
    }
  return c;
}

int
ebb_http_client_start (ebb_http_client *c, const char *method, const char *base, const char *path,
                       json_object *body, const ebb_http_call_opts *opts, ebb_http_done_fn done,
                       void *userdata, ebb_error **err)
{
  if (!c || !done)
    return ebb_error_set (err, EINVAL, "http client: no client or callback");
  ebb_http_xfer *x = ebb_http_xfer_new (method, base, path, body, opts, err);
  if (!x)
    return -EINVAL;
  x->done = done;
  x->userdata = userdata;
  if (ebb_curl_event_add (c->multi, x->easy, err) < 0)
    {
      ebb_http_xfer_free (x);
      return -EIO;
    }
  x->next = c->xfers;
  if (c->xfers)
    c->xfers->prev = x;
  c->xfers = x;
  c->n_pending++;
  return 0;
}

/* See http-client.h. */
void
ebb_http_client_limit (ebb_http_client *c, long per_host, long total)
{
  ebb_curl_event_limit (c->multi, per_host, total);
}

size_t
ebb_http_client_pending (const ebb_http_client *c)
{
  return c ? c->n_pending : 0;
}

void
ebb_http_client_free (ebb_http_client *c)
{
  if (!c)
    return;
  while (c->xfers)
    {
      ebb_http_xfer *x = c->xfers;
      ebb_curl_event_remove (c->multi, x->easy);
      xfer_unlink (c, x);
      ebb_error *err = NULL;
      ebb_http_result res = { 0 };
      ebb_error_set (&err, ECANCELED, "%s: cancelled (client freed)", x->url);
      x->done (&res, err, x->userdata);
      ebb_error_free (&err);
      ebb_http_xfer_free (x);
    }
  ebb_curl_event_free (c->multi);
  free (c);
}
