/* Idempotency (agent/idem.c): request_id -> the first answer (bounded, FIFO eviction). */
#ifndef EBB_AGENT_IDEM_H
#define EBB_AGENT_IDEM_H

#include <stddef.h>

#include "agent/task.h"

/* Request ids remembered overall (in memory). */
#define EBB_AGENT_IDEM_MAX 4096

typedef struct ebb_agent_idem ebb_agent_idem;

/* Returns a new table holding at most max entries. */
ebb_agent_idem *ebb_agent_idem_new (size_t max);
void ebb_agent_idem_free (ebb_agent_idem *t);
/* Returns the remembered reply for request_id, or NULL. */
const ebb_agent_reply *ebb_agent_idem_find (const ebb_agent_idem *t, const char *request_id);
/* Remembers a reply (copies; an existing entry for request_id is kept, not replaced).
 * Returns 1 when added, 0 when already present. */
int ebb_agent_idem_add (ebb_agent_idem *t, const char *request_id, const char *key, unsigned status,
                        const char *body);
/* Returns the number of entries. */
size_t ebb_agent_idem_count (const ebb_agent_idem *t);

#endif
