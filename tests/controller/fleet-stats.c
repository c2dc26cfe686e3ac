/* The fleet's counters for the fault checker: the live copies of every job-task (a launch while
 * another node runs or holds a copy of the same job-task, any generation, is a duplicate), the
 * refused calls by epoch, and the stats file EBB_FLEET_STATS, written whole (temp file +
 * rename) on SIGUSR1 and at exit. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/controller/fleet.h"

#define KIN_BUCKETS 65536

/* The copies of one job-task ("jJ-tI" of "jJ-tI-gG") that are live: launched, neither
 * exited nor deleted. Kept for the fleet's lifetime (a few dozen bytes per job-task). */
struct fleet_kin
{
  char *key;
  vtask *live;
  bool doubled; /* counted in duplicate_live already */
  fleet_kin *next;
};

static fleet_kin *kins[KIN_BUCKETS];

static fleet_kin *
kin_of (const char *id)
{
  const char *g = strstr (id, "-g");
  size_t len = g ? (size_t)(g - id) : strlen (id);
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)id[i]) * 16777619u;
  fleet_kin **b = &kins[h % KIN_BUCKETS];
  for (fleet_kin *k = *b; k; k = k->next)
    if (strlen (k->key) == len && memcmp (k->key, id, len) == 0)
      return k;
  fleet_kin *k = ebb_xcalloc (1, sizeof *k);
  k->key = strndup (id, len);
  k->next = *b;
  *b = k;
  return k;
}

/* See fleet.h. A suspended task does not run towards its end. */
bool
fleet_task_live (vtask *t, uint64_t now_usec)
{
  if (t->state == 0 && t->end_usec && now_usec >= t->end_usec)
    {
      t->state = 2;
      fleet_kin_gone (t);
    }
  return t->state != 2;
}

/* See fleet.h. */
void
fleet_kin_gone (vtask *t)
{
  for (vtask **pp = t->kin ? &t->kin->live : NULL; pp && *pp; pp = &(*pp)->kin_next)
    if (*pp == t)
      {
        *pp = t->kin_next;
        break;
      }
  t->kin = NULL;
  t->kin_next = NULL;
}

/* See fleet.h. */
void
fleet_kin_launch (vtask *t)
{
  fleet_kin *kin = kin_of (t->id);
  uint64_t now = ebb_now_usec ();
  for (vtask *c = kin->live, *next; c; c = next)
    {
      next = c->kin_next;
      if (fleet_task_live (c, now) && c->node != t->node && !kin->doubled)
        {
          kin->doubled = true;
          F.k.duplicate_live++;
          fprintf (stderr, "fleet: %s launched on n%u while %s is live on n%u\n", t->id, t->node,
                   c->id, c->node);
        }
    }
  t->kin = kin;
  t->kin_next = kin->live;
  kin->live = t;
}

/* See fleet.h. */
void
fleet_count_refused (uint64_t epoch)
{
  fleet_counts *k = &F.k;
  for (size_t i = 0; i < k->n_refused; i++)
    if (k->refused_epoch[i] == epoch)
      {
        k->refused_count[i]++;
        return;
      }
  k->refused_epoch = ebb_xrealloc (k->refused_epoch, (k->n_refused + 1) * sizeof (uint64_t));
  k->refused_count = ebb_xrealloc (k->refused_count, (k->n_refused + 1) * sizeof (uint64_t));
  k->refused_epoch[k->n_refused] = epoch;
  k->refused_count[k->n_refused++] = 1;
}

/* The epochs and live tasks over the nodes, into o. */
static void
add_nodes (json_object *o)
{
  uint64_t lo = 0, hi = 0, live = 0, now = ebb_now_usec ();
  for (uint32_t i = 0; i < F.n; i++)
    {
      uint64_t e = F.nodes[i].epoch;
      if (e && (!lo || e < lo))
        lo = e;
      if (e > hi)
        hi = e;
      for (vtask *t = F.nodes[i].tasks; t; t = t->next)
        live += fleet_task_live (t, now);
    }
  ebb_json_add_uint64 (o, "epoch_min", lo);
  ebb_json_add_uint64 (o, "epoch_max", hi);
  ebb_json_add_uint64 (o, "tasks_live", live);
}

static json_object *
stats_json (void)
{
  const fleet_counts *k = &F.k;
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "nodes", F.n);
  ebb_json_add_uint64 (o, "calls_accepted", k->calls_accepted);
  ebb_json_add_uint64 (o, "calls_refused_stale", k->calls_refused_stale);
  ebb_json_add_uint64 (o, "calls_unfenced", k->calls_unfenced);
  ebb_json_add_uint64 (o, "fences", k->fences);
  ebb_json_add_uint64 (o, "fences_refused", k->fences_refused);
  ebb_json_add_uint64 (o, "accepted_below_highest", k->accepted_below_highest);
  add_nodes (o);
  ebb_json_add_uint64 (o, "launches", k->launches);
  ebb_json_add_uint64 (o, "duplicate_live", k->duplicate_live);
  ebb_json_add_uint64 (o, "heartbeats_ok", k->hb_ok);
  ebb_json_add_uint64 (o, "heartbeats_failed", k->hb_err);
  ebb_json_add_uint64 (o, "heartbeats_followed", k->hb_followed);
  ebb_json_add_uint64 (o, "heartbeats_moved", k->hb_next);
  json_object *r = json_object_new_object ();
  for (size_t i = 0; i < k->n_refused; i++)
    {
      char e[24];
      snprintf (e, sizeof e, "%" PRIu64, k->refused_epoch[i]);
      ebb_json_add_uint64 (r, e, k->refused_count[i]);
    }
  json_object_object_add (o, "refused_by_epoch", r);
  return o;
}

/* See fleet.h. A reader sees the previous file or this one, never half of one. */
void
fleet_write_stats (void)
{
  if (!F.stats_file)
    return;
  json_object *o = stats_json ();
  cleanup_free char *tmp = ebb_xasprintf ("%s.tmp", F.stats_file);
  FILE *f = fopen (tmp, "w");
  bool ok
      = f && fprintf (f, "%s\n", json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN)) > 0;
  if (f && fclose (f) != 0)
    ok = false;
  if (!ok || rename (tmp, F.stats_file) < 0)
    fprintf (stderr, "fleet: writing %s: %s\n", F.stats_file, strerror (errno));
  json_object_put (o);
}
