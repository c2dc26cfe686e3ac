/* What the parts of lib/conf (conf.c: values; conf-file.c: the file syntax; conf-dump.c:
 * writing settings back) share; not for users of lib/conf.h. */
#ifndef EBB_CONF_INTERNAL_H
#define EBB_CONF_INTERNAL_H

#include "lib/conf.h"

/* The field of obj that setting s names. */
#define EBB_CONF_FIELD(obj, s, T)  ((T *)(void *)((char *)(obj) + (s)->offset))
#define EBB_CONF_CFIELD(obj, s, T) ((const T *)(const void *)((const char *)(obj) + (s)->offset))

/* Longest part of a bad value quoted back in a message: enough to recognize it. */
#define EBB_CONF_GOT_MAX 64

/* Appends a copy of s to the NULL-terminated list *strv. */
void ebb_conf_strv_append (char ***strv, const char *s);

/* Parses value for s and stores it into obj. Returns 0, or negative with *err holding the
 * reason alone (the caller says where). */
int ebb_conf_assign (const ebb_conf_setting *s, void *obj, const char *value, ebb_error **err);

/* Frees a string or list field of obj and sets it to NULL; other types are left alone. */
void ebb_conf_clear_field (const ebb_conf_setting *s, void *obj);

/* Formats usec in the largest unit that divides it, so bounds read as written. */
void ebb_conf_format_usec (uint64_t usec, char *buf, size_t size);
/* Formats bytes in the largest 1024-based unit that divides it. */
void ebb_conf_format_bytes (uint64_t bytes, char *buf, size_t size);

#endif
