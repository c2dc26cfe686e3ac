/* The systemd backend's bus side (cgroup/systemd-bus.c): a handle's state, its own sd-bus
 * connection (re-opened when lost, subscribed to the Manager's Reloading signal), method
 * calls and unit properties. Internal to libebb-cgroup; cgroup/systemd.c is its one user. */
#ifndef EBB_CGROUP_SYSTEMD_BUS_H
#define EBB_CGROUP_SYSTEMD_BUS_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "cgroup/cgroup-internal.h"
#include "lib/error.h"

#define SD_DEST           "org.freedesktop.systemd1"
#define SD_PATH           "/org/freedesktop/systemd1"
#define SD_MANAGER        "org.freedesktop.systemd1.Manager"
#define SD_UNIT_IFACE     "org.freedesktop.systemd1.Unit"
#define SD_PRIVATE_BUS    "unix:path=/run/systemd/private"
#define CALL_TIMEOUT_USEC (10 * 1000000ULL)
#define USEC_PER_SEC      1000000ULL

typedef struct ebb_cg_sd_state
{
  sd_bus *bus;
  sd_bus_slot *reload_slot;
  char *unit;            /* "foo.scope" */
  char *unit_path;       /* its object path */
  char *iface;           /* "org.freedesktop.systemd1.Scope": where its cgroup properties live */
  int no_period_prop;    /* this systemd lacks CPUQuotaPeriodUSec */
  int reload_pending;    /* a reload completed (or the bus was lost) since the last verify */
  unsigned reloads;      /* completed reloads seen */
  unsigned reconnects;   /* connections re-opened after a loss */
  ebb_cg_limits desired; /* what this backend set; re-applied after reloads */
} ebb_cg_sd_state;

/* One runtime property change: up to two (name, uint64) pairs. */
typedef struct ebb_cg_sd_prop_set
{
  const char *unit;
  const char *name[2];
  char type[2]; /* 't' (uint64) or 'b' (boolean) */
  uint64_t value[2];
  int n;
} ebb_cg_sd_prop_set;

typedef int (*ebb_cg_sd_build_fn) (sd_bus_message *m, const void *arg);

/* The systemd state of a handle, or NULL when cg is not systemd-backed. */
ebb_cg_sd_state *ebb_cg_sd_state_of (const ebb_cg *cg);
/* Closes the bus connection (the next call re-opens it). */
void ebb_cg_sd_drop_bus (ebb_cg_sd_state *s);
void ebb_cg_sd_state_free (ebb_cg_sd_state *s);
/* Makes sure s->bus is connected and subscribed to Reloading; a (re)connection marks a reload
 * as pending. Returns 0 or -errno. */
int ebb_cg_sd_ensure_bus (ebb_cg_sd_state *s);
/* Calls a method, building the message with build(arg); on a lost connection reconnects and
 * tries once more. Returns >= 0 (reply in *reply when given), or negative with *err (EBB_EGONE
 * when the unit is gone). */
int ebb_cg_sd_call (ebb_cg_sd_state *s, const char *path, const char *iface, const char *member,
                    ebb_cg_sd_build_fn build, const void *arg, sd_bus_message **reply,
                    ebb_error **err);
/* Reads property name of iface on the unit; type 't' (into *u64) or 's' (copied into str).
 * Returns 0, or negative with *err. */
int ebb_cg_sd_get_prop (ebb_cg_sd_state *s, const char *iface, const char *name, char type,
                        uint64_t *u64, char *str, size_t strsz, ebb_error **err);
/* SetUnitProperties with runtime=true. Returns >= 0, or negative with *err. */
int ebb_cg_sd_set_props (ebb_cg_sd_state *s, const ebb_cg_sd_prop_set *p, ebb_error **err);
/* A limit as systemd spells it (EBB_CG_MAX: UINT64_MAX, its infinity). */
uint64_t ebb_cg_sd_value (uint64_t v);

#endif
