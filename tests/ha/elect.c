/* A candidate in the etcd election (lib/etcd-election.h) for tests/ha/test-election.sh: it
 * campaigns and prints one line per event with the wall clock in milliseconds, so the test
 * can time a failover against its own kill:
 *
 *   leader EPOCH MS          this candidate leads
 *   standby VALUE EPOCH MS   a standby saw the leader (VALUE, EPOCH)
 *   lost MS: WHY             it must stop acting; exits 3
 *   resigned MS              after SIGTERM: lease revoked; exits 0
 *
 * Usage: elect --etcd URLS --value V [--prefix P] [--ttl S] [--user U --password PW]
 *              [--ca FILE] [--cert FILE --key FILE] */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "lib/etcd-election.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

typedef struct
{
  sd_event *event;
  ebb_election *el;
  int exit_code;
} cand;

static unsigned long long
now_ms (void)
{
  return (unsigned long long)(ebb_realtime_usec () / 1000);
}

static void
on_event (ebb_election *el, ebb_election_event ev, const ebb_error *err, void *ud)
{
  cand *c = ud;
  int64_t epoch = 0;
  const char *leader;
  switch (ev)
    {
    case EBB_ELECTION_LEADER:
      printf ("leader %" PRId64 " %llu\n", ebb_election_epoch (el), now_ms ());
      break;
    case EBB_ELECTION_LEADER_SEEN:
      leader = ebb_election_leader (el, &epoch);
      printf ("standby %s %" PRId64 " %llu\n", leader ? leader : "-", epoch, now_ms ());
      break;
    case EBB_ELECTION_LOST:
      printf ("lost %llu: %s\n", now_ms (), err && err->msg ? err->msg : "?");
      c->exit_code = 3;
      sd_event_exit (c->event, 3);
      break;
    }
  fflush (stdout);
}

static void
on_resigned (const ebb_error *err, void *ud)
{
  cand *c = ud;
  printf ("resigned %llu%s%s\n", now_ms (), err ? ": " : "", err && err->msg ? err->msg : "");
  fflush (stdout);
  sd_event_exit (c->event, 0);
}

static int
on_term (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  cand *c = ud;
  (void)s;
  (void)si;
  ebb_election_resign (c->el, on_resigned, c);
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct option opts[]
      = { { "etcd", required_argument, NULL, 'e' },   { "value", required_argument, NULL, 'v' },
          { "prefix", required_argument, NULL, 'p' }, { "ttl", required_argument, NULL, 't' },
          { "user", required_argument, NULL, 'u' },   { "password", required_argument, NULL, 'w' },
          { "ca", required_argument, NULL, 'c' },     { "cert", required_argument, NULL, 'C' },
          { "key", required_argument, NULL, 'k' },    { NULL, 0, NULL, 0 } };
  ebb_etcd_config ec = { 0 };
  ebb_election_config el = { .prefix = "/ebb/" };
  int o;
  while ((o = getopt_long (argc, argv, "", opts, NULL)) != -1)
    switch (o)
      {
      case 'e':
        ec.endpoints = optarg;
        break;
      case 'v':
        el.value = optarg;
        break;
      case 'p':
        el.prefix = optarg;
        break;
      case 't':
        el.ttl_sec = atoi (optarg);
        break;
      case 'u':
        ec.user = optarg;
        break;
      case 'w':
        ec.password = optarg;
        break;
      case 'c':
        ec.ca_file = optarg;
        break;
      case 'C':
        ec.cert_file = optarg;
        break;
      case 'k':
        ec.key_file = optarg;
        break;
      default:
        return 2;
      }
  if (el.ttl_sec > 0 && el.ttl_sec <= 3)
    {
      /* The defaults' proportions (1 s, 3 s of 5 s) for a shorter lease. */
      el.keepalive_usec = (uint64_t)el.ttl_sec * 200000;
      el.renew_deadline_usec = (uint64_t)el.ttl_sec * 600000;
    }
  ebb_log_set_level (LOG_INFO);
  ebb_daemon_block_signals (0);
  cand c = { 0 };
  cleanup_error ebb_error *err = NULL;
  if (sd_event_new (&c.event) < 0)
    return 1;
  ebb_etcd *etcd = ebb_etcd_new (c.event, &ec, &err);
  if (etcd)
    c.el = ebb_election_new (etcd, c.event, &el, on_event, &c, &err);
  if (!c.el || ebb_election_campaign (c.el, &err) < 0)
    {
      fprintf (stderr, "elect: %s\n", ebb_error_msg (&err));
      return 2;
    }
  sd_event_add_signal (c.event, NULL, SIGTERM, on_term, &c);
  sd_event_add_signal (c.event, NULL, SIGINT, on_term, &c);
  sd_event_loop (c.event);
  ebb_election_free (c.el);
  ebb_etcd_free (etcd);
  sd_event_unref (c.event);
  return c.exit_code;
}
