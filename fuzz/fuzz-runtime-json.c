/* libFuzzer target: what the agent reads from Docker and Podman (agent/runtime-parse.c):
 * inspect documents and list entries of both engines, labels, /events objects, the events
 * stream splitter fed in chunks, and /proc/PID/cgroup text. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/runtime.h"
#include "lib/json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
on_value (json_object *obj, void *userdata)
{
  size_t *n = userdata;
  ebb_rt_raw_event ev;
  ebb_error *err = NULL;
  ebb_rt_parse_event (obj, &ev, &err);
  ebb_error_free (&err);
  json_object_put (obj);
  return ++*n > 1000 ? -1 : 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ebb_error *err = NULL;
  json_object *doc = ebb_json_parse ((const char *)data, size, 0, &err);
  ebb_error_free (&err);
  if (doc)
    {
      for (int k = EBB_RT_DOCKER; k <= EBB_RT_PODMAN; k++)
        {
          ebb_rt_info info = { 0 };
          ebb_rt_parse_inspect ((ebb_rt_kind)k, doc, &info, &err);
          ebb_error_free (&err);
          ebb_rt_info_clear (&info);
          info = (ebb_rt_info){ 0 };
          ebb_rt_parse_list_entry ((ebb_rt_kind)k, doc, &info, &err);
          ebb_error_free (&err);
          ebb_rt_info_clear (&info);
        }
      ebb_rt_info info = { 0 };
      ebb_rt_parse_labels (doc, &info);
      ebb_rt_info_clear (&info);
      ebb_rt_raw_event ev;
      ebb_rt_parse_event (doc, &ev, &err);
      ebb_error_free (&err);
      json_object_put (doc);
    }
  /* The same bytes as an events stream, in chunks of 7 (values split across feeds). */
  ebb_rt_stream *st = ebb_rt_stream_new (4096, 16);
  size_t n = 0;
  for (size_t off = 0; off < size; off += 7)
    if (ebb_rt_stream_feed (st, (const char *)data + off, size - off < 7 ? size - off : 7,
                            on_value, &n, &err)
        < 0)
      break;
  ebb_error_free (&err);
  ebb_rt_stream_free (st);
  /* And as /proc/PID/cgroup. */
  char *text = malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  ebb_rt_cgroups cg;
  if (ebb_rt_parse_proc_cgroup (text, &cg, &err) == 0)
    ebb_rt_cgroups_clear (&cg);
  ebb_error_free (&err);
  free (text);
  return 0;
}
