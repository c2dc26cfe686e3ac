/* Listening sockets for the HTTP server (internal to libebb-common): parses a listen spec and
 * binds it, so every listener, TCP or unix, is a socket we own and hand to libmicrohttpd. */
#ifndef EBB_HTTP_LISTEN_H
#define EBB_HTTP_LISTEN_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "lib/error.h"

typedef struct
{
  int fd; /* listening, non-blocking, close-on-exec; -1 once handed over or closed */
  bool is_unix;
  bool is_loopback; /* a TCP listener bound to a loopback address (never for a wildcard) */
  char *unix_path;  /* the socket file to remove on close (unix only) */
  int port;         /* the bound TCP port (unix: -1) */
  char *base_url;   /* "http://127.0.0.1:PORT", "http://[::1]:PORT" or "unix:/path" */
} ebb_http_listen_socket;

/* Binds and listens on spec ("host:port", "[v6]:port", "unix:/path"); returns the fd (also
 * in ls->fd), or a negative code with *err set and ls left empty. A unix socket file gets mode
 * 0660 and, when unix_gid is not (gid_t)-1, that group. */
int ebb_http_listen_open (const char *spec, gid_t unix_gid, ebb_http_listen_socket *ls,
                          ebb_error **err);

/* Resolves a group given by name or number; returns 0 with *gid set, or -ENOENT with *err. */
int ebb_http_resolve_group (const char *group, gid_t *gid, ebb_error **err);

/* Whether sa is a loopback address: 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104. */
bool ebb_http_sockaddr_is_loopback (const struct sockaddr *sa);

/* Closes the fd if still owned (fd >= 0), removes the unix socket file, frees strings. */
void ebb_http_listen_close (ebb_http_listen_socket *ls);

#endif
