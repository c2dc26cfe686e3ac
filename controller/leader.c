/* Leadership (doc/ha.md "Controllers"): with --etcd, the election of lib/etcd-election.h,
 * whose winner loads the store, fences every known agent and then acts, and whose loser
 * exits; without it, one controller that leads from its start at an epoch one above the
 * last start's (STATE_DIR/epoch), so agents refuse the late calls of an earlier run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/ctl.h"
#include "controller/leader.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/etcd-election.h"
#include "lib/file.h"
#include "lib/etcd.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/secret.h"
#include "lib/util.h"

/* Our epoch from now on, and the header every mutating agent call carries. */
static void
set_epoch (ebb_ctl *c, uint64_t epoch)
{
  c->epoch = epoch;
  free (c->epoch_header);
  c->epoch_header = ebb_xasprintf ("Ebb-Leader-Epoch: %" PRIu64, epoch);
  c->leader_epoch = epoch;
  free (c->leader_url);
  c->leader_url = c->advertise_url ? ebb_xstrdup (c->advertise_url) : NULL;
  free (c->leader_id);
  c->leader_id = ebb_xstrdup (c->self_id);
}

/* STATE_DIR/epoch: the last start's epoch in *last (0 when there is no file). */
static int
read_file_epoch (ebb_ctl *c, uint64_t *last, ebb_error **err)
{
  cleanup_free char *path = ebb_xasprintf ("%s/epoch", c->cfg->state_dir);
  *last = 0;
  FILE *f = fopen (path, "re");
  if (!f)
    return errno == ENOENT ? 0 : ebb_error_set_errno (err, errno, "open %s", path);
  int n = fscanf (f, "%" SCNu64, last);
  fclose (f);
  return n == 1 ? 0
                : ebb_error_set (err, EBB_EPARSE, "%s: not an epoch (remove it knowingly)", path);
}

/* Writes STATE_DIR/epoch atomically (lib/file.c) before any call can carry it. */
static int
write_file_epoch (ebb_ctl *c, uint64_t epoch, ebb_error **err)
{
  cleanup_free char *path = ebb_xasprintf ("%s/epoch", c->cfg->state_dir);
  cleanup_free char *text = ebb_xasprintf ("%" PRIu64 "\n", epoch);
  return ebb_file_write_atomic_path (path, text, err);
}

/* See leader.h. The store's claim first (PostgreSQL: its fence row, the stored epoch + 1;
 * SQLite: none), then one above the higher of it and the file's, claimed again if the file's
 * was the higher, and written to the file. */
int
ebb_ctl_leader_single (ebb_ctl *c, ebb_error **err)
{
  uint64_t last = 0, stored = 0, epoch;
  if (read_file_epoch (c, &last, err) < 0)
    return -EIO;
  if (ebb_ctl_store_claim (c, 0, &stored) < 0)
    return ebb_error_set (err, EIO, "claim the leader epoch in the store");
  epoch = stored > last ? stored : last + 1;
  if (stored && epoch > stored && ebb_ctl_store_claim (c, epoch, &stored) < 0)
    return ebb_error_set (err, EIO, "claim the leader epoch %" PRIu64 " in the store", epoch);
  if (write_file_epoch (c, epoch, err) < 0)
    return -EIO;
  c->epoch = epoch;
  return 0;
}

/* The leader's election value is {"id","url"}; fills what GET /v1/cluster shows of it. */
static void
read_leader (ebb_ctl *c)
{
  int64_t epoch = 0;
  const char *v = ebb_election_leader (c->election, &epoch);
  free (c->leader_url);
  free (c->leader_id);
  c->leader_url = c->leader_id = NULL;
  c->leader_epoch = epoch > 0 ? (uint64_t)epoch : 0;
  json_object *o = v ? json_tokener_parse (v) : NULL;
  const char *url = NULL, *id = NULL;
  if (o && json_object_is_type (o, json_type_object))
    {
      ebb_json_get_string (o, "url", 0, NULL, &url, NULL);
      ebb_json_get_string (o, "id", 0, NULL, &id, NULL);
    }
  c->leader_url = url ? ebb_xstrdup (url) : NULL;
  c->leader_id = id ? ebb_xstrdup (id) : NULL;
  json_object_put (o);
}

/* Won: the store (opened only now: a standby holds nothing of it), its jobs and nodes, then the
 * calls that were under way. The flush at the end of this loop iteration fences every agent known
 * before these calls go (each of which carries the epoch too). */
static void
on_win (ebb_ctl *c)
{
  set_epoch (c, (uint64_t)ebb_election_epoch (c->election));
  cleanup_error ebb_error *err = NULL;
  uint64_t claimed = 0;
  if (ebb_ctl_store_open (c, &err) < 0)
    {
      ebb_ctl_depose (c, ebb_error_msg (&err));
      return;
    }
  /* The store's fence (PostgreSQL) raised to our epoch before the load: no transaction of
   * an earlier leader commits after what we read. A store fenced above our epoch outlived
   * the etcd that elected us (its data replaced): leading unfenced there is not safe. */
  int r = ebb_ctl_store_claim (c, c->epoch, &claimed);
  if (r < 0)
    {
      ebb_ctl_depose (c, r == -ESTALE ? "the store's leader epoch is above ours (was etcd's data "
                                        "replaced? see doc/ha.md)"
                                      : "could not claim the leader epoch in the store");
      return;
    }
  if (ebb_ctl_store_load (c, &err) < 0)
    {
      ebb_ctl_depose (c, ebb_error_msg (&err));
      return;
    }
  ebb_log_notice ("leading at epoch %" PRIu64 ": %zu jobs and %zu nodes from the store", c->epoch,
                  c->n_jobs, c->n_nodes);
  c->leading = true;
  ebb_ctl_sched_resume_starting (c);
}

static void
on_election (ebb_election *e, ebb_election_event ev, const ebb_error *err, void *ud)
{
  ebb_ctl *c = ud;
  (void)e;
  if (ev == EBB_ELECTION_LEADER)
    on_win (c);
  else if (ev == EBB_ELECTION_LEADER_SEEN)
    {
      read_leader (c);
      ebb_log_info ("standing by; the leader is %s at epoch %" PRIu64,
                    c->leader_url ? c->leader_url : "unknown", c->leader_epoch);
    }
  else
    ebb_ctl_depose (c, err ? err->msg : "the election was lost");
}

/* The etcd client from the settings (the password read from its file). */
static int
etcd_open (ebb_ctl *c, ebb_error **err)
{
  const ebb_ctl_config *cfg = c->cfg;
  char *password = NULL;
  if (cfg->etcd_password_file
      && ebb_secret_read_file (cfg->etcd_password_file, "etcd password", &password, err) < 0)
    return -EINVAL;
  if (password)
    password[strcspn (password, "\r\n")] = '\0';
  ebb_etcd_config ec = { .endpoints = cfg->etcd,
                         .ca_file = cfg->etcd_ca,
                         .cert_file = cfg->etcd_cert,
                         .key_file = cfg->etcd_key,
                         .user = cfg->etcd_user,
                         .password = password };
  c->etcd = ebb_etcd_new (c->event, &ec, err);
  if (password)
    {
      explicit_bzero (password, strlen (password));
      free (password);
    }
  return c->etcd ? 0 : ebb_error_wrap (err, "etcd");
}

/* See leader.h. */
int
ebb_ctl_leader_start (ebb_ctl *c, ebb_error **err)
{
  const ebb_ctl_config *cfg = c->cfg;
  char host[256] = "";
  gethostname (host, sizeof host - 1);
  c->self_id = ebb_xasprintf ("%s:%ld", host, (long)getpid ());
  if (cfg->advertise_url)
    c->advertise_url = ebb_xstrdup (cfg->advertise_url);
  else if (c->http_tcp)
    c->advertise_url = ebb_xstrdup (ebb_http_server_base_url (c->http_tcp, 0));
  if (!cfg->etcd)
    {
      set_epoch (c, c->epoch); /* claimed by ebb_ctl_leader_single, before the load */
      c->leading = true;
      ebb_log_notice ("one controller (no --etcd), epoch %" PRIu64, c->epoch);
      return 0;
    }
  if (!c->advertise_url)
    return ebb_error_set (err, EINVAL, "--etcd needs --advertise-url or a TCP listener");
  if (etcd_open (c, err) < 0)
    return -EIO;
  json_object *v = json_object_new_object ();
  json_object_object_add (v, "id", json_object_new_string (c->self_id));
  json_object_object_add (v, "url", json_object_new_string (c->advertise_url));
  cleanup_free char *value = ebb_json_to_string (v);
  uint64_t ttl = cfg->lease_ttl_usec;
  ebb_election_config ecfg = { .prefix = cfg->etcd_prefix,
                               .value = value,
                               .ttl_sec = (int64_t)((ttl + 999999) / 1000000),
                               .keepalive_usec = ttl / 5,
                               .renew_deadline_usec = ttl * 3 / 5 };
  c->election = ebb_election_new (c->etcd, c->event, &ecfg, on_election, c, err);
  json_object_put (v);
  if (!c->election || ebb_election_campaign (c->election, err) < 0)
    return ebb_error_wrap (err, "election on %s", cfg->etcd);
  ebb_log_notice ("standing by: campaigning on etcd %s as %s", cfg->etcd, c->advertise_url);
  return 0;
}

static void
on_resigned (const ebb_error *err, void *ud)
{
  ebb_ctl *c = ud;
  if (err)
    ebb_log_warn ("resign: %s (the lease expires by itself)", err->msg);
  sd_event_exit (c->event, 0);
}

/* See leader.h. */
bool
ebb_ctl_leader_resign (ebb_ctl *c)
{
  if (!c->election)
    return false;
  c->leading = false;
  ebb_election_resign (c->election, on_resigned, c);
  return true;
}

/* See leader.h. */
void
ebb_ctl_leader_free (ebb_ctl *c)
{
  ebb_election_free (c->election);
  c->election = NULL;
  ebb_etcd_free (c->etcd);
  c->etcd = NULL;
  free (c->epoch_header);
  free (c->advertise_url);
  free (c->self_id);
  free (c->leader_id);
  free (c->leader_url);
}
