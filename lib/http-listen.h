/* Listening sockets for the HTTP server (internal to libebb-common): parses a listen spec and
 * binds it, so every listener, TCP or unix, is a socket we own and hand to libmicrohttpd. */
#ifndef EBB_HTTP_LISTEN_H
#define EBB_HTTP_LISTEN_H

#include <stdbool.h>

#include "lib/error.h"

typedef struct
{
  int fd; /* listening, non-blocking, close-on-exec; -1 once handed over or closed */
  bool is_unix;
  char *unix_path; /* the socket file to remove on close (unix only) */
  int port;        /* the bound TCP port (unix: -1) */
  char *base_url;  /* "http://127.0.0.1:PORT", "http://[::1]:PORT" or "unix:/path" */
} ebb_http_listen_socket;

/* Binds and listens on spec ("host:port", "[v6]:port", "unix:/path"); returns the fd (also
 * in ls->fd), or a negative code with *err set and ls left empty. */
int ebb_http_listen_open (const char *spec, ebb_http_listen_socket *ls, ebb_error **err);

/* Closes the fd if still owned (fd >= 0), removes the unix socket file, frees strings. */
void ebb_http_listen_close (ebb_http_listen_socket *ls);

#endif
