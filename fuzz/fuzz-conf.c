/* libFuzzer target: the table-driven config parser (lib/conf.c, lib/conf-file.c) over a table with
 * one setting of every type, then a dump of what it parsed. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/conf.h"

typedef struct
{
  char *s, *path, *id;
  bool b;
  int64_t i;
  uint64_t u, dur, bytes;
  int e;
  char **list;
  double d;
} fuzz_conf;

static const ebb_conf_enum modes[] = { { "immediate", 0 }, { "graceful", 1 }, { NULL, 0 } };

static const ebb_conf_setting table[] = {
  { .name = "name", .type = EBB_CONF_STRING, .offset = offsetof (fuzz_conf, s), .umax = 64 },
  { .name = "path",
    .type = EBB_CONF_STRING,
    .offset = offsetof (fuzz_conf, path),
    .validate = ebb_conf_validate_abspath },
  { .name = "id",
    .type = EBB_CONF_STRING,
    .offset = offsetof (fuzz_conf, id),
    .validate = ebb_conf_validate_id },
  { .name = "flag", .type = EBB_CONF_BOOL, .offset = offsetof (fuzz_conf, b) },
  { .name = "int",
    .type = EBB_CONF_INT64,
    .offset = offsetof (fuzz_conf, i),
    .min = -5,
    .max = 1000 },
  { .name = "uint", .type = EBB_CONF_UINT64, .offset = offsetof (fuzz_conf, u) },
  { .name = "interval",
    .type = EBB_CONF_DURATION,
    .offset = offsetof (fuzz_conf, dur),
    .umin = 1000,
    .umax = 3600000000ULL },
  { .name = "memory", .type = EBB_CONF_BYTES, .offset = offsetof (fuzz_conf, bytes) },
  { .name = "mode", .type = EBB_CONF_ENUM, .offset = offsetof (fuzz_conf, e), .enums = modes },
  { .name = "listen", .type = EBB_CONF_STRLIST, .offset = offsetof (fuzz_conf, list), .umax = 256 },
  { .name = "ratio",
    .type = EBB_CONF_DOUBLE,
    .offset = offsetof (fuzz_conf, d),
    .dmin = 0,
    .dmax = 1 },
};

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_conf c = { 0 };
  ebb_error *err = NULL;
  size_t n = EBB_ARRAY_SIZE (table);
  if (ebb_conf_parse_text (table, n, &c, "fuzz.conf", (const char *)data, size, &err) == 0)
    {
      FILE *out = fopen ("/dev/null", "w");
      if (out)
        {
          ebb_conf_dump (table, n, &c, out, NULL);
          fclose (out);
        }
    }
  ebb_error_free (&err);
  ebb_conf_free (table, n, &c);
  return 0;
}
