/* libebb-cgroup's systemd backend, seen from outside (cgroup/systemd.c).
 *
 * A cgroup owned by a systemd unit (a scope such as docker-<id>.scope, a service) gets this
 * backend when it is opened (GetUnitByControlGroup names the unit, and the unit's own
 * ControlGroup is that cgroup). Each limit is set as a runtime unit property over sd-bus
 * (SetUnitProperties, runtime=true: CPUQuotaPerSecUSec, CPUQuotaPeriodUSec, MemoryHigh,
 * MemoryMax, MemorySwapMax) AND written to cgroupfs, as crun and runc do: systemd re-applies
 * its properties on daemon-reload and would undo a file-only write, and its stored CPU quota is
 * truncated to 10 ms/s on reload, which the file write (re-done after each reload) keeps exact.
 * Freeze/thaw go through FreezeUnit/ThawUnit. Device properties are never written. Every read
 * comes from cgroupfs.
 *
 * The functions below are for callers that know they hold a systemd-backed handle (the agent,
 * tests); on another handle they fail with ENOTSUP.
 */
#ifndef EBB_CGROUP_SYSTEMD_H
#define EBB_CGROUP_SYSTEMD_H

#include <stdint.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"

/* What systemd holds for the unit (its properties, not the kernel files). EBB_CG_MAX is
 * "infinity" (no limit; for the period: systemd's default). */
typedef struct ebb_cg_systemd_props
{
  uint64_t cpu_quota_per_sec_usec;
  uint64_t cpu_quota_period_usec;
  uint64_t memory_high_bytes;
  uint64_t memory_max_bytes;
  uint64_t memory_swap_max_bytes;
  char freezer_state[24]; /* "running", "frozen", "freezing", "thawing"; "" if unknown */
} ebb_cg_systemd_props;

/* Returns the unit name ("foo.scope") of a systemd-backed handle, or NULL for other handles. */
const char *ebb_cg_systemd_unit (const ebb_cg *cg);

/* Reads the unit's properties as systemd applied them (after its own rounding: the CPU quota
 * per second survives daemon-reload only in whole percent). Returns 0 and *out; ENOTSUP when
 * cg is not systemd-backed; EBB_EGONE when the unit is gone; negative on bus failure. */
int ebb_cg_systemd_read_props (ebb_cg *cg, ebb_cg_systemd_props *out, ebb_error **err);

/* Processes pending bus messages (systemd's Reloading signal) and, when systemd reloaded since
 * the last check (or force is set), re-reads the cgroup files and rewrites every limit this
 * backend set that systemd's reload changed. Every backend operation does this first; an agent
 * may also call it when ebb_cg_systemd_fd() is readable. Returns the number of files
 * rewritten (>= 0); ENOTSUP when cg is not systemd-backed; EBB_EGONE; negative on failure. */
int ebb_cg_systemd_verify (ebb_cg *cg, int force, ebb_error **err);

/* Returns how many completed systemd reloads the handle's bus connection has seen. */
unsigned ebb_cg_systemd_reloads (const ebb_cg *cg);

/* Returns how many times the handle reconnected to the bus after losing it. */
unsigned ebb_cg_systemd_reconnects (const ebb_cg *cg);

/* Returns the handle's bus fd (poll for POLLIN, then call ebb_cg_systemd_verify()), or
 * negative when not connected or not systemd-backed. */
int ebb_cg_systemd_fd (const ebb_cg *cg);

#endif
