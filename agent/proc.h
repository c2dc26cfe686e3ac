/* Process identity: a PID is only trusted together with its start time, so a PID the kernel
 * reused for another process is never signalled or adopted as ours. The bottom layer of the
 * agent: no daemon state. */
#ifndef EBB_AGENT_PROC_H
#define EBB_AGENT_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads /proc/PID/stat's start time (clock ticks since boot). Returns 0 when the process
 * is gone. */
uint64_t ebb_agent_pid_starttime (pid_t pid);

/* True while pid is alive and, when starttime is non-zero, still the process that had it. */
bool ebb_agent_pid_is (pid_t pid, uint64_t starttime);

#endif
