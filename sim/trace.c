/* Trace reading, writing and generation for ebb-sim. */
#include "config.h"

#include "sim/trace.h"
#include "sim/dag.h"
#include "lib/json.h"
#include "lib/util.h"
#include "policies/policy.h"

#include <json-c/json.h>

#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <string.h>

ebb_sim_trace *
ebb_sim_trace_new (void)
{
  return ebb_xcalloc (1, sizeof (ebb_sim_trace));
}

void
ebb_sim_trace_free (ebb_sim_trace *t)
{
  if (!t)
    return;
  free (t->submit_sec);
  free (t->mean_sec);
  free (t->ntasks);
  free (t->first_task);
  free (t->dur_sec);
  free (t->cpu_millis);
  free (t->memory_bytes);
  free (t->klass);
  free (t->priority);
  ebb_sim_dag_free (t->dag);
  free (t);
}

const char *
ebb_sim_json_unknown_key (struct json_object *o, const char *const *known, size_t n)
{
  json_object_object_foreach (o, key, val)
  {
    (void)val;
    size_t k = 0;
    while (k < n && strcmp (known[k], key) != 0)
      k++;
    if (k == n)
      return key;
  }
  return NULL;
}

static void
reserve_jobs (ebb_sim_trace *t, uint32_t need)
{
  if (need <= t->jobs_cap)
    return;
  uint32_t cap = (uint32_t)ebb_grow_cap (t->jobs_cap, 1024, need);
  t->submit_sec = ebb_xrealloc (t->submit_sec, cap * sizeof (double));
  t->mean_sec = ebb_xrealloc (t->mean_sec, cap * sizeof (double));
  t->ntasks = ebb_xrealloc (t->ntasks, cap * sizeof (uint32_t));
  t->first_task = ebb_xrealloc (t->first_task, cap * sizeof (uint64_t));
  if (t->cpu_millis)
    {
      t->cpu_millis = ebb_xrealloc (t->cpu_millis, cap * sizeof (int64_t));
      t->memory_bytes = ebb_xrealloc (t->memory_bytes, cap * sizeof (int64_t));
      t->klass = ebb_xrealloc (t->klass, cap);
    }
  if (t->priority)
    {
      t->priority = ebb_xrealloc (t->priority, cap * sizeof (int32_t));
      memset (t->priority + t->jobs_cap, 0, (cap - t->jobs_cap) * sizeof (int32_t));
    }
  t->jobs_cap = cap;
}

static void
reserve_tasks (ebb_sim_trace *t, uint64_t need)
{
  if (need <= t->dur_cap)
    return;
  uint64_t cap = ebb_grow_cap (t->dur_cap, 16384, need);
  t->dur_sec = ebb_xrealloc (t->dur_sec, cap * sizeof (double));
  t->dur_cap = cap;
}

uint32_t
ebb_sim_trace_add (ebb_sim_trace *t, double submit_sec, double mean_sec, uint32_t ntasks,
                   const double *dur_sec)
{
  reserve_jobs (t, t->njobs + 1);
  reserve_tasks (t, t->ntasks_total + ntasks);
  uint32_t j = t->njobs++;
  t->submit_sec[j] = submit_sec;
  t->mean_sec[j] = mean_sec;
  t->ntasks[j] = ntasks;
  t->first_task[j] = t->ntasks_total;
  if (dur_sec)
    memcpy (t->dur_sec + t->ntasks_total, dur_sec, ntasks * sizeof (double));
  t->ntasks_total += ntasks;
  return j;
}

/* Clinger's fast path: "digits[.digits]" with at most 15 significant digits is an exact
 * integer divided by an exact power of ten, and one IEEE division rounds correctly, so the
 * result equals strtod's. Returns 0, or -1 to let strtod handle the token. Traces of 10^7
 * durations spend most of their load time here. */
static int
fast_decimal (const char *p, double *out, char **end)
{
  static const double pow10[]
      = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
  uint64_t m = 0;
  int digits = 0, frac = 0;
  const char *s = p;
  while (*s >= '0' && *s <= '9')
    m = m * 10 + (uint64_t)(*s++ - '0'), digits++;
  if (*s == '.')
    for (s++; *s >= '0' && *s <= '9'; s++)
      m = m * 10 + (uint64_t)(*s - '0'), digits++, frac++;
  if (digits == 0 || digits > 15 || (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r'))
    return -1;
  *out = (double)m / pow10[frac];
  *end = (char *)s;
  return 0;
}

/* Parses one non-negative finite number at *s (skipping blanks); returns 1 and advances,
 * 0 at end of line, -1 on a malformed token (its text in bad). */
static int
next_number (char **s, double *out, char *bad, size_t bad_len)
{
  char *p = *s;
  while (*p == ' ' || *p == '\t' || *p == '\r')
    p++;
  if (*p == '\0' || *p == '\n')
    {
      *s = p;
      return 0;
    }
  char *end;
  double v;
  if (fast_decimal (p, &v, &end) < 0)
    {
      errno = 0;
      v = strtod (p, &end);
    }
  if (end == p || (*end && !isspace ((unsigned char)*end)) || errno == ERANGE || !isfinite (v)
      || v < 0)
    {
      size_t n = strcspn (p, " \t\r\n");
      snprintf (bad, bad_len, "%.*s", (int)(n > 40 ? 40 : n), p);
      return -1;
    }
  *out = v;
  *s = end;
  return 1;
}

static int
parse_line (ebb_sim_trace *t, char *line, const char *name, size_t lineno, ebb_error **err)
{
  static const char *const what[] = { "submission time", "number of tasks", "mean task duration" };
  double head[3];
  char bad[48];
  char *s = line;
  for (int i = 0; i < 3; i++)
    {
      int r = next_number (&s, &head[i], bad, sizeof bad);
      if (r < 0)
        return ebb_error_set (err, EBB_EPARSE, "%s:%zu: %s '%s' is not a non-negative number", name,
                              lineno, what[i], bad);
      if (r == 0)
        return ebb_error_set (err, EBB_EPARSE, "%s:%zu: missing %s", name, lineno, what[i]);
    }
  if (head[1] != floor (head[1]) || head[1] < 1 || head[1] > 1e8)
    return ebb_error_set (err, EBB_EPARSE,
                          "%s:%zu: number of tasks %g is not an integer in [1, 100000000]", name,
                          lineno, head[1]);
  uint32_t n = (uint32_t)head[1];
  reserve_tasks (t, t->ntasks_total + n);
  double *d = t->dur_sec + t->ntasks_total;
  for (uint32_t i = 0; i < n; i++)
    {
      int r = next_number (&s, &d[i], bad, sizeof bad);
      if (r < 0)
        return ebb_error_set (err, EBB_EPARSE,
                              "%s:%zu: task duration %u '%s' is not a non-negative number", name,
                              lineno, i + 1, bad);
      if (r == 0)
        return ebb_error_set (err, EBB_EPARSE, "%s:%zu: %u task durations announced, %u found",
                              name, lineno, n, i);
    }
  double extra;
  if (next_number (&s, &extra, bad, sizeof bad) != 0)
    return ebb_error_set (err, EBB_EPARSE, "%s:%zu: more than the %u task durations announced",
                          name, lineno, n);
  ebb_sim_trace_add (t, head[0], head[2], n, NULL);
  return 0;
}

void
ebb_sim_trace_set_res (ebb_sim_trace *t, uint32_t j, int64_t cpu_millis, int64_t memory_bytes,
                       uint8_t klass)
{
  if (!t->cpu_millis)
    {
      size_t cap = t->jobs_cap ? t->jobs_cap : 1;
      t->cpu_millis = ebb_xcalloc (cap, sizeof (int64_t));
      t->memory_bytes = ebb_xcalloc (cap, sizeof (int64_t));
      t->klass = ebb_xcalloc (cap, 1);
    }
  t->cpu_millis[j] = cpu_millis;
  t->memory_bytes[j] = memory_bytes;
  t->klass[j] = klass;
}

/* One JSON-lines job: {"id":..,"submit":..,"cpu_millis":..,"memory_bytes":..,
 * "durations":[..],"est":..,"class":"short"|"long"}; id, est and class optional. */
static int
parse_json_line (ebb_sim_trace *t, const char *line, const char *name, size_t lineno,
                 ebb_error **err)
{
  ebb_error *e = NULL;
  struct json_object *o = ebb_json_parse (line, strlen (line), 4, &e);
  if (!o)
    {
      ebb_error_set (err, EBB_EPARSE, "%s:%zu: %s", name, lineno, ebb_error_msg (&e));
      ebb_error_free (&e);
      return -EBB_EPARSE;
    }
  int r = -EBB_EPARSE;
  if (!json_object_is_type (o, json_type_object))
    {
      ebb_error_set (err, EBB_EPARSE, "%s:%zu: a job must be a JSON object", name, lineno);
      goto out;
    }
  if (json_object_object_get_ex (o, "tasks", NULL))
    {
      /* A DAG job: its tasks carry their own demand vectors (sim/dag.c). */
      r = ebb_sim_dag_parse_json (t, o, name, lineno, err);
      goto out;
    }
  static const char *const known[]
      = { "id", "submit", "cpu_millis", "memory_bytes", "durations", "est", "class", "priority" };
  const char *unknown = ebb_sim_json_unknown_key (o, known, EBB_ARRAY_SIZE (known));
  if (unknown)
    {
      ebb_error_set (err, EBB_EPARSE, "%s:%zu: unknown key '%.40s'", name, lineno, unknown);
      goto out;
    }
  const char *id = NULL;
  double submit = 0, est = 0;
  int64_t cpu = 0, mem = 0, prio = 0;
  const char *klass = NULL;
  int got;
  if (ebb_json_get_string (o, "id", 256, NULL, &id, &e) < 0
      || (got = ebb_json_get_double (o, "submit", 0, 1e12, &submit, &e)) < 0
      || (got == 0 && (ebb_error_set (&e, EBB_EPARSE, "submit is required"), 1))
      || (got = ebb_json_get_int64 (o, "cpu_millis", 1, INT64_C (1) << 40, &cpu, &e)) < 0
      || (got == 0 && (ebb_error_set (&e, EBB_EPARSE, "cpu_millis is required"), 1))
      || (got = ebb_json_get_int64 (o, "memory_bytes", 0, INT64_C (1) << 56, &mem, &e)) < 0
      || (got == 0 && (ebb_error_set (&e, EBB_EPARSE, "memory_bytes is required"), 1))
      || (got = ebb_json_get_double (o, "est", 0, 1e12, &est, &e)) < 0
      || ebb_json_get_string (o, "class", 16, NULL, &klass, &e) < 0
      || ebb_json_get_int64 (o, "priority", -1000000, 1000000, &prio, &e) < 0)
    {
      ebb_error_set (err, EBB_EPARSE, "%s:%zu: %s", name, lineno, ebb_error_msg (&e));
      ebb_error_free (&e);
      goto out;
    }
  (void)id;
  uint8_t cls = EBB_POL_CLASS_BY_CUTOFF;
  if (klass)
    {
      if (strcmp (klass, "short") == 0)
        cls = EBB_POL_CLASS_SHORT;
      else if (strcmp (klass, "long") == 0)
        cls = EBB_POL_CLASS_LONG;
      else
        {
          ebb_error_set (err, EBB_EPARSE, "%s:%zu: class must be \"short\" or \"long\"", name,
                         lineno);
          goto out;
        }
    }
  struct json_object *d;
  if (!json_object_object_get_ex (o, "durations", &d) || !json_object_is_type (d, json_type_array)
      || json_object_array_length (d) == 0 || json_object_array_length (d) > 100000000)
    {
      ebb_error_set (err, EBB_EPARSE, "%s:%zu: durations must be a non-empty array", name, lineno);
      goto out;
    }
  uint32_t n = (uint32_t)json_object_array_length (d);
  reserve_tasks (t, t->ntasks_total + n);
  double *dur = t->dur_sec + t->ntasks_total, sum = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      struct json_object *x = json_object_array_get_idx (d, i);
      if (!json_object_is_type (x, json_type_double) && !json_object_is_type (x, json_type_int))
        {
          ebb_error_set (err, EBB_EPARSE, "%s:%zu: duration %u is not a number", name, lineno,
                         i + 1);
          goto out;
        }
      dur[i] = json_object_get_double (x);
      if (!(dur[i] >= 0) || dur[i] > 1e12)
        {
          ebb_error_set (err, EBB_EPARSE, "%s:%zu: duration %u out of range [0, 1e12]", name,
                         lineno, i + 1);
          goto out;
        }
      sum += dur[i];
    }
  if (got == 0)
    est = sum / n;
  uint32_t j = ebb_sim_trace_add (t, submit, est, n, NULL);
  ebb_sim_trace_set_res (t, j, cpu, mem, cls);
  if (prio != 0 && !t->priority)
    t->priority = ebb_xcalloc (t->jobs_cap, sizeof (int32_t));
  if (t->priority)
    t->priority[j] = (int32_t)prio;
  r = 0;
out:
  json_object_put (o);
  return r;
}

int
ebb_sim_trace_read_stream (ebb_sim_trace *t, FILE *f, const char *name, ebb_error **err)
{
  cleanup_free char *line = NULL;
  size_t cap = 0, lineno = 0;
  ssize_t len;
  int json = -1; /* decided by the first job line */
  errno = 0;
  while ((len = getline (&line, &cap, f)) >= 0)
    {
      lineno++;
      char *s = line;
      while (*s == ' ' || *s == '\t')
        s++;
      if (*s == '\n' || *s == '\r' || *s == '\0' || *s == '#')
        continue;
      if ((size_t)len != strlen (line))
        return ebb_error_set (err, EBB_EPARSE, "%s:%zu: NUL byte in line", name, lineno);
      int is_json = *s == '{';
      if (json < 0)
        json = is_json;
      else if (json != is_json)
        return ebb_error_set (err, EBB_EPARSE, "%s:%zu: %s line in a %s trace", name, lineno,
                              is_json ? "JSON" : "Hawk-format",
                              json ? "JSON-lines" : "Hawk-format");
      if ((is_json ? parse_json_line (t, s, name, lineno, err)
                   : parse_line (t, s, name, lineno, err))
          < 0)
        return -EBB_EPARSE;
    }
  if (ferror (f))
    return ebb_error_set_errno (err, errno ? errno : EIO, "read %s", name);
  if (t->njobs == 0)
    return ebb_error_set (err, EBB_EPARSE, "%s: no jobs", name);
  return 0;
}

int
ebb_sim_trace_read (ebb_sim_trace *t, const char *path, ebb_error **err)
{
  if (strcmp (path, "-") == 0)
    return ebb_sim_trace_read_stream (t, stdin, "<stdin>", err);
  cleanup_fclose FILE *f = fopen (path, "re");
  if (!f)
    return ebb_error_set_errno (err, errno, "open %s", path);
  return ebb_sim_trace_read_stream (t, f, path, err);
}

int
ebb_sim_trace_write (const ebb_sim_trace *t, FILE *f, ebb_error **err)
{
  for (uint32_t j = 0; t->cpu_millis && j < t->njobs; j++)
    {
      if (ebb_sim_dag_is_dag (t, j))
        {
          ebb_sim_dag_write_job (t, j, f);
          continue;
        }
      static const char *const cls[] = { "", ",\"class\":\"short\"", ",\"class\":\"long\"" };
      fprintf (f,
               "{\"id\":\"j%u\",\"submit\":%.3f,\"cpu_millis\":%" PRId64
               ",\"memory_bytes\":%" PRId64 ",\"est\":%.3f%s,\"durations\":[",
               j + 1, t->submit_sec[j], t->cpu_millis[j], t->memory_bytes[j], t->mean_sec[j],
               cls[t->klass[j] <= 2 ? t->klass[j] : 0]);
      const double *d = t->dur_sec + t->first_task[j];
      for (uint32_t i = 0; i < t->ntasks[j]; i++)
        fprintf (f, "%s%.3f", i ? "," : "", d[i]);
      fputs ("]}\n", f);
    }
  for (uint32_t j = 0; !t->cpu_millis && j < t->njobs; j++)
    {
      fprintf (f, "%.6f %u %.6f", t->submit_sec[j], t->ntasks[j], t->mean_sec[j]);
      const double *d = t->dur_sec + t->first_task[j];
      for (uint32_t i = 0; i < t->ntasks[j]; i++)
        fprintf (f, " %.3f", d[i]);
      fputc ('\n', f);
    }
  if (fflush (f) != 0 || ferror (f))
    return ebb_error_set_errno (err, errno ? errno : EIO, "write trace");
  return 0;
}

int
ebb_sim_trace_is_sorted (const ebb_sim_trace *t)
{
  for (uint32_t j = 1; j < t->njobs; j++)
    if (t->submit_sec[j] < t->submit_sec[j - 1])
      return 0;
  return 1;
}

void
ebb_sim_trace_truncate (ebb_sim_trace *t)
{
  for (uint64_t i = 0; i < t->ntasks_total; i++)
    t->dur_sec[i] = trunc (t->dur_sec[i]);
  for (uint32_t j = 0; j < t->njobs; j++)
    t->mean_sec[j] = trunc (t->mean_sec[j]);
}

void
ebb_sim_gen_hawk2 (ebb_sim_trace *t, uint32_t njobs, double interarrival_sec, ebb_rng *rng)
{
  double now = 0;
  double *d = ebb_xmalloc (1000 * sizeof *d);
  for (uint32_t j = 0; j < njobs; j++)
    {
      int is_long = ebb_rng_double (rng) < 0.05;
      uint32_t n = is_long ? 1000 : 100;
      double dur = is_long ? 20000 : 100;
      for (uint32_t i = 0; i < n; i++)
        d[i] = dur;
      ebb_sim_trace_add (t, now, dur, n, d);
      now += ebb_rng_exponential (rng, interarrival_sec);
    }
  free (d);
}

/* Returns a Gaussian draw with sd = 2 x mean, redrawn while negative (Hawk §4). */
static double
positive_gaussian (ebb_rng *rng, double mean)
{
  if (mean <= 0)
    return 0;
  for (;;)
    {
      double x = ebb_rng_normal (rng, mean, 2 * mean);
      if (x >= 0)
        return x;
    }
}

void
ebb_sim_gen_hetero (ebb_sim_trace *t, uint32_t njobs, double interarrival_sec,
                    const ebb_sim_gen_class *classes, size_t nclasses, ebb_rng *rng)
{
  double total = 0, now = 0;
  for (size_t c = 0; c < nclasses; c++)
    total += classes[c].share;
  for (uint32_t j = 0; j < njobs; j++)
    {
      double u = ebb_rng_double (rng) * total;
      size_t c = 0;
      while (c + 1 < nclasses && u >= classes[c].share)
        u -= classes[c++].share;
      double nt = ceil (ebb_rng_exponential (rng, classes[c].mean_tasks));
      uint32_t n = nt < 1 ? 1 : nt > 1e6 ? 1000000 : (uint32_t)nt;
      double m = ebb_rng_exponential (rng, classes[c].mean_dur_sec);
      uint32_t idx = ebb_sim_trace_add (t, now, 0, n, NULL);
      double *d = t->dur_sec + t->first_task[idx], sum = 0;
      for (uint32_t i = 0; i < n; i++)
        sum += d[i] = positive_gaussian (rng, m);
      /* The job's estimate is the mean of its generated tasks, as Hawk computes it. */
      t->mean_sec[idx] = sum / n;
      now += ebb_rng_exponential (rng, interarrival_sec);
    }
}

void
ebb_sim_gen_hetero_load (ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load,
                         const ebb_sim_gen_class *classes, size_t nclasses, ebb_rng *rng)
{
  uint32_t first = t->njobs;
  uint64_t first_task = t->ntasks_total;
  /* Unit gaps: an exponential draw is its mean times -log(1 - u), so scaling these by the
   * mean gap gives the arrivals --interarrival would draw with that mean, the same jobs. */
  ebb_sim_gen_hetero (t, njobs, 1, classes, nclasses, rng);
  double work = 0;
  for (uint64_t i = first_task; i < t->ntasks_total; i++)
    work += round (t->dur_sec[i] * 1000) / 1000; /* as written: 3 decimals */
  /* The work drawn, not the classes' centroids: a Gaussian of sd 2 x mean redrawn while
   * negative has a mean of 2.02 x its mean parameter. The definition of gen pareto's. */
  double interarrival = work / ((double)njobs * load * nodes);
  for (uint32_t j = first; j < t->njobs; j++)
    t->submit_sec[j] *= interarrival;
}
