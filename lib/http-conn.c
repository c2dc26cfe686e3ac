/* Connection accounting: MHD's accept policy (total and per-address limits, evicting a
 * slow client's connection rather than refusing a new one) and the list of open
 * connections kept by its connection-notify callback. */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/http-internal.h"
#include "lib/time.h"

static bool
conn_same_addr (const ebb_http_conn *c, int family, const unsigned char *addr)
{
  size_t n = family == AF_INET ? 4 : 16;
  return c->family == family && memcmp (c->addr, addr, n) == 0;
}

/* The address part of a sockaddr for the per-address limit; false for unix peers. */
static bool
addr_key (const struct sockaddr *sa, int *family, unsigned char addr[16])
{
  if (!sa)
    return false;
  if (sa->sa_family == AF_INET)
    {
      memcpy (addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
      *family = AF_INET;
      return true;
    }
  if (sa->sa_family == AF_INET6)
    {
      memcpy (addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
      *family = AF_INET6;
      return true;
    }
  return false;
}

/* Closes a connection from outside MHD: a shutdown makes its socket readable at EOF, and
 * MHD then closes and forgets it in its next run. */
static void
evict (ebb_http_conn *c)
{
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (c->con, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (ci)
    shutdown (ci->connect_fd, SHUT_RDWR);
  c->evicted = true;
}

/* MHD's accept policy callback: the total and per-address limits. Ours rather than
 * MHD's own, to count refusals and to evict instead of refusing where that is safe. */
enum MHD_Result
ebb_http_conn_accept_policy (void *cls, const struct sockaddr *sa, socklen_t len EBB_UNUSED)
{
  ebb_http_listener *l = cls;
  ebb_http_server *s = l->server;
  if (s->n_conns >= s->max_connections)
    {
      s->stats.rejected_total++;
      return MHD_NO;
    }
  int family = 0;
  unsigned char addr[16];
  if (!addr_key (sa, &family, addr))
    return MHD_YES;
  size_t mine = 0;
  ebb_http_conn *victim = NULL;
  uint64_t now = ebb_now_usec ();
  for (ebb_http_conn *c = s->conns_head; c; c = c->next)
    {
      if (c->evicted || !conn_same_addr (c, family, addr))
        continue;
      mine++;
      if (!victim && !c->headers_done
          && now - c->since_usec >= (uint64_t)EBB_HTTP_EVICT_MIN_AGE_MS * 1000)
        victim = c;
    }
  if (mine < s->max_connections_per_ip)
    return MHD_YES;
  if (!victim)
    {
      s->stats.rejected_per_ip++;
      return MHD_NO;
    }
  evict (victim);
  s->stats.evicted++;
  return MHD_YES;
}

void
ebb_http_conn_on_notify (void *cls, struct MHD_Connection *con, void **socket_context,
                         enum MHD_ConnectionNotificationCode code)
{
  ebb_http_listener *l = cls;
  ebb_http_server *s = l->server;
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    {
      ebb_http_conn *c = ebb_xcalloc (1, sizeof *c);
      c->con = con;
      c->since_usec = ebb_now_usec ();
      const union MHD_ConnectionInfo *ci
          = MHD_get_connection_info (con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      if (!ci || !addr_key (ci->client_addr, &c->family, c->addr))
        c->family = AF_UNIX;
      c->prev = s->conns_tail;
      if (s->conns_tail)
        s->conns_tail->next = c;
      else
        s->conns_head = c;
      s->conns_tail = c;
      s->n_conns++;
      s->stats.connections++;
      *socket_context = c;
      return;
    }
  ebb_http_conn *c = *socket_context;
  if (!c)
    return;
  *socket_context = NULL;
  if (c->prev)
    c->prev->next = c->next;
  else
    s->conns_head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    s->conns_tail = c->prev;
  s->n_conns--;
  free (c);
}
