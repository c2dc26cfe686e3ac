/* A call to one of several controllers that does not wait out a silent one (issue 20): a leader
 * paused (SIGSTOP, a VM frozen) accepts the connection and never answers, while after its lease
 * a standby leads. While the call is unanswered, every EBBCTL_FOLLOW_PROBE_MS the other listed
 * controllers are asked GET /v1/cluster, all at once (one curl multi, libcurl only: ebbctl
 * links no event loop); once one of them leads itself, or names a leader other than the one
 * waited on at a higher epoch than it knew for that one, the call is abandoned and the caller
 * sends it there. Safe to send again: a submission carries its request_id, and the other
 * mutating calls set a state (see man/ebbctl.1). A deposed leader that wakes with the request
 * still in its socket cannot commit it: its store transactions are fenced (doc/ha.md). */
#include "config.h"

#include <string.h>

#include "cli/ebbctl.h"
#include "cli/follow.h"
#include "lib/http-xfer.h"
#include "lib/time.h"
#include "lib/util.h"

typedef struct
{
  CURLM *multi;
  const char *const *controllers;
  const char *base;                            /* the controller waited on */
  uint64_t base_epoch;                         /* its epoch as the others named it; 0: not known */
  ebb_http_xfer **probes;                      /* one per listed controller; NULL: none in flight */
  ebb_http_call_opts popts;                    /* of the probes */
  bool (*sink) (const char *, size_t, void *); /* the caller's, for a stream */
  void *sink_ud;
  bool answered;  /* the stream's first bytes came: stay with it */
  char *moved_to; /* the leader to ask instead, owned */
} follow;

static bool
follow_sink (const char *data, size_t len, void *ud)
{
  follow *f = ud;
  f->answered = true;
  return f->sink (data, len, f->sink_ud);
}

/* See follow.h. */
const char *
ebbctl_follow_leader (const char *base, uint64_t *base_epoch, const char *url, json_object *cluster)
{
  json_object *leader = ebbctl_member (cluster, "leader");
  const char *lurl = ebbctl_str (leader, "url");
  double epoch = ebbctl_num (leader, "epoch", 0);
  const char *role = ebbctl_str (cluster, "role");
  if (lurl && strcmp (lurl, base) == 0)
    {
      if (epoch > (double)*base_epoch)
        *base_epoch = (uint64_t)epoch;
      return NULL;
    }
  if (role && strcmp (role, "leader") == 0 && strcmp (url, base) != 0)
    return url; /* it answers, and leads: the one waited on cannot (any more) */
  if (lurl && epoch > (double)*base_epoch)
    return lurl;
  return NULL;
}

/* Starts a probe of each listed controller other than the one waited on that has none in
 * flight. */
static void
probe_all (follow *f)
{
  for (size_t i = 0; f->controllers[i]; i++)
    {
      if (f->probes[i] || strcmp (f->controllers[i], f->base) == 0)
        continue;
      ebb_error *err = NULL;
      ebb_http_xfer *x
          = ebb_http_xfer_new ("GET", f->controllers[i], "/v1/cluster", NULL, &f->popts, &err);
      ebb_error_free (&err); /* one that cannot be asked (a bad address) is not asked */
      if (!x)
        continue;
      if (curl_multi_add_handle (f->multi, x->easy) != CURLM_OK)
        {
          ebb_http_xfer_free (x);
          continue;
        }
      f->probes[i] = x;
    }
}

/* Reads the answer of the probe of controller i that ended with code. */
static void
probe_done (follow *f, size_t i, CURLcode code)
{
  ebb_http_xfer *x = f->probes[i];
  f->probes[i] = NULL;
  curl_multi_remove_handle (f->multi, x->easy);
  ebb_http_result res;
  ebb_error *err = NULL;
  if (ebb_http_xfer_finish (x, code, &res, &err) == 0 && res.status == 200 && !f->moved_to)
    {
      const char *to = ebbctl_follow_leader (f->base, &f->base_epoch, f->controllers[i], res.json);
      f->moved_to = to ? ebb_xstrdup (to) : NULL;
    }
  ebb_http_result_clear (&res);
  ebb_error_free (&err);
  ebb_http_xfer_free (x);
}

static int64_t
now_ms (void)
{
  return (int64_t)(ebb_now_usec () / 1000);
}

/* Runs the multi until the call ends (returns true, *code set) or a probe found another leader
 * (false). */
static bool
run (follow *f, ebb_http_xfer *call, CURLcode *code)
{
  int64_t next_probe = now_ms () + EBBCTL_FOLLOW_PROBE_MS;
  for (;;)
    {
      int running = 0, left = 0;
      curl_multi_perform (f->multi, &running);
      CURLMsg *m;
      while ((m = curl_multi_info_read (f->multi, &left)))
        {
          if (m->msg != CURLMSG_DONE)
            continue;
          /* m lives in the handle's memory: read it before the handle goes. */
          CURL *easy = m->easy_handle;
          CURLcode result = m->data.result;
          if (easy == call->easy)
            {
              *code = result;
              return true;
            }
          for (size_t i = 0; f->controllers[i]; i++)
            if (f->probes[i] && f->probes[i]->easy == easy)
              {
                probe_done (f, i, result);
                break;
              }
        }
      if (f->moved_to)
        return false;
      int64_t now = now_ms ();
      if (now >= next_probe && !f->answered)
        {
          probe_all (f);
          next_probe = now + EBBCTL_FOLLOW_PROBE_MS;
          continue;
        }
      int wait_ms = f->answered ? 1000 : (int)(next_probe - now);
      curl_multi_poll (f->multi, NULL, 0, wait_ms, NULL);
    }
}

int
ebbctl_follow_call (const char *const *controllers, const char *method, const char *base,
                    const char *path, json_object *body, const ebb_http_call_opts *opts,
                    ebb_http_result *out, char **moved_to, ebb_error **err)
{
  *out = (ebb_http_result){ 0 };
  *moved_to = NULL;
  size_t n = 0;
  while (controllers[n])
    n++;
  follow f
      = { .controllers = controllers, .base = base, .sink = opts->sink, .sink_ud = opts->sink_ud };
  f.popts = (ebb_http_call_opts){ .bearer_token = opts->bearer_token,
                                  .timeout_ms = EBBCTL_FOLLOW_PROBE_MS,
                                  .ca_file = opts->ca_file };
  ebb_http_call_opts copts = *opts;
  if (opts->sink)
    {
      copts.sink = follow_sink;
      copts.sink_ud = &f;
    }
  ebb_http_xfer *call = ebb_http_xfer_new (method, base, path, body, &copts, err);
  if (!call)
    return ebb_error_code (err) ? -ebb_error_code (err) : -EINVAL;
  f.multi = curl_multi_init ();
  f.probes = ebb_xcalloc (n + 1, sizeof *f.probes);
  CURLcode code = CURLE_OK;
  int r = 0;
  if (!f.multi || curl_multi_add_handle (f.multi, call->easy) != CURLM_OK)
    r = ebb_error_set (err, EIO, "%s: cannot start the call", call->url);
  else if (run (&f, call, &code))
    r = ebb_http_xfer_finish (call, code, out, err);
  else
    *moved_to = ebb_steal_ptr (&f.moved_to);
  for (size_t i = 0; i < n; i++)
    if (f.probes[i])
      {
        curl_multi_remove_handle (f.multi, f.probes[i]->easy);
        ebb_http_xfer_free (f.probes[i]);
      }
  if (f.multi)
    curl_multi_remove_handle (f.multi, call->easy);
  ebb_http_xfer_free (call);
  curl_multi_cleanup (f.multi);
  free (f.probes);
  free (f.moved_to);
  return r;
}
