/* Indexed binary min-heap (see iheap.h). */
#include "config.h"

#include "policies/iheap.h"
#include "lib/util.h"

void
ebb_pol_iheap_init (ebb_pol_iheap *h, uint32_t cap, uint32_t *pos, const double *key)
{
  h->ids = ebb_xmalloc ((size_t)(cap ? cap : 1) * sizeof *h->ids);
  h->n = 0;
  h->pos = pos;
  h->key = key;
}

void
ebb_pol_iheap_fini (ebb_pol_iheap *h)
{
  free (h->ids);
  h->ids = NULL;
}

static inline int
less (const ebb_pol_iheap *h, uint32_t a, uint32_t b)
{
  double ka = h->key[a], kb = h->key[b];
  return ka < kb || (ka == kb && a < b);
}

static void
sift_up (ebb_pol_iheap *h, uint32_t i)
{
  uint32_t id = h->ids[i];
  while (i > 0)
    {
      uint32_t parent = (i - 1) / 2;
      if (!less (h, id, h->ids[parent]))
        break;
      h->ids[i] = h->ids[parent];
      h->pos[h->ids[i]] = i;
      i = parent;
    }
  h->ids[i] = id;
  h->pos[id] = i;
}

static void
sift_down (ebb_pol_iheap *h, uint32_t i)
{
  uint32_t id = h->ids[i];
  for (;;)
    {
      uint32_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && less (h, h->ids[c + 1], h->ids[c]))
        c++;
      if (!less (h, h->ids[c], id))
        break;
      h->ids[i] = h->ids[c];
      h->pos[h->ids[i]] = i;
      i = c;
    }
  h->ids[i] = id;
  h->pos[id] = i;
}

void
ebb_pol_iheap_push (ebb_pol_iheap *h, uint32_t id)
{
  h->ids[h->n] = id;
  sift_up (h, h->n++);
}

void
ebb_pol_iheap_remove (ebb_pol_iheap *h, uint32_t id)
{
  uint32_t i = h->pos[id];
  uint32_t last = h->ids[--h->n];
  h->pos[id] = UINT32_MAX;
  if (i == h->n)
    return;
  h->ids[i] = last;
  h->pos[last] = i;
  ebb_pol_iheap_update (h, last);
}

void
ebb_pol_iheap_update (ebb_pol_iheap *h, uint32_t id)
{
  uint32_t i = h->pos[id];
  if (i > 0 && less (h, id, h->ids[(i - 1) / 2]))
    sift_up (h, i);
  else
    sift_down (h, i);
}
