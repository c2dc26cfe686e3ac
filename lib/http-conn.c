/* Connection accounting, per listener: MHD's accept policy (total and per-address limits,
 * evicting a slow client's connection rather than refusing a new one), the minimum data
 * rates, and the list of open connections kept by its connection-notify callback. */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/http-internal.h"
#include "lib/time.h"

/* Called for every open connection at every accept: two word compares rather than a
 * memcmp() call (addr_key() zeroes the unused tail of a v4 address). */
static bool
conn_same_addr (const ebb_http_conn *c, int family, const unsigned char *addr)
{
  uint64_t a[2], b[2];
  memcpy (a, c->addr, sizeof a);
  memcpy (b, addr, sizeof b);
  return c->family == family && a[0] == b[0] && a[1] == b[1];
}

/* The address part of a sockaddr for the per-address limit; false for unix peers. */
static bool
addr_key (const struct sockaddr *sa, int *family, unsigned char addr[16])
{
  if (!sa)
    return false;
  if (sa->sa_family == AF_INET)
    {
      memset (addr, 0, 16);
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
evict (ebb_http_listener *l, ebb_http_conn *c)
{
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (c->con, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (ci)
    shutdown (ci->connect_fd, SHUT_RDWR);
  c->evicted = true;
  l->n_evicted++;
  l->server->stats.evicted++;
}

/* Whether c may be closed to make room: its request has not come in (no headers, or a
 * body still arriving) and it is not that of a client that showed the token, and it is old
 * enough that a client that just connected gets to send its request. */
static bool
evictable (const ebb_http_conn *c, uint64_t now)
{
  return !c->evicted && !c->authed && (!c->headers_done || c->in_body)
         && now - c->since_usec >= (uint64_t)EBB_HTTP_EVICT_MIN_AGE_MS * 1000;
}

/* At the listener's cap: the oldest connection without a complete request goes. */
static bool
make_room (ebb_http_listener *l, uint64_t now)
{
  for (ebb_http_conn *c = l->conns_head; c; c = c->next)
    if (evictable (c, now))
      {
        evict (l, c);
        return true;
      }
  return false;
}

/* The per-address limit: at it, the address's oldest evictable connection goes. */
static enum MHD_Result
per_address (ebb_http_listener *l, int family, const unsigned char *addr, uint64_t now)
{
  ebb_http_server *s = l->server;
  size_t mine = 0;
  ebb_http_conn *victim = NULL;
  for (ebb_http_conn *c = l->conns_head; c; c = c->next)
    {
      if (c->evicted || !conn_same_addr (c, family, addr))
        continue;
      mine++;
      if (!victim && evictable (c, now))
        victim = c;
    }
  if (mine < s->max_connections_per_ip)
    return MHD_YES;
  if (!victim)
    {
      s->stats.rejected_per_ip++;
      return MHD_NO;
    }
  evict (l, victim);
  return MHD_YES;
}

/* MHD's accept policy callback: the listener's total and per-address limits. Ours rather
 * than MHD's own, to count refusals and to evict instead of refusing: at either limit, the
 * oldest connection that has not completed a request (and never showed the token) is
 * closed for the new one, so a flood of slow or idle connections cannot lock anyone out. */
enum MHD_Result
ebb_http_conn_accept_policy (void *cls, const struct sockaddr *sa, socklen_t len EBB_UNUSED)
{
  ebb_http_listener *l = cls;
  ebb_http_server *s = l->server;
  uint64_t now = ebb_now_usec ();
  bool full = l->n_conns - l->n_evicted >= s->max_connections;
  if (l->n_conns + 1 >= s->max_connections + EBB_HTTP_EVICT_SLACK || (full && !make_room (l, now)))
    {
      s->stats.rejected_total++;
      return MHD_NO;
    }
  int family = 0;
  unsigned char addr[16];
  if (!addr_key (sa, &family, addr))
    return MHD_YES;
  return per_address (l, family, addr, now);
}

/* The minimum data rates (see EBB_HTTP_RATE_TICK_MS): headers within the header timeout
 * in all, bodies at EBB_HTTP_MIN_BODY_BYTES_PER_SEC. MHD's own timeouts restart at every
 * byte, so a byte every few seconds would hold a connection forever without this. */
void
ebb_http_conn_check_rates (ebb_http_server *s, uint64_t now)
{
  uint64_t header_usec = (uint64_t)s->header_timeout_sec * 1000000;
  for (size_t i = 0; i < s->n_listeners; i++)
    {
      ebb_http_listener *l = &s->listeners[i];
      for (ebb_http_conn *c = l->conns_head; c; c = c->next)
        {
          if (c->evicted)
            continue;
          bool slow = false;
          if (!c->headers_done)
            slow = now - c->since_usec > header_usec;
          else if (c->in_body && now - c->body_since_usec > EBB_HTTP_BODY_GRACE_MS * 1000ull)
            slow = c->body_bytes * 1000000
                   < (now - c->body_since_usec) * EBB_HTTP_MIN_BODY_BYTES_PER_SEC;
          if (slow)
            {
              evict (l, c);
              s->stats.too_slow++;
            }
        }
    }
}

ebb_http_conn *
ebb_http_conn_of (struct MHD_Connection *con)
{
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? ci->socket_context : NULL;
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
      c->prev = l->conns_tail;
      if (l->conns_tail)
        l->conns_tail->next = c;
      else
        l->conns_head = c;
      l->conns_tail = c;
      l->n_conns++;
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
    l->conns_head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    l->conns_tail = c->prev;
  l->n_conns--;
  if (c->evicted)
    l->n_evicted--;
  free (c);
}
