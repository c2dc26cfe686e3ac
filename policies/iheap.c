/* Indexed binary min-heap (see iheap.h). */
#include "config.h"

#include "policies/iheap.h"
#include "lib/util.h"

void
ebb_pol_iheap_init (ebb_pol_iheap *h, uint32_t cap, uint32_t *pos)
{
  h->s = ebb_xmalloc ((size_t)(cap ? cap : 1) * sizeof *h->s);
  h->n = 0;
  h->pos = pos;
}

void
ebb_pol_iheap_fini (ebb_pol_iheap *h)
{
  free (h->s);
  h->s = NULL;
}

static inline int
less (const ebb_pol_iheap_slot *a, const ebb_pol_iheap_slot *b)
{
  return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static void
sift_up (ebb_pol_iheap *h, uint32_t i, ebb_pol_iheap_slot x)
{
  while (i > 0)
    {
      uint32_t parent = (i - 1) / 2;
      if (!less (&x, &h->s[parent]))
        break;
      h->s[i] = h->s[parent];
      h->pos[h->s[i].id] = i;
      i = parent;
    }
  h->s[i] = x;
  h->pos[x.id] = i;
}

static void
sift_down (ebb_pol_iheap *h, uint32_t i, ebb_pol_iheap_slot x)
{
  for (;;)
    {
      uint32_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && less (&h->s[c + 1], &h->s[c]))
        c++;
      if (!less (&h->s[c], &x))
        break;
      h->s[i] = h->s[c];
      h->pos[h->s[i].id] = i;
      i = c;
    }
  h->s[i] = x;
  h->pos[x.id] = i;
}

/* Puts x at index i (whose old content is gone) and moves it up or down into place. */
static void
place (ebb_pol_iheap *h, uint32_t i, ebb_pol_iheap_slot x)
{
  if (i > 0 && less (&x, &h->s[(i - 1) / 2]))
    sift_up (h, i, x);
  else
    sift_down (h, i, x);
}

void
ebb_pol_iheap_push (ebb_pol_iheap *h, uint32_t id, double key)
{
  sift_up (h, h->n++, (ebb_pol_iheap_slot){ .key = key, .id = id });
}

void
ebb_pol_iheap_remove (ebb_pol_iheap *h, uint32_t id)
{
  uint32_t i = h->pos[id];
  ebb_pol_iheap_slot last = h->s[--h->n];
  h->pos[id] = UINT32_MAX;
  if (i < h->n)
    place (h, i, last);
}

void
ebb_pol_iheap_set (ebb_pol_iheap *h, uint32_t id, double key)
{
  place (h, h->pos[id], (ebb_pol_iheap_slot){ .key = key, .id = id });
}
