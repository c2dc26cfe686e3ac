#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/http-listen.h"
#include "lib/http-server.h"

/* Deep enough for a burst of connections (a flood evicted and reconnecting) to wait rather
 * than have their SYNs dropped, which costs a well-behaved client a 1 s retransmit. */
#define LISTEN_BACKLOG 1024

/* Splits "host:port" or "[v6]:port" into host and port strings (copies). */
static int
split_host_port (const char *spec, char **host, char **port, ebb_error **err)
{
  const char *colon;
  if (spec[0] == '[')
    {
      const char *close = strchr (spec, ']');
      if (!close || close[1] != ':')
        return ebb_error_set (err, EINVAL, "listen spec '%s': expected [address]:port", spec);
      *host = strndup (spec + 1, (size_t)(close - spec - 1));
      colon = close + 1;
    }
  else
    {
      colon = strrchr (spec, ':');
      if (!colon || colon == spec)
        return ebb_error_set (err, EINVAL, "listen spec '%s': expected host:port or unix:/path",
                              spec);
      *host = strndup (spec, (size_t)(colon - spec));
    }
  char *end = NULL;
  errno = 0;
  long p = strtol (colon + 1, &end, 10);
  if (colon[1] == '\0' || *end != '\0' || errno || p < 0 || p > 65535)
    {
      free (*host);
      *host = NULL;
      return ebb_error_set (err, EINVAL, "listen spec '%s': bad port", spec);
    }
  *port = ebb_xstrdup (colon + 1);
  return 0;
}

/* The address a local client uses to reach a bind address: loopback for the wildcards. */
static char *
base_url_for (const struct sockaddr_storage *ss, int port)
{
  char buf[INET6_ADDRSTRLEN];
  if (ss->ss_family == AF_INET)
    {
      struct in_addr a = ((const struct sockaddr_in *)ss)->sin_addr;
      if (a.s_addr == htonl (INADDR_ANY))
        a.s_addr = htonl (INADDR_LOOPBACK);
      inet_ntop (AF_INET, &a, buf, sizeof buf);
      return ebb_xasprintf ("http://%s:%d", buf, port);
    }
  struct in6_addr a6 = ((const struct sockaddr_in6 *)ss)->sin6_addr;
  if (IN6_IS_ADDR_UNSPECIFIED (&a6))
    a6 = in6addr_loopback;
  inet_ntop (AF_INET6, &a6, buf, sizeof buf);
  return ebb_xasprintf ("http://[%s]:%d", buf, port);
}

bool
ebb_http_sockaddr_is_loopback (const struct sockaddr *sa)
{
  if (!sa)
    return false;
  if (sa->sa_family == AF_INET)
    return (ntohl (((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
  if (sa->sa_family != AF_INET6)
    return false;
  const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
  if (IN6_IS_ADDR_LOOPBACK (a6))
    return true;
  return IN6_IS_ADDR_V4MAPPED (a6) && a6->s6_addr[12] == 127;
}

bool
ebb_http_host_is_loopback (const char *host)
{
  if (!host)
    return false;
  /* Numeric only: a name is whatever the resolver says today, so it is never trusted. */
  struct sockaddr_in sin = { .sin_family = AF_INET };
  if (inet_pton (AF_INET, host, &sin.sin_addr) == 1)
    return ebb_http_sockaddr_is_loopback ((struct sockaddr *)&sin);
  char buf[INET6_ADDRSTRLEN + 2];
  size_t n = strlen (host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof buf)
    {
      memcpy (buf, host + 1, n - 2);
      buf[n - 2] = '\0';
      host = buf;
    }
  struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
  if (inet_pton (AF_INET6, host, &sin6.sin6_addr) == 1)
    return ebb_http_sockaddr_is_loopback ((struct sockaddr *)&sin6);
  return false;
}

bool
ebb_http_listen_spec_is_loopback (const char *spec)
{
  if (!spec || strncmp (spec, "unix:", 5) == 0)
    return false;
  cleanup_free char *host = NULL, *port = NULL;
  if (split_host_port (spec, &host, &port, NULL) < 0)
    return false;
  return ebb_http_host_is_loopback (host);
}

bool
ebb_http_listen_spec_is_unix (const char *spec)
{
  return spec && strncmp (spec, "unix:", 5) == 0;
}

int
ebb_http_resolve_group (const char *group, gid_t *gid, ebb_error **err)
{
  if (!group || !group[0])
    return ebb_error_set (err, EINVAL, "socket group: empty name");
  char *end = NULL;
  errno = 0;
  unsigned long n = strtoul (group, &end, 10);
  if (group[0] >= '0' && group[0] <= '9' && *end == '\0' && !errno && n < (gid_t)-1)
    {
      *gid = (gid_t)n;
      return 0;
    }
  struct group gr, *found = NULL;
  char buf[4096];
  int r = getgrnam_r (group, &gr, buf, sizeof buf, &found);
  if (r != 0 || !found)
    return ebb_error_set (err, ENOENT, "socket group '%s': no such group", group);
  *gid = found->gr_gid;
  return 0;
}

static int
bind_ai (const struct addrinfo *ai, const char *spec, ebb_error **err)
{
  cleanup_close int fd
      = socket (ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "listen %s: socket", spec);
  int one = 1;
  if (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
    return ebb_error_set_errno (err, errno, "listen %s: SO_REUSEADDR", spec);
  /* A v6 listener should not also grab the v4 port, so "[::]:P" and "0.0.0.0:P" coexist. */
  if (ai->ai_family == AF_INET6 && setsockopt (fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0)
    return ebb_error_set_errno (err, errno, "listen %s: IPV6_V6ONLY", spec);
  if (bind (fd, ai->ai_addr, ai->ai_addrlen) < 0)
    return ebb_error_set_errno (err, errno, "listen %s: bind", spec);
  if (listen (fd, LISTEN_BACKLOG) < 0)
    return ebb_error_set_errno (err, errno, "listen %s: listen", spec);
  return ebb_steal_fd (&fd);
}

static int
open_tcp (const char *spec, ebb_http_listen_socket *ls, ebb_error **err)
{
  cleanup_free char *host = NULL, *port = NULL;
  if (split_host_port (spec, &host, &port, err) < 0)
    return -EINVAL;
  struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
                            .ai_family = AF_UNSPEC,
                            .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  int r = getaddrinfo (host[0] ? host : NULL, port, &hints, &res);
  if (r != 0)
    return ebb_error_set (err, EINVAL, "listen %s: %s", spec, gai_strerror (r));
  int fd = bind_ai (res, spec, err);
  freeaddrinfo (res);
  if (fd < 0)
    return fd;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  if (getsockname (fd, (struct sockaddr *)&ss, &len) < 0)
    {
      r = ebb_error_set_errno (err, errno, "listen %s: getsockname", spec);
      close (fd);
      return r;
    }
  ls->is_loopback = ebb_http_sockaddr_is_loopback ((struct sockaddr *)&ss);
  ls->port = ntohs (ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
  ls->base_url = base_url_for (&ss, ls->port);
  ls->fd = fd;
  return fd;
}

/* A socket file left by a dead server is replaced; a live server's or a non-socket file is
 * an error (we never delete what is not ours to delete). */
static int
clear_stale_socket (const char *path, const struct sockaddr_un *sun, ebb_error **err)
{
  struct stat st;
  if (lstat (path, &st) < 0)
    return errno == ENOENT ? 0 : ebb_error_set_errno (err, errno, "listen unix:%s: stat", path);
  if (!S_ISSOCK (st.st_mode))
    return ebb_error_set (err, EEXIST, "listen unix:%s: exists and is not a socket", path);
  cleanup_close int probe = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0)
    return ebb_error_set_errno (err, errno, "listen unix:%s: socket", path);
  if (connect (probe, (const struct sockaddr *)sun, sizeof *sun) == 0)
    return ebb_error_set (err, EADDRINUSE, "listen unix:%s: another server is listening", path);
  if (unlink (path) < 0 && errno != ENOENT)
    return ebb_error_set_errno (err, errno, "listen unix:%s: remove stale socket", path);
  return 0;
}

static int
open_unix (const char *path, gid_t gid, ebb_http_listen_socket *ls, ebb_error **err)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  if (path[0] == '\0' || strlen (path) >= sizeof sun.sun_path)
    return ebb_error_set (err, EINVAL, "listen unix:%s: empty or too long path", path);
  strcpy (sun.sun_path, path);
  int r = clear_stale_socket (path, &sun, err);
  if (r < 0)
    return r;
  cleanup_close int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "listen unix:%s: socket", path);
  if (bind (fd, (struct sockaddr *)&sun, sizeof sun) < 0)
    return ebb_error_set_errno (err, errno, "listen unix:%s: bind", path);
  /* Access control is the file mode: owner and group only, whatever the umask. */
  if (chmod (path, 0660) < 0 || listen (fd, LISTEN_BACKLOG) < 0)
    {
      r = ebb_error_set_errno (err, errno, "listen unix:%s: chmod/listen", path);
      unlink (path);
      return r;
    }
  if (gid != (gid_t)-1 && chown (path, (uid_t)-1, gid) < 0)
    {
      r = ebb_error_set_errno (err, errno, "listen unix:%s: give the socket to group %u", path,
                               (unsigned)gid);
      unlink (path);
      return r;
    }
  ls->is_unix = true;
  ls->unix_path = ebb_xstrdup (path);
  ls->base_url = ebb_xasprintf ("unix:%s", path);
  ls->fd = ebb_steal_fd (&fd);
  return ls->fd;
}

int
ebb_http_listen_open (const char *spec, gid_t unix_gid, ebb_http_listen_socket *ls, ebb_error **err)
{
  *ls = (ebb_http_listen_socket){ .fd = -1, .port = -1 };
  if (!spec)
    return ebb_error_set (err, EINVAL, "listen spec missing");
  if (strncmp (spec, "unix:", 5) == 0)
    return open_unix (spec + 5, unix_gid, ls, err);
  return open_tcp (spec, ls, err);
}

void
ebb_http_listen_close (ebb_http_listen_socket *ls)
{
  if (ls->fd >= 0)
    close (ls->fd);
  ls->fd = -1;
  if (ls->unix_path)
    unlink (ls->unix_path);
  free (ls->unix_path);
  free (ls->base_url);
  ls->unix_path = ls->base_url = NULL;
}
