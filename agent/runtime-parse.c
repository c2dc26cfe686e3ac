/* Parsers of what Docker and Podman say (inspect and list documents, events), of
 * /proc/PID/cgroup, and the incremental splitter of the /events stream. Pure functions, no
 * I/O except ebb_rt_read_proc_cgroup(), so the unit suite can feed them hostile input. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent/runtime.h"
#include "lib/json.h"
#include "lib/util.h"

/* /proc/PID/cgroup holds one line per hierarchy; more than this is not a real kernel. */
#define MAX_CGROUP_LINES      64
#define MAX_PROC_CGROUP_BYTES (64 * 1024)

void
ebb_rt_cgroups_clear (ebb_rt_cgroups *cg)
{
  if (!cg)
    return;
  for (size_t i = 0; i < cg->n_lines; i++)
    {
      free (cg->lines[i].controllers);
      free (cg->lines[i].path);
    }
  free (cg->lines);
  memset (cg, 0, sizeof *cg);
}

void
ebb_rt_info_clear (ebb_rt_info *info)
{
  if (!info)
    return;
  free (info->id);
  free (info->name);
  free (info->started_at);
  free (info->reason);
  free (info->job);
  ebb_rt_cgroups_clear (&info->cgroups);
  memset (info, 0, sizeof *info);
}

const char *
ebb_rt_kind_name (ebb_rt_kind kind)
{
  return kind == EBB_RT_PODMAN ? "podman" : "docker";
}

const char *
ebb_rt_class_name (ebb_rt_class cls)
{
  switch (cls)
    {
    case EBB_RT_CLASS_SHORT:
      return "short";
    case EBB_RT_CLASS_LONG:
      return "long";
    default:
      return NULL;
    }
}

/* A container id as the engines print it: lowercase hex, 12 (short form) to 64 digits. */
static bool
id_is_hex (const char *s)
{
  size_t n = 0;
  for (; s[n]; n++)
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
      return false;
  return n >= 12 && n <= 64;
}

/* ---------------------------------------------------------------------------------- */
/* Labels                                                                               */

/* Records the first reason a container cannot be managed. */
static void EBB_PRINTF (2, 3) not_managed (ebb_rt_info *info, const char *fmt, ...)
{
  info->managed = false;
  if (info->reason)
    return;
  va_list ap;
  va_start (ap, fmt);
  if (vasprintf (&info->reason, fmt, ap) < 0)
    abort ();
  va_end (ap);
}

/* A decimal integer label in [1, max]: digits only (no sign, space, suffix or hex). */
static bool
parse_label_u64 (const char *s, uint64_t max, uint64_t *out)
{
  uint64_t v = 0;
  if (!*s || strlen (s) > 20)
    return false;
  for (const char *p = s; *p; p++)
    {
      if (*p < '0' || *p > '9')
        return false;
      unsigned d = (unsigned)(*p - '0');
      if (v > (UINT64_MAX - d) / 10)
        return false;
      v = v * 10 + d;
    }
  if (v < 1 || v > max)
    return false;
  *out = v;
  return true;
}

/* Returns the string value of label key, NULL when absent; *bad set when present but not a
 * string. */
static const char *
label_string (json_object *labels, const char *key, bool *bad)
{
  json_object *v = NULL;
  *bad = false;
  if (!json_object_object_get_ex (labels, key, &v))
    return NULL;
  if (!json_object_is_type (v, json_type_string))
    {
      *bad = true;
      return NULL;
    }
  return json_object_get_string (v);
}

/* The quoted value in a reason, cut so a hostile label cannot make the reason huge. */
#define QV(s) (int)(strlen (s) > 64 ? 64 : strlen (s)), (s)

static void
check_numeric_label (json_object *labels, const char *key, uint64_t max, uint64_t *out,
                     ebb_rt_info *info)
{
  bool bad;
  const char *s = label_string (labels, key, &bad);
  *out = 0;
  if (!s)
    not_managed (info, bad ? "label %s: not a string" : "label %s missing", key);
  else if (!parse_label_u64 (s, max, out))
    not_managed (info, "label %s: must be an integer in [1, %" PRIu64 "], got \"%.*s\"", key, max,
                 QV (s));
}

int
ebb_rt_parse_labels (json_object *labels, ebb_rt_info *info)
{
  free (info->job);
  free (info->reason);
  info->job = info->reason = NULL;
  info->ours = info->managed = false;
  info->cls = EBB_RT_CLASS_NONE;
  info->cpu_millis = info->memory_bytes = 0;
  if (!labels || !json_object_is_type (labels, json_type_object))
    return 0;
  json_object_object_foreach (labels, key, val)
  {
    (void)val;
    if (strncmp (key, "ebb.", 4) == 0)
      info->ours = true;
  }
  if (!info->ours)
    return 0;
  info->managed = true;
  bool bad;
  const char *job = label_string (labels, "ebb.job", &bad);
  if (!job)
    not_managed (info, bad ? "label ebb.job: not a string" : "label ebb.job missing");
  else if (!ebb_id_is_valid (job, EBB_RT_ID_MAX))
    not_managed (info, "label ebb.job: must be an id of [A-Za-z0-9._-]{1,64}, got \"%.*s\"",
                 QV (job));
  else
    info->job = ebb_xstrdup (job);
  const char *cls = label_string (labels, "ebb.class", &bad);
  if (cls && strcmp (cls, "short") == 0)
    info->cls = EBB_RT_CLASS_SHORT;
  else if (cls && strcmp (cls, "long") == 0)
    info->cls = EBB_RT_CLASS_LONG;
  else if (cls)
    not_managed (info, "label ebb.class: must be short or long, got \"%.*s\"", QV (cls));
  else
    not_managed (info, bad ? "label ebb.class: not a string" : "label ebb.class missing");
  check_numeric_label (labels, "ebb.cpu", EBB_RT_CPU_MILLIS_MAX, &info->cpu_millis, info);
  check_numeric_label (labels, "ebb.memory", EBB_RT_MEMORY_BYTES_MAX, &info->memory_bytes, info);
  return 1;
}

/* ---------------------------------------------------------------------------------- */
/* Inspect and list documents                                                           */

static json_object *
member (json_object *obj, const char *key, json_type type)
{
  json_object *v = NULL;
  if (!obj || !json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, type))
    return NULL;
  return v;
}

/* Takes the id and name common to both documents. */
static int
parse_identity (json_object *doc, const char *name, ebb_rt_info *info, ebb_error **err)
{
  json_object *id = member (doc, "Id", json_type_string);
  if (!id || !id_is_hex (json_object_get_string (id)))
    return ebb_error_set (err, EBB_EPARSE, "container: Id missing or not a hex id");
  if (!name || !*name || strlen (name) > 256)
    return ebb_error_set (err, EBB_EPARSE, "container %.12s: Name missing or invalid",
                          json_object_get_string (id));
  info->id = ebb_xstrdup (json_object_get_string (id));
  info->name = ebb_xstrdup (name[0] == '/' ? name + 1 : name);
  return 0;
}

/* State of an inspect document: Running, Pid, ExitCode, StartedAt. */
static int
parse_state (json_object *state, ebb_rt_info *info, ebb_error **err)
{
  json_object *running = member (state, "Running", json_type_boolean);
  json_object *pid = member (state, "Pid", json_type_int);
  if (!running || !pid)
    return ebb_error_set (err, EBB_EPARSE, "container %.12s: State.Running or State.Pid missing",
                          info->id);
  int64_t p = json_object_get_int64 (pid);
  if (p < 0 || p > INT_MAX)
    return ebb_error_set (err, EBB_EPARSE, "container %.12s: State.Pid out of range", info->id);
  info->running = json_object_get_boolean (running);
  info->pid = info->running ? (pid_t)p : 0;
  if (info->running && info->pid <= 0)
    return ebb_error_set (err, EBB_EPARSE, "container %.12s: running without a PID", info->id);
  json_object *code = member (state, "ExitCode", json_type_int);
  int64_t c = code ? json_object_get_int64 (code) : -1;
  info->exit_code = c < INT_MIN || c > INT_MAX ? -1 : (int)c;
  json_object *started = member (state, "StartedAt", json_type_string);
  if (started && json_object_get_string_len (started) < 64)
    info->started_at = ebb_xstrdup (json_object_get_string (started));
  return 0;
}

int
ebb_rt_parse_inspect (ebb_rt_kind kind, json_object *doc, ebb_rt_info *info, ebb_error **err)
{
  memset (info, 0, sizeof *info);
  info->kind = kind;
  if (!doc || !json_object_is_type (doc, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "container inspect: not an object");
  json_object *name = member (doc, "Name", json_type_string);
  json_object *state = member (doc, "State", json_type_object);
  json_object *config = member (doc, "Config", json_type_object);
  int r = parse_identity (doc, name ? json_object_get_string (name) : NULL, info, err);
  if (r >= 0 && !state)
    r = ebb_error_set (err, EBB_EPARSE, "container %.12s: State missing", info->id);
  if (r >= 0)
    r = parse_state (state, info, err);
  if (r < 0)
    {
      ebb_rt_info_clear (info);
      return r;
    }
  ebb_rt_parse_labels (member (config, "Labels", json_type_object), info);
  return 0;
}

int
ebb_rt_parse_list_entry (ebb_rt_kind kind, json_object *entry, ebb_rt_info *info, ebb_error **err)
{
  memset (info, 0, sizeof *info);
  info->kind = kind;
  if (!entry || !json_object_is_type (entry, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "container list: entry not an object");
  json_object *names = member (entry, "Names", json_type_array);
  json_object *first
      = names && json_object_array_length (names) > 0 ? json_object_array_get_idx (names, 0) : NULL;
  const char *name = first && json_object_is_type (first, json_type_string)
                         ? json_object_get_string (first)
                         : NULL;
  int r = parse_identity (entry, name, info, err);
  if (r < 0)
    {
      ebb_rt_info_clear (info);
      return r;
    }
  json_object *state = member (entry, "State", json_type_string);
  info->running = state && strcmp (json_object_get_string (state), "running") == 0;
  info->exit_code = -1;
  ebb_rt_parse_labels (member (entry, "Labels", json_type_object), info);
  return 0;
}

/* ---------------------------------------------------------------------------------- */
/* /proc/PID/cgroup                                                                     */

/* Points the convenience fields at the line that holds each controller. */
static void
index_controllers (ebb_rt_cgroups *cg)
{
  for (size_t i = 0; i < cg->n_lines; i++)
    {
      ebb_rt_cgroup_line *l = &cg->lines[i];
      if (l->hierarchy == 0 && !*l->controllers)
        {
          cg->unified = l->path;
          continue;
        }
      cleanup_free char *copy = ebb_xstrdup (l->controllers);
      char *save = NULL;
      for (char *c = strtok_r (copy, ",", &save); c; c = strtok_r (NULL, ",", &save))
        {
          const char **slot = strcmp (c, "cpu") == 0       ? &cg->cpu
                              : strcmp (c, "cpuacct") == 0 ? &cg->cpuacct
                              : strcmp (c, "memory") == 0  ? &cg->memory
                              : strcmp (c, "freezer") == 0 ? &cg->freezer
                              : strcmp (c, "pids") == 0    ? &cg->pids
                                                           : NULL;
          if (slot)
            *slot = l->path;
        }
    }
}

/* Parses one "N:controllers:path" line into l. Returns 0 or -EBB_EPARSE. */
static int
parse_cgroup_line (const char *line, size_t len, ebb_rt_cgroup_line *l, size_t lineno,
                   ebb_error **err)
{
  const char *c1 = memchr (line, ':', len);
  const char *c2 = c1 ? memchr (c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
  if (!c2 || c1 == line || c1 - line > 9)
    return ebb_error_set (err, EBB_EPARSE, "cgroup line %zu: not N:controllers:path", lineno);
  int h = 0;
  for (const char *p = line; p < c1; p++)
    {
      if (*p < '0' || *p > '9')
        return ebb_error_set (err, EBB_EPARSE, "cgroup line %zu: bad hierarchy id", lineno);
      h = h * 10 + (*p - '0');
    }
  const char *path = c2 + 1;
  size_t plen = len - (size_t)(path - line);
  if (plen == 0 || path[0] != '/' || memchr (path, '\0', plen))
    return ebb_error_set (err, EBB_EPARSE, "cgroup line %zu: path must start with /", lineno);
  l->hierarchy = h;
  l->controllers = strndup (c1 + 1, (size_t)(c2 - c1 - 1));
  l->path = strndup (path, plen);
  if (!l->controllers || !l->path)
    abort ();
  return 0;
}

int
ebb_rt_parse_proc_cgroup (const char *text, ebb_rt_cgroups *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!text)
    return ebb_error_set (err, EINVAL, "no /proc/PID/cgroup text");
  size_t lineno = 0;
  for (const char *p = text; *p;)
    {
      const char *nl = strchr (p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen (p);
      lineno++;
      if (len > 0)
        {
          if (out->n_lines == MAX_CGROUP_LINES)
            {
              ebb_rt_cgroups_clear (out);
              return ebb_error_set (err, EBB_EPARSE, "more than %d cgroup lines", MAX_CGROUP_LINES);
            }
          out->lines = ebb_xrealloc (out->lines, (out->n_lines + 1) * sizeof *out->lines);
          memset (&out->lines[out->n_lines], 0, sizeof *out->lines);
          if (parse_cgroup_line (p, len, &out->lines[out->n_lines], lineno, err) < 0)
            {
              ebb_rt_cgroups_clear (out);
              return -EBB_EPARSE;
            }
          out->n_lines++;
        }
      p += len + (nl ? 1 : 0);
    }
  if (out->n_lines == 0)
    return ebb_error_set (err, EBB_EPARSE, "no cgroup lines");
  index_controllers (out);
  return 0;
}

int
ebb_rt_read_proc_cgroup (const char *proc_root, pid_t pid, ebb_rt_cgroups *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (pid <= 0)
    return ebb_error_set (err, EINVAL, "no PID");
  cleanup_free char *path
      = ebb_xasprintf ("%s/%d/cgroup", proc_root ? proc_root : "/proc", (int)pid);
  cleanup_fclose FILE *f = fopen (path, "re");
  if (!f)
    {
      if (errno == ENOENT || errno == ESRCH)
        return ebb_error_set (err, EBB_EGONE, "process %d is gone", (int)pid);
      return ebb_error_set_errno (err, errno, "open %s", path);
    }
  cleanup_free char *buf = ebb_xmalloc (MAX_PROC_CGROUP_BYTES + 1);
  size_t n = fread (buf, 1, MAX_PROC_CGROUP_BYTES + 1, f);
  if (ferror (f))
    return errno == ESRCH ? ebb_error_set (err, EBB_EGONE, "process %d is gone", (int)pid)
                          : ebb_error_set_errno (err, errno, "read %s", path);
  if (n > MAX_PROC_CGROUP_BYTES)
    return ebb_error_set (err, EBB_EPARSE, "%s: larger than %d bytes", path, MAX_PROC_CGROUP_BYTES);
  buf[n] = '\0';
  if (n == 0)
    return ebb_error_set (err, EBB_EGONE, "process %d is gone (empty %s)", (int)pid, path);
  int r = ebb_rt_parse_proc_cgroup (buf, out, err);
  return r < 0 ? ebb_error_wrap (err, "%s", path) : 0;
}

/* ---------------------------------------------------------------------------------- */
/* Events                                                                               */

static const struct
{
  const char *action;
  ebb_rt_ev_type type;
} actions[] = {
  { "start", EBB_RT_EV_START },    { "die", EBB_RT_EV_DIE },       { "died", EBB_RT_EV_DIE },
  { "oom", EBB_RT_EV_OOM },        { "update", EBB_RT_EV_UPDATE }, { "destroy", EBB_RT_EV_DESTROY },
  { "remove", EBB_RT_EV_DESTROY }, /* Podman's name for destroy */
};

/* An exit code attribute: a decimal string (both engines) or an integer. */
static int
parse_exit_code (json_object *v)
{
  if (!v)
    return -1;
  if (json_object_is_type (v, json_type_int))
    {
      int64_t c = json_object_get_int64 (v);
      return c < 0 || c > 255 ? -1 : (int)c;
    }
  if (!json_object_is_type (v, json_type_string))
    return -1;
  const char *s = json_object_get_string (v);
  uint64_t c = 0;
  if (strcmp (s, "0") == 0)
    return 0;
  return parse_label_u64 (s, 255, &c) ? (int)c : -1;
}

static int64_t
parse_event_time (json_object *obj)
{
  json_object *v = member (obj, "timeNano", json_type_int);
  if (v)
    return json_object_get_int64 (v);
  v = member (obj, "time", json_type_int);
  int64_t t = v ? json_object_get_int64 (v) : 0;
  return t > 0 && t < INT64_MAX / 1000000000 ? t * 1000000000 : 0;
}

int
ebb_rt_parse_event (json_object *obj, ebb_rt_raw_event *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!obj || !json_object_is_type (obj, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "event: not an object");
  json_object *type = member (obj, "Type", json_type_string);
  if (type && strcmp (json_object_get_string (type), "container") != 0)
    return 0;
  json_object *action = member (obj, "Action", json_type_string);
  if (!action)
    action = member (obj, "status", json_type_string);
  json_object *actor = member (obj, "Actor", json_type_object);
  json_object *attrs = member (actor, "Attributes", json_type_object);
  json_object *id = member (actor, "ID", json_type_string);
  if (!id)
    id = member (obj, "id", json_type_string);
  if (!action || !id)
    return ebb_error_set (err, EBB_EPARSE, "event: Action or id missing");
  if (!id_is_hex (json_object_get_string (id)))
    return ebb_error_set (err, EBB_EPARSE, "event: id is not a container id");
  snprintf (out->id, sizeof out->id, "%s", json_object_get_string (id));
  const char *a = json_object_get_string (action);
  out->type = EBB_RT_EV_OTHER;
  for (size_t i = 0; i < EBB_ARRAY_SIZE (actions); i++)
    if (strcmp (a, actions[i].action) == 0)
      out->type = actions[i].type;
  out->exit_code = -1;
  if (out->type == EBB_RT_EV_DIE)
    {
      out->exit_code = parse_exit_code (member (attrs, "exitCode", json_type_string));
      if (out->exit_code < 0)
        out->exit_code = parse_exit_code (member (attrs, "containerExitCode", json_type_string));
    }
  out->time_nsec = parse_event_time (obj);
  return 1;
}

/* ---------------------------------------------------------------------------------- */
/* Stream splitter                                                                      */

struct ebb_rt_stream
{
  json_tokener *tok;
  size_t max_value_bytes;
  size_t value_bytes; /* fed into the value being parsed */
  bool in_value;
  /* Where the value ends: json-c's strict mode refuses bytes after a value in the same
   * buffer, so the splitter finds the end itself and feeds the tokener exactly one value. */
  unsigned depth;
  bool in_string, escape;
  bool failed;
};

ebb_rt_stream *
ebb_rt_stream_new (size_t max_value_bytes, int max_depth)
{
  ebb_rt_stream *s = ebb_xcalloc (1, sizeof *s);
  s->tok = json_tokener_new_ex (max_depth > 0 ? max_depth : EBB_JSON_MAX_DEPTH);
  if (!s->tok)
    abort ();
  json_tokener_set_flags (s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  s->max_value_bytes = max_value_bytes ? max_value_bytes : 1024 * 1024;
  if (s->max_value_bytes > INT_MAX / 2)
    s->max_value_bytes = INT_MAX / 2; /* json_tokener_parse_ex takes an int length */
  return s;
}

void
ebb_rt_stream_free (ebb_rt_stream *s)
{
  if (!s)
    return;
  json_tokener_free (s->tok);
  free (s);
}

/* Returns how many bytes of buf belong to the current value; *complete when it ends there,
 * *bad when it holds a single quote outside a string (json-c 0.16 accepts 'strings' even in
 * strict mode). */
static size_t
scan_value (ebb_rt_stream *s, const char *buf, size_t len, bool *complete, bool *bad)
{
  *complete = *bad = false;
  for (size_t i = 0; i < len; i++)
    {
      char c = buf[i];
      if (s->in_string)
        {
          if (s->escape)
            s->escape = false;
          else if (c == '\\')
            s->escape = true;
          else if (c == '"')
            s->in_string = false;
          continue;
        }
      if (c == '"')
        s->in_string = true;
      else if (c == '\'')
        {
          *bad = true;
          return i;
        }
      else if (c == '{' || c == '[')
        s->depth++;
      else if ((c == '}' || c == ']') && s->depth > 0 && --s->depth == 0)
        {
          *complete = true;
          return i + 1;
        }
    }
  return len;
}

/* Feeds the bytes of the current value found in buf. Returns 1 with *obj when the value is
 * complete, 0 when more is needed, negative with *err. *used says how much of buf it took. */
static int
feed_value (ebb_rt_stream *s, const char *buf, size_t len, json_object **obj, size_t *used,
            ebb_error **err)
{
  bool complete, bad;
  size_t n = scan_value (s, buf, len, &complete, &bad);
  if (bad)
    return ebb_error_set (err, EBB_EPARSE, "event stream: invalid JSON: single quote");
  *used = n;
  s->value_bytes += n;
  if (s->value_bytes > s->max_value_bytes)
    return ebb_error_set (err, EBB_ERANGE, "event stream: value larger than %zu bytes",
                          s->max_value_bytes);
  *obj = json_tokener_parse_ex (s->tok, buf, (int)n);
  enum json_tokener_error jerr = json_tokener_get_error (s->tok);
  if (jerr == json_tokener_continue && !complete)
    return 0;
  if (jerr != json_tokener_success || !complete || !*obj)
    {
      json_object_put (*obj);
      *obj = NULL;
      return ebb_error_set (err, EBB_EPARSE, "event stream: invalid JSON: %s",
                            jerr == json_tokener_success || jerr == json_tokener_continue
                                ? "value ends early"
                                : json_tokener_error_desc (jerr));
    }
  json_tokener_reset (s->tok);
  s->in_value = false;
  return 1;
}

int
ebb_rt_stream_feed (ebb_rt_stream *s, const char *buf, size_t len, ebb_rt_stream_fn fn,
                    void *userdata, ebb_error **err)
{
  if (s->failed)
    return ebb_error_set (err, EBB_EPARSE, "event stream: used after an error");
  size_t off = 0;
  while (off < len)
    {
      if (!s->in_value)
        {
          while (off < len
                 && (buf[off] == ' ' || buf[off] == '\n' || buf[off] == '\r' || buf[off] == '\t'))
            off++;
          if (off == len)
            break;
          if (buf[off] != '{' && buf[off] != '[')
            {
              s->failed = true;
              return ebb_error_set (err, EBB_EPARSE,
                                    "event stream: expected an object or array, got '%c'",
                                    isprint ((unsigned char)buf[off]) ? buf[off] : '?');
            }
          s->in_value = true;
          s->value_bytes = 0;
          s->depth = 0;
          s->in_string = s->escape = false;
        }
      json_object *obj = NULL;
      size_t used = 0;
      int r = feed_value (s, buf + off, len - off, &obj, &used, err);
      if (r < 0)
        {
          s->failed = true;
          return r;
        }
      off += used;
      if (r == 1 && (r = fn (obj, userdata)) < 0)
        return r;
    }
  return 0;
}
