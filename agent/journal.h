/* The journal (agent/journal.c): one record per task in STATE_DIR/tasks/ID.json, written
 * atomically, fsynced in groups off the loop. Pure: knows tasks, nothing of the daemon. */
#ifndef EBB_AGENT_JOURNAL_H
#define EBB_AGENT_JOURNAL_H

#include <json-c/json.h>
#include <stdint.h>

#include "agent/task.h"
#include "lib/error.h"

/* Returns the journal record of t (a new object). */
json_object *ebb_agent_journal_encode (const ebb_agent_task *t);

/* Decodes a record. Returns 0 and *out (a new task), or negative (EBB_EPARSE) with *err. */
int ebb_agent_journal_decode (json_object *rec, ebb_agent_task **out, ebb_error **err);

/* Journals t into dirfd (the tasks directory). Returns 0, or negative with *err. */
int ebb_agent_journal_write (int dirfd, const ebb_agent_task *t, ebb_error **err);

/* Group commit: a thread that fsyncs journal records (and, once per batch, their directory)
 * so the loop never waits on the disk. The loop still writes and renames each record before
 * it acts (a crashed agent finds it: the page cache survives a process); only a power loss
 * could lose the latest records, and it ends the tasks they describe as well. */
typedef struct ebb_agent_syncer ebb_agent_syncer;
ebb_agent_syncer *ebb_agent_syncer_new (int dirfd);
void ebb_agent_syncer_flush (ebb_agent_syncer *s);
void ebb_agent_syncer_stats (ebb_agent_syncer *s, uint64_t *batches, uint64_t *files);
void ebb_agent_syncer_free (ebb_agent_syncer *s);
/* As ebb_file_write_atomic() (lib/file.h) / ebb_agent_journal_write(), the fsyncs on syncer's
 * thread (NULL: in the call). */
int ebb_agent_write_atomic_sync (int dirfd, const char *name, const char *text,
                                 ebb_agent_syncer *syncer, ebb_error **err);
int ebb_agent_journal_write_sync (int dirfd, const ebb_agent_task *t, ebb_agent_syncer *syncer,
                                  ebb_error **err);

/* Removes t's record. Returns 0 (also when absent), or negative with *err. */
int ebb_agent_journal_remove (int dirfd, const char *id, ebb_error **err);

/* Reads every record in dirfd; calls fn for each decoded task (fn takes ownership).
 * Undecodable records are renamed NAME.bad and logged. Returns the number loaded, or
 * negative with *err when the directory cannot be read. */
int ebb_agent_journal_load (int dirfd, void (*fn) (ebb_agent_task *t, void *ud), void *ud,
                            ebb_error **err);

#endif
