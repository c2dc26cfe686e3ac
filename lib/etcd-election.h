/* Leader election on etcd, the way etcd's own clientv3/concurrency election works: each
 * candidate puts a key PREFIX/election/LEASE-ID (hex) attached to its lease; the candidate
 * whose key has the lowest create_revision leads, and that create_revision is its epoch. A
 * standby watches the prefix and checks again the moment a key goes (a resign, a lease that
 * expired). Asynchronous on sd-event over lib/etcd.h.
 *
 * The lease is kept alive every keepalive_usec; a candidate that has not renewed for
 * renew_deadline_usec (counted from when the last successful keepalive was sent, so the lease
 * outlives that point by at least its TTL) is lost: it must stop acting. So is one whose lease
 * or key vanished. Lost is final: the program exits and starts again as a new candidate (a
 * new key, a new epoch). doc/ha.md "Election". */
#ifndef EBB_LIB_ETCD_ELECTION_H
#define EBB_LIB_ETCD_ELECTION_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lib/etcd.h"

#define EBB_ELECTION_DEFAULT_TTL_SEC             5
#define EBB_ELECTION_DEFAULT_KEEPALIVE_USEC      1000000ULL
#define EBB_ELECTION_DEFAULT_RENEW_DEADLINE_USEC 3000000ULL

typedef struct ebb_election_config
{
  const char *prefix;           /* "/ebb/": keys go under PREFIX "election/" */
  const char *value;            /* what standbys read as the leader (its advertised URL) */
  int64_t ttl_sec;              /* lease TTL; 0: 5 */
  uint64_t keepalive_usec;      /* 0: 1 s */
  uint64_t renew_deadline_usec; /* 0: 3 s; must be below the TTL */
} ebb_election_config;

typedef enum
{
  EBB_ELECTION_LEADER,      /* this candidate leads from now on, at ebb_election_epoch() */
  EBB_ELECTION_LEADER_SEEN, /* a standby saw the leader change (ebb_election_leader()) */
  EBB_ELECTION_LOST,        /* final: stop acting; err says why */
} ebb_election_event;

typedef struct ebb_election ebb_election;

typedef void (*ebb_election_fn) (ebb_election *e, ebb_election_event ev, const ebb_error *err,
                                 void *userdata);

/* Returns an idle election over etcd (borrowed, must outlive it), or NULL with *err (bad
 * config: a renew deadline not below the TTL, an empty prefix or value). */
ebb_election *ebb_election_new (ebb_etcd *etcd, sd_event *event, const ebb_election_config *cfg,
                                ebb_election_fn fn, void *userdata, ebb_error **err);

/* Starts campaigning: grant a lease, put the key, wait to lead. Returns 0, or negative with
 * *err (fn reports what happens later). */
int ebb_election_campaign (ebb_election *e, ebb_error **err);

/* Steps down: stops acting at once (ebb_election_is_leader() is false from here on), deletes
 * the key and revokes the lease so a standby takes over without waiting for the TTL; done
 * runs when etcd answered (err NULL) or not (the lease then expires by itself). */
void ebb_election_resign (ebb_election *e, void (*done) (const ebb_error *err, void *ud), void *ud);

/* True while this candidate leads and has renewed its lease within the renew deadline
 * (checked now, not only at the last timer tick). */
bool ebb_election_is_leader (const ebb_election *e);

/* This candidate's epoch (its key's create_revision), 0 before its key exists. */
int64_t ebb_election_epoch (const ebb_election *e);

/* The leader as last read: its value and epoch (NULL and 0 when none is known). */
const char *ebb_election_leader (const ebb_election *e, int64_t *epoch);

/* Stops everything without resigning (the lease expires by itself). NULL: no-op. */
void ebb_election_free (ebb_election *e);

#endif
