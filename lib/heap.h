/* A d-ary min-heap generated for one element type, ordered by (key, seq): the event heaps
 * of ebb-sim's engines and the controller's timed delivery of policy messages. The users
 * keep elements of different sizes (the simulator's slot-mode event stays 32 bytes), so the
 * heap is a macro rather than one heap of opaque elements; the functions are static inline
 * because the simulator's event loop is its hot path.
 *
 * EBB_HEAP_TYPE (name, type) defines the struct `name` (ev, n, cap; all zero is empty);
 * EBB_HEAP_FUNCS (name, type, key, arity, first_cap) defines name_less, name_push (copies
 * *x in), name_pop (the least element; n > 0) and name_free; EBB_HEAP_DEFINE does both (a
 * header that embeds the struct can define the type alone and leave the functions to the
 * one file that uses them). `type` needs a member `key` that compares with < (a double
 * time) and a member uint64_t seq; seq must be unique (the users number elements in
 * creation order), so the order of pops does not depend on the arity and elements with
 * equal keys leave in the order they came. */
#ifndef EBB_HEAP_H
#define EBB_HEAP_H

#include <stddef.h>
#include <stdlib.h>

#include "lib/util.h"

#define EBB_HEAP_TYPE(name, type)                                                                  \
  typedef struct name                                                                              \
  {                                                                                                \
    type *ev;                                                                                      \
    size_t n, cap;                                                                                 \
  } name;

#define EBB_HEAP_FUNCS(name, type, key, arity, first_cap)                                          \
  static inline int name##_less (const type *a, const type *b)                                     \
  {                                                                                                \
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);                               \
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
  }                                                                                                \
                                                                                                   \
  static inline void name##_free (name *h)                                                         \
  {                                                                                                \
    free (h->ev);                                                                                  \
    *h = (name){ 0 };                                                                              \
  }

#define EBB_HEAP_DEFINE(name, type, key, arity, first_cap)                                         \
  EBB_HEAP_TYPE (name, type)                                                                       \
  EBB_HEAP_FUNCS (name, type, key, arity, first_cap)

#endif
