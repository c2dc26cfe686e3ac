/* An indexed binary min-heap of ids ordered by (key[id], id): O(log n) push, remove and
 * key change for any member, for policies that keep per-node priorities up to date (Hawk's
 * least-waiting-time queue). Keys live in an array the caller owns and updates, then calls
 * ebb_pol_iheap_update; pos[] is the caller's too, so several heaps whose members are
 * disjoint can share one. */
#ifndef EBB_POLICY_IHEAP_H
#define EBB_POLICY_IHEAP_H

#include <stdint.h>

typedef struct ebb_pol_iheap
{
  uint32_t *ids; /* capacity: the id range */
  uint32_t n;
  uint32_t *pos;     /* pos[id]: index in ids, or UINT32_MAX when absent */
  const double *key; /* key[id] */
} ebb_pol_iheap;

/* Sets up an empty heap over ids in [0, cap); pos must hold cap entries, set to
 * UINT32_MAX by the caller for ids not in any heap sharing it. */
void ebb_pol_iheap_init (ebb_pol_iheap *h, uint32_t cap, uint32_t *pos, const double *key);
void ebb_pol_iheap_fini (ebb_pol_iheap *h);
void ebb_pol_iheap_push (ebb_pol_iheap *h, uint32_t id);
/* Removes id, which must be a member. */
void ebb_pol_iheap_remove (ebb_pol_iheap *h, uint32_t id);
/* Restores the order after key[id] changed. */
void ebb_pol_iheap_update (ebb_pol_iheap *h, uint32_t id);

static inline int
ebb_pol_iheap_member (const ebb_pol_iheap *h, uint32_t id)
{
  uint32_t i = h->pos[id];
  return i < h->n && h->ids[i] == id;
}

#endif
