/* A connection flood from many loopback addresses, for tests/security/flood.sh:
 *
 *   flood PORT CONNECTIONS ADDRESSES SECONDS
 *
 * holds CONNECTIONS connections to 127.0.0.1:PORT, spread over ADDRESSES source addresses
 * 127.1.0.1, 127.1.0.2, ... (any local user may bind any of 127.0.0.0/8), for SECONDS. Eight
 * in ten send headers that never end (a byte every 2 s, within any idle timeout), one a body
 * that never ends on GET / (the controller's public status page; a byte every 2 s after the
 * headers), one nothing at all.
 * Whatever the server closes is reopened (idle reconnects), at most RECONNECTS_PER_SEC a
 * second so that the flood does not eat the machine the server runs on. No token is ever
 * sent. Prints one line: the peak number of open connections and the reopen count. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TRICKLE_MS         2000
#define RECONNECTS_PER_SEC 400
#define CONNECTS_PER_SEC   2500 /* the initial ramp: 5,000 in about 2 s */

typedef enum
{
  SLOW_HEADERS,
  SLOW_BODY,
  IDLE,
} flood_kind;

typedef struct
{
  int fd; /* -1: to be (re)opened */
  flood_kind kind;
  unsigned src;       /* index of the source address */
  size_t sent;        /* bytes of the current script sent */
  uint64_t next_ms;   /* when to send the next byte */
  bool opened_before; /* reopening counts as a reconnect */
} flood_conn;

static const char slow_headers[] = "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-a: ";
static const char slow_body[]
    = "GET / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n";

static uint64_t
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Opens c from its source address; the first part of its script goes at once. */
static void
flood_open (flood_conn *c, int port, int ep)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return;
  struct sockaddr_in src
      = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (0x7f010001u + c->src) };
  struct sockaddr_in dst = { .sin_family = AF_INET,
                             .sin_port = htons ((uint16_t)port),
                             .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (bind (fd, (struct sockaddr *)&src, sizeof src) < 0
      || (connect (fd, (struct sockaddr *)&dst, sizeof dst) < 0 && errno != EINPROGRESS))
    {
      close (fd);
      return;
    }
  struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
  epoll_ctl (ep, EPOLL_CTL_ADD, fd, &ev);
  c->fd = fd;
  c->sent = 0;
  c->next_ms = now_ms ();
}

/* The next byte of c's script (the whole head of a slow body at once). */
static void
flood_trickle (flood_conn *c, uint64_t now)
{
  if (c->fd < 0 || c->kind == IDLE || now < c->next_ms)
    return;
  const char *text = c->kind == SLOW_HEADERS ? slow_headers : slow_body;
  size_t len = strlen (text), n = 1;
  if (c->kind == SLOW_BODY && c->sent == 0)
    n = len;
  char buf[sizeof slow_body];
  if (c->sent < len)
    memcpy (buf, text + c->sent, n);
  else
    buf[0] = 'b'; /* header value or body, forever */
  if (send (c->fd, buf, n, MSG_NOSIGNAL) > 0)
    c->sent += n;
  c->next_ms = now + (c->sent < len && c->kind == SLOW_HEADERS ? 0 : TRICKLE_MS);
}

/* Reads and drops what the server sends; a close marks c for reopening. */
static size_t
flood_events (int ep, struct epoll_event *evs, int max)
{
  size_t closed = 0;
  int n = epoll_wait (ep, evs, max, 50);
  for (int i = 0; i < n; i++)
    {
      flood_conn *c = evs[i].data.ptr;
      char buf[4096];
      ssize_t r = read (c->fd, buf, sizeof buf);
      if (r == 0 || (r < 0 && errno != EAGAIN) || (evs[i].events & (EPOLLRDHUP | EPOLLHUP)))
        {
          close (c->fd); /* also leaves the epoll set */
          c->fd = -1;
          closed++;
        }
    }
  return closed;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: flood PORT CONNECTIONS ADDRESSES SECONDS\n");
      return 2;
    }
  int port = atoi (argv[1]);
  size_t total = strtoul (argv[2], NULL, 10);
  unsigned addrs = (unsigned)strtoul (argv[3], NULL, 10);
  uint64_t end = now_ms () + strtoull (argv[4], NULL, 10) * 1000;
  if (port <= 0 || total == 0 || addrs == 0)
    return 2;
  flood_conn *conns = calloc (total, sizeof *conns);
  for (size_t i = 0; i < total; i++)
    conns[i] = (flood_conn){ .fd = -1,
                             .kind = i % 10 == 0   ? SLOW_BODY
                                     : i % 10 == 1 ? IDLE
                                                   : SLOW_HEADERS,
                             .src = (unsigned)(i % addrs) };
  int ep = epoll_create1 (EPOLL_CLOEXEC);
  struct epoll_event *evs = calloc (1024, sizeof *evs);
  size_t open_now = 0, peak = 0, reopened = 0, next = 0;
  uint64_t budget_at = now_ms (), trickle_at = 0;
  double budget = 0;
  for (uint64_t now = now_ms (); now < end; now = now_ms ())
    {
      /* Open what is closed, within the rate budget: the ramp first, then reopens. */
      double rate = reopened || next >= total ? RECONNECTS_PER_SEC : CONNECTS_PER_SEC;
      budget += (double)(now - budget_at) * rate / 1000;
      budget_at = now;
      if (budget > rate / 10)
        budget = rate / 10;
      for (size_t k = 0; k < total && budget >= 1; k++, next = (next + 1) % total)
        {
          flood_conn *c = &conns[next];
          if (c->fd >= 0)
            continue;
          flood_open (c, port, ep);
          budget -= 1;
          if (c->fd < 0)
            continue;
          open_now++;
          reopened += c->opened_before;
          c->opened_before = true;
        }
      if (now >= trickle_at) /* not at every event: the flood must not eat the machine */
        {
          for (size_t i = 0; i < total; i++)
            flood_trickle (&conns[i], now);
          trickle_at = now + 100;
        }
      if (open_now > peak)
        peak = open_now;
      open_now -= flood_events (ep, evs, 1024);
    }
  printf ("flood: peak %zu open, %zu reopened\n", peak, reopened);
  for (size_t i = 0; i < total; i++)
    if (conns[i].fd >= 0)
      close (conns[i].fd);
  close (ep);
  free (evs);
  free (conns);
  return 0;
}
