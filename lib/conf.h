/* lib/conf.h, not lib/config.h: a lib/config.h would shadow autoconf's config.h for every
 * .c file in lib/, since "config.h" is looked up next to the including file first. */
/* Table-driven configuration files (after Redis's config.c static_configs[]).
 *
 * A program describes its settings once, in a table of ebb_conf_setting, each naming a
 * field of the program's own settings struct by offsetof(). The same table serves the
 * defaults, the main file, its drop-ins, the command line (ebb_conf_set) and freeing.
 *
 * File syntax (see ebb.conf(5)):
 *   - one `key = value` per line; keys are [A-Za-z0-9_-]+, case-sensitive;
 *   - blank lines and lines whose first non-blank character is `#` are ignored;
 *   - in an unquoted value, a `#` preceded by a blank starts a comment (`a # b` is "a",
 *     `a#b` is "a#b"); blanks around key and value are trimmed;
 *   - a value may be double-quoted: "..." with escapes \" \\ \n \t; only blanks or a
 *     comment may follow the closing quote;
 *   - a line longer than EBB_CONF_MAX_LINE bytes, a NUL byte or invalid UTF-8 is an error;
 *   - a key given twice in one file is an error, except for list settings, which append
 *     (an empty value clears the list); a later file overrides an earlier one.
 *
 * Drop-ins: after PATH, every regular file PATH.d/NAME.conf is read, in strcmp() order of
 * NAME (later wins). Errors read "FILE:LINE: KEY: reason" (code EBB_EPARSE, or EBB_ERANGE
 * for a value out of its bounds).
 *
 * Usage:
 *   ebb_conf_defaults (tbl, n, &cfg, &err);            -- every field to its default
 *   ebb_conf_load (tbl, n, &cfg, path, flags, &err);   -- main file + drop-ins
 *   ebb_conf_set (tbl, n, &cfg, "cpu_footprint_millis", optarg, "--cpu-footprint", &err);
 *   ebb_conf_free (tbl, n, &cfg);
 * On failure the struct may hold a mix of old and new values; to reload atomically, load
 * into a fresh copy (defaults first) and swap it in only on success.
 */
#ifndef EBB_CONF_H
#define EBB_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

/* The longest line accepted, excluding the newline. */
#define EBB_CONF_MAX_LINE 4096
/* The largest file accepted. */
#define EBB_CONF_MAX_FILE_BYTES (1024 * 1024)

typedef enum
{
  EBB_CONF_STRING,   /* char * (owned; an empty value: NULL); umax: max length, 0 = any */
  EBB_CONF_BOOL,     /* bool: yes/no, true/false, on/off, 1/0 */
  EBB_CONF_INT64,    /* int64_t in [min, max] (both 0: any) */
  EBB_CONF_UINT64,   /* uint64_t in [umin, umax] (umax 0: UINT64_MAX) */
  EBB_CONF_DURATION, /* uint64_t usec, "250ms", "10s", "2m", "1h", bare = seconds; umin/umax */
  EBB_CONF_BYTES,    /* uint64_t bytes, "4096", "512K", "64M", "1G", "1T" (1024-based) */
  EBB_CONF_ENUM,     /* int: the value of the matching name in enums */
  EBB_CONF_STRLIST,  /* char ** NULL-terminated (owned); repeatable, appends; umax: max len */
  EBB_CONF_DOUBLE,   /* double, finite, in [dmin, dmax] (both 0: any): "0.17", "2", "1e-3" */
} ebb_conf_type;

typedef struct
{
  const char *name;
  int value;
} ebb_conf_enum;

struct ebb_conf_setting;

/* A validator runs after a value parsed and passed its bounds. value points to the parsed
 * value in the field's C type (int64_t *, uint64_t *, bool *, int *, double *), or is the string
 * itself (const char *) for STRING and STRLIST. It returns 0, or negative with *err set to
 * a reason alone ("must be an absolute path"): the caller adds where and which key. */
typedef int (*ebb_conf_validator) (const struct ebb_conf_setting *s, const void *value,
                                   ebb_error **err);

typedef struct ebb_conf_setting
{
  const char *name;
  ebb_conf_type type;
  size_t offset;       /* offsetof (struct your_config, field) */
  int64_t min, max;    /* INT64 bounds */
  uint64_t umin, umax; /* UINT64, DURATION, BYTES bounds; STRING/STRLIST max length */
  const char *def;     /* default, in the file syntax (STRLIST: one item); NULL: 0/NULL/empty */
  const ebb_conf_enum *enums;  /* ENUM: names, terminated by { NULL, 0 } */
  ebb_conf_validator validate; /* optional */
  const char *help;
  double dmin, dmax; /* DOUBLE bounds */
} ebb_conf_setting;

/* Flags for ebb_conf_load(). */
enum
{
  EBB_CONF_OPTIONAL = 1 << 0, /* a missing main file is not an error (daemon defaults) */
};

/* obj must start zeroed (`struct x cfg = { 0 };`) or hold values these functions set. */

/* Sets every field of obj to the default of its setting (freeing what it held).
 * Returns 0, or negative with *err when a table default does not parse (a program bug). */
int ebb_conf_defaults (const ebb_conf_setting *table, size_t n, void *obj, ebb_error **err);

/* Reads path, then path.d/ *.conf in lexical order, into obj (defaults are not applied:
 * call ebb_conf_defaults() first). A missing path is an error (ENOENT) unless flags has
 * EBB_CONF_OPTIONAL; a missing drop-in directory is never one. Returns 0 on success,
 * negative with *err ("FILE:LINE: KEY: reason", or "open FILE: strerror") on failure. */
int ebb_conf_load (const ebb_conf_setting *table, size_t n, void *obj, const char *path,
                   unsigned flags, ebb_error **err);

/* Parses one file already in memory (len bytes of text), named file_name in messages.
 * Duplicate keys are detected within this call. Returns 0, or negative with *err. */
int ebb_conf_parse_text (const ebb_conf_setting *table, size_t n, void *obj, const char *file_name,
                         const char *text, size_t len, ebb_error **err);

/* Sets one setting from a string, with the file's parsing, bounds and validator (a list
 * appends; "" clears it). where names the source in messages ("--cpu-footprint"; NULL:
 * the key). Returns 0, or negative with *err "WHERE: reason" (EBB_EPARSE for an unknown
 * key or bad value, EBB_ERANGE for out of bounds). */
int ebb_conf_set (const ebb_conf_setting *table, size_t n, void *obj, const char *key,
                  const char *value, const char *where, ebb_error **err);

/* Frees the strings and lists obj owns and sets those fields to NULL; safe to call twice. */
void ebb_conf_free (const ebb_conf_setting *table, size_t n, void *obj);

/* Returns the setting called name, or NULL when there is none. */
const ebb_conf_setting *ebb_conf_find (const ebb_conf_setting *table, size_t n, const char *name);

/* Writes the effective configuration as a file that would load back to it (one
 * `key = value` line per setting, lists one line per item; strings quoted). Returns 0, or
 * negative with *err on a write error. */
int ebb_conf_dump (const ebb_conf_setting *table, size_t n, const void *obj, FILE *out,
                   ebb_error **err);

/* Writes one help line per setting: name, type, default, help. Returns 0 or -EIO. */
int ebb_conf_print_help (const ebb_conf_setting *table, size_t n, FILE *out);

/* Returns the number of strings in a NULL-terminated list (0 for NULL). */
size_t ebb_strv_length (char *const *strv);

/* Frees a NULL-terminated list and its strings; safe on NULL. */
void ebb_strv_free (char **strv);

/* Parses yes/no, true/false, on/off, 1/0 (case-insensitive). Returns 0, or -1. */
int ebb_conf_parse_bool (const char *s, bool *out);

/* Parses a byte size: digits with an optional K, M, G, T, P, E suffix (1024-based; an
 * optional "iB" or "B" may follow: "64MiB", "512KB", "100B"). Returns 0 and *out_bytes,
 * or -1 on malformed input or overflow. */
int ebb_conf_parse_bytes (const char *s, uint64_t *out_bytes);

/* Validators for string settings. Each returns 0 when value (a const char *) passes, or
 * -EBB_EPARSE with *err holding the reason. _id: ebb_id_is_valid() (any length; bound it
 * with umax); _abspath: starts with '/'. */
int ebb_conf_validate_id (const ebb_conf_setting *s, const void *value, ebb_error **err);
int ebb_conf_validate_abspath (const ebb_conf_setting *s, const void *value, ebb_error **err);

#endif
