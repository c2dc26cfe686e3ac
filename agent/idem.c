/* The idempotency table: request_id → the first answer. A ring of at most max entries; the
 * oldest is forgotten first. The journal keeps each task's recent answers too, so a retry
 * after an agent restart still gets its first answer. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/idem.h"
#include "lib/util.h"

struct ebb_agent_idem
{
  ebb_agent_reply *ring;
  size_t max, head, count;
};

/* Returns a new table of at most max (>= 1) entries. */
ebb_agent_idem *
ebb_agent_idem_new (size_t max)
{
  ebb_agent_idem *t = ebb_xcalloc (1, sizeof *t);
  t->max = max ? max : 1;
  t->ring = ebb_xcalloc (t->max, sizeof *t->ring);
  return t;
}

static void
entry_clear (ebb_agent_reply *r)
{
  free (r->request_id);
  free (r->key);
  free (r->body);
  memset (r, 0, sizeof *r);
}

/* Frees the table; NULL is allowed. */
void
ebb_agent_idem_free (ebb_agent_idem *t)
{
  if (!t)
    return;
  for (size_t i = 0; i < t->max; i++)
    entry_clear (&t->ring[i]);
  free (t->ring);
  free (t);
}

/* Returns the entry for request_id, or NULL. */
const ebb_agent_reply *
ebb_agent_idem_find (const ebb_agent_idem *t, const char *request_id)
{
  for (size_t i = 0; i < t->count; i++)
    {
      const ebb_agent_reply *r = &t->ring[(t->head + t->max - 1 - i) % t->max];
      if (strcmp (r->request_id, request_id) == 0)
        return r;
    }
  return NULL;
}

/* Adds an entry unless request_id is known. Returns 1 when added, 0 when known. */
int
ebb_agent_idem_add (ebb_agent_idem *t, const char *request_id, const char *key, unsigned status,
                    const char *body)
{
  if (ebb_agent_idem_find (t, request_id))
    return 0;
  ebb_agent_reply *r = &t->ring[t->head];
  entry_clear (r);
  r->request_id = ebb_xstrdup (request_id);
  r->key = ebb_xstrdup (key);
  r->status = status;
  r->body = ebb_xstrdup (body);
  t->head = (t->head + 1) % t->max;
  if (t->count < t->max)
    t->count++;
  return 1;
}

/* Returns the number of entries. */
size_t
ebb_agent_idem_count (const ebb_agent_idem *t)
{
  return t->count;
}
