/* The non-blocking client: transfers in a curl multi driven by sd-event (lib/curl-event.c),
 * each handed to its own callback when it finishes. Under a cap (ebb_http_client_limit),
 * transfers over it wait in a queue here, not in the multi: curl's removal of a handle
 * walks its handles, which made thousands of waiting ones cost more than the calls. */
#include "config.h"

#include "lib/curl-event.h"
#include "lib/http-xfer.h"

struct ebb_http_client
{
  ebb_curl_event *multi;
  ebb_http_xfer *xfers;                 /* in flight */
  size_t n_pending;                     /* in flight and waiting */
  size_t n_active;                      /* in the multi */
  size_t max_active;                    /* 0: no cap */
  ebb_http_xfer *wait_head, *wait_tail; /* over the cap, in start order (next links) */
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
  c->n_active--;
}

/* Hands x to the multi. Returns 0, or negative with *err (x not added). */
static int
activate (ebb_http_client *c, ebb_http_xfer *x, ebb_error **err)
{
  if (ebb_curl_event_add (c->multi, x->easy, err) < 0)
    return -EIO;
  x->prev = NULL;
  x->next = c->xfers;
  if (c->xfers)
    c->xfers->prev = x;
  c->xfers = x;
  c->n_active++;
  return 0;
}

/* Ends x with err without a transfer (it never reached the multi). */
static void
fail_waiting (ebb_http_client *c, ebb_http_xfer *x, ebb_error *err)
{
  c->n_pending--;
  ebb_http_result res = { 0 };
  x->done (&res, err, x->userdata);
  ebb_http_xfer_free (x);
}

/* Moves waiting transfers into the multi while there is room. */
static void
admit (ebb_http_client *c)
{
  while (c->wait_head && (!c->max_active || c->n_active < c->max_active))
    {
      ebb_http_xfer *x = c->wait_head;
      c->wait_head = x->next;
      if (!c->wait_head)
        c->wait_tail = NULL;
      x->next = NULL;
      ebb_error *err = NULL;
      if (activate (c, x, &err) < 0)
        fail_waiting (c, x, err);
      ebb_error_free (&err);
    }
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
  admit (c);
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
    return ebb_error_code (err) ? -ebb_error_code (err) : -EINVAL;
  x->done = done;
  x->userdata = userdata;
  if (c->wait_head || (c->max_active && c->n_active >= c->max_active))
    {
      /* Behind those already waiting, in order. */
      if (c->wait_tail)
        c->wait_tail->next = x;
      else
        c->wait_head = x;
      c->wait_tail = x;
      c->n_pending++;
      return 0;
    }
  if (activate (c, x, err) < 0)
    {
      ebb_http_xfer_free (x);
      return -EIO;
    }
  c->n_pending++;
  return 0;
}

/* See http-client.h. */
void
ebb_http_client_limit (ebb_http_client *c, long per_host, long total)
{
  /* The total is this queue's: curl's own would count idle kept-alive connections too. */
  ebb_curl_event_limit (c->multi, per_host, 0);
  c->max_active = total > 0 ? (size_t)total : 0;
  admit (c);
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
  while (c->wait_head)
    {
      ebb_http_xfer *x = c->wait_head;
      c->wait_head = x->next;
      ebb_error *err = NULL;
      ebb_error_set (&err, ECANCELED, "%s: cancelled (client freed)", x->url);
      fail_waiting (c, x, err);
      ebb_error_free (&err);
    }
  c->wait_tail = NULL;
  ebb_curl_event_free (c->multi);
  free (c);
}
