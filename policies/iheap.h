/* An indexed binary min-heap of ids ordered by (key, id): O(log n) push, remove and key
 * change for any member, for policies that keep per-node priorities up to date (Hawk's
 * least-waiting-time queue). Keys are stored next to the ids in the heap array, so a sift
 * touches contiguous memory; pos[] belongs to the caller, so heaps with disjoint members can
 * share one. */
#ifndef EBB_POLICY_IHEAP_H
#define EBB_POLICY_IHEAP_H

#include <stdint.h>

typedef struct ebb_pol_iheap_slot
{
  double key;
  uint32_t id;
} ebb_pol_iheap_slot;

typedef struct ebb_pol_iheap
{
  ebb_pol_iheap_slot *s; /* capacity: the id range */
  uint32_t n;
  uint32_t *pos; /* pos[id]: index in s, or UINT32_MAX when absent */
} ebb_pol_iheap;

/* Sets up an empty heap over ids in [0, cap); pos must hold cap entries, set to
 * UINT32_MAX by the caller for ids not in any heap sharing it. */
void ebb_pol_iheap_init (ebb_pol_iheap *h, uint32_t cap, uint32_t *pos);
void ebb_pol_iheap_fini (ebb_pol_iheap *h);
/* Adds id (not a member) with key. */
void ebb_pol_iheap_push (ebb_pol_iheap *h, uint32_t id, double key);
/* Removes id, which must be a member. */
void ebb_pol_iheap_remove (ebb_pol_iheap *h, uint32_t id);
/* Changes the key of member id and restores the order. */
void ebb_pol_iheap_set (ebb_pol_iheap *h, uint32_t id, double key);

/* Returns the key of member id. */
static inline double
ebb_pol_iheap_key (const ebb_pol_iheap *h, uint32_t id)
{
  return h->s[h->pos[id]].key;
}

static inline int
ebb_pol_iheap_member (const ebb_pol_iheap *h, uint32_t id)
{
  uint32_t i = h->pos[id];
  return i < h->n && h->s[i].id == id;
}

#endif
