/* lib/heap.h: the d-ary heap by (key, seq) that ebb-sim's engines and the controller's
 * timed delivery both generate. */
#include "config.h"

#include "lib/heap.h"
#include "lib/rng.h"
#include "tests/cu.h"

typedef struct heap_ev
{
  double t;
  uint64_t seq;
} heap_ev;

EBB_HEAP_DEFINE (heap2, heap_ev, t, 2, 4)
EBB_HEAP_DEFINE (heap4, heap_ev, t, 4, 4)

/* The controller's shape: another key name, a payload, the type declared apart. */
typedef struct msg
{
  double due;
  uint64_t seq;
  uint32_t node;
} msg;

EBB_HEAP_TYPE (msg_heap, msg)
EBB_HEAP_FUNCS (msg_heap, msg, due, 2, 1)

/* Both arities pop random events (many equal times) by time, then by seq, and grow past
 * their first capacity. */
static void
test_order (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 3);
  heap2 h2 = { 0 };
  heap4 h4 = { 0 };
  enum
  {
    N = 2000
  };
  for (uint64_t i = 0; i < N; i++)
    {
      heap_ev x = { .t = (double)(ebb_rng_next (&rng) % 50), .seq = i };
      heap2_push (&h2, &x);
      heap4_push (&h4, &x);
    }
  CU_ASSERT (h2.cap >= N);
  heap_ev prev = { .t = -1 };
  int sorted = 1, same = 1;
  for (size_t i = 0; i < N; i++)
    {
      heap_ev a = heap2_pop (&h2), b = heap4_pop (&h4);
      sorted &= prev.t < a.t || (prev.t == a.t && prev.seq < a.seq);
      same &= a.t == b.t && a.seq == b.seq;
      prev = a;
    }
  CU_ASSERT (sorted);
  CU_ASSERT (same);
  CU_ASSERT_EQUAL (h2.n, 0);
  CU_ASSERT_EQUAL (h4.n, 0);
  heap2_free (&h2);
  heap4_free (&h4);
  CU_ASSERT_PTR_NULL (h2.ev);
  CU_ASSERT_EQUAL (h2.cap, 0);
}

/* Equal keys leave in the order of seq whatever order they came in; the heap is usable
 * again after emptying and after free. */
static void
test_ties_and_reuse (void)
{
  msg_heap h = { 0 };
  const uint64_t seqs[] = { 5, 1, 4, 2, 3 };
  for (size_t i = 0; i < 5; i++)
    msg_heap_push (&h, &(msg){ .due = 1.5, .seq = seqs[i], .node = (uint32_t)seqs[i] * 10 });
  msg_heap_push (&h, &(msg){ .due = 0.5, .seq = 9, .node = 90 });
  CU_ASSERT_EQUAL (h.ev[0].node, 90); /* the least is at the top before popping */
  CU_ASSERT_EQUAL (msg_heap_pop (&h).node, 90);
  for (uint32_t i = 1; i <= 5; i++)
    {
      msg m = msg_heap_pop (&h);
      CU_ASSERT_EQUAL (m.seq, i);
      CU_ASSERT_EQUAL (m.node, i * 10);
    }
  CU_ASSERT_EQUAL (h.n, 0);
  msg_heap_push (&h, &(msg){ .due = 2, .seq = 10 });
  msg_heap_push (&h, &(msg){ .due = 1, .seq = 11 });
  CU_ASSERT_EQUAL (msg_heap_pop (&h).seq, 11);
  CU_ASSERT_EQUAL (msg_heap_pop (&h).seq, 10);
  msg_heap_free (&h);
  msg_heap_push (&h, &(msg){ .due = 3, .seq = 12 });
  CU_ASSERT_EQUAL (h.n, 1);
  CU_ASSERT_EQUAL (msg_heap_pop (&h).seq, 12);
  msg_heap_free (&h);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_order),
  EBB_CU_TEST (test_ties_and_reuse),
};

EBB_CU_MAIN ("heap", NULL, NULL, tests)
