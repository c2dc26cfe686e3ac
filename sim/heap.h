/* ebb-sim's event heaps: a d-ary min-heap of events ordered by (t, seq), generated for one
 * event type. The engines keep their events of different sizes (the slot-mode event stays
 * 32 bytes), so the heap is a macro rather than one heap of opaque elements; the functions
 * are static inline because the event loop is the simulator's hot path.
 *
 * EBB_SIM_HEAP_DEFINE (name, type, arity, first_cap) defines the struct `name` (ev, n,
 * cap) and name_less, name_push (copies *x in) and name_pop (the least event; n > 0).
 * `type` needs the members double t and uint64_t seq; seq must be unique (the engines
 * number events in creation order), so the order of pops does not depend on the arity. */
#ifndef EBB_SIM_HEAP_H
#define EBB_SIM_HEAP_H

#include <stddef.h>

#include "lib/util.h"

#define EBB_SIM_HEAP_DEFINE(name, type, arity, first_cap)                                          \
  typedef struct name                                                                              \
  {                                                                                                \
    type *ev;                                                                                      \
    size_t n, cap;                                                                                 \
  } name;                                                                                          \
                                                                                                   \
  static inline int name##_less (const type *a, const type *b)                                     \
  {                                                                                                \
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);                                       \
  }                                                                                                \
                                                                                                   \
  static inline void name##_push (name *h, const type *x)                                          \
  {                                                                                                \
    if (h->n == h->cap)                                                                            \
      {                                                                                            \
        h->cap = h->cap ? h->cap * 2 : (first_cap);                                                \
        h->ev = ebb_xrealloc (h->ev, h->cap * sizeof *h->ev);                                      \
      }                                                                                            \
    size_t i = h->n++;                                                                             \
    while (i > 0)                                                                                  \
      {                                                                                            \
        size_t parent = (i - 1) / (arity);                                                         \
        if (!name##_less (x, &h->ev[parent]))                                                      \
          break;                                                                                   \
        h->ev[i] = h->ev[parent];                                                                  \
        i = parent;                                                                                \
      }                                                                                            \
    h->ev[i] = *x;                                                                                 \
  }                                                                                                \
                                                                                                   \
  static inline type name##_pop (name *h)                                                          \
  {                                                                                                \
    type top = h->ev[0];                                                                           \
    type x = h->ev[--h->n];                                                                        \
    size_t i = 0, n = h->n;                                                                        \
    for (;;)                                                                                       \
      {                                                                                            \
        size_t c = (arity)*i + 1;                                                                  \
        if (c >= n)                                                                                \
          break;                                                                                   \
        size_t end = c + (arity) < n ? c + (arity) : n;                                            \
        for (size_t k = c + 1; k < end; k++)                                                       \
          if (name##_less (&h->ev[k], &h->ev[c]))                                                  \
            c = k;                                                                                 \
        if (!name##_less (&h->ev[c], &x))                                                          \
          break;                                                                                   \
        h->ev[i] = h->ev[c];                                                                       \
        i = c;                                                                                     \
      }                                                                                            \
    if (n > 0)                                                                                     \
      h->ev[i] = x;                                                                                \
    return top;                                                                                    \
  }

#endif
