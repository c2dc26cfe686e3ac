/* One libcurl transfer, shared by the blocking and the curl-multi client (internal to
 * libebb-common). */
#ifndef EBB_HTTP_XFER_H
#define EBB_HTTP_XFER_H

#include <curl/curl.h>
#include <stdbool.h>

#include "lib/http-client.h"

typedef struct ebb_http_xfer
{
  CURL *easy;
  struct curl_slist *headers;
  char *url;
  char *unix_path;
  char *body;
  size_t body_len, body_alloc, max_bytes;
  bool too_big;
  bool (*sink) (const char *data, size_t len, void *sink_ud); /* see ebb_http_call_opts */
  void *sink_ud;
  char errbuf[CURL_ERROR_SIZE];
  /* Used by the multi client only. */
  ebb_http_done_fn done;
  void *userdata;
  struct ebb_http_xfer *prev, *next;
} ebb_http_xfer;

/* Returns a configured transfer, or NULL with *err set (EINVAL: bad base or method). */
ebb_http_xfer *ebb_http_xfer_new (const char *method, const char *base, const char *path,
                                  json_object *body, const ebb_http_call_opts *opts,
                                  ebb_error **err);

/* Turns curl's result into *out; returns 0, or a negative code with *err set and *out
 * zeroed. */
int ebb_http_xfer_finish (ebb_http_xfer *x, CURLcode code, ebb_http_result *out, ebb_error **err);

void ebb_http_xfer_free (ebb_http_xfer *x);

/* curl_global_init once per process. */
void ebb_http_curl_init_once (void);

#endif
