/* libFuzzer target: ebb-sim's trace reader (sim/trace.c), both formats (Hawk/Eagle lines and
 * JSON lines, told apart by content), and a write of what it read. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "sim/trace.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  FILE *f = fmemopen ((void *)data, size, "r");
  if (!f)
    return 0;
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_error *err = NULL;
  if (ebb_sim_trace_read_stream (t, f, "fuzz", &err) == 0)
    {
      FILE *out = fopen ("/dev/null", "w");
      if (out)
        {
          ebb_sim_trace_write (t, out, &err);
          fclose (out);
        }
      ebb_sim_trace_is_sorted (t);
    }
  ebb_error_free (&err);
  ebb_sim_trace_free (t);
  fclose (f);
  return 0;
}
