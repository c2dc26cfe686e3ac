/* Route-pattern matching for the HTTP server (internal to libebb-common; tests use it).
 * A pattern is "/seg/seg/..." where a segment is a literal or a {name} capture. Matching is
 * exact per segment: no prefixes, no empty segments except where the pattern has them (the
 * root "/"), no trailing-slash leniency. A capture takes one non-empty segment that is not
 * "." or "..", holds no control character and no encoded slash ("%2F", "%2f") and is at most
 * EBB_HTTP_MAX_CAPTURE_BYTES long. */
#ifndef EBB_HTTP_ROUTE_H
#define EBB_HTTP_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#define EBB_HTTP_MAX_CAPTURES      8
#define EBB_HTTP_MAX_CAPTURE_BYTES 255
#define EBB_HTTP_MAX_PATH_BYTES    4096

typedef struct
{
  size_t n;
  char *names[EBB_HTTP_MAX_CAPTURES];
  char *values[EBB_HTTP_MAX_CAPTURES];
} ebb_http_captures;

/* Returns true when path matches pattern, with caps (if non-NULL, zero-initialised or
 * cleared) filled with copies of the captures; false (caps left empty) otherwise, also for
 * NULL arguments, paths not starting with '/' or longer than EBB_HTTP_MAX_PATH_BYTES. */
bool ebb_http_route_match (const char *pattern, const char *path, ebb_http_captures *caps);

/* Returns the value of capture name, or NULL. */
const char *ebb_http_captures_get (const ebb_http_captures *caps, const char *name);

/* Frees the copies and empties caps. */
void ebb_http_captures_clear (ebb_http_captures *caps);

#endif
