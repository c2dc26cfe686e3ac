/* A stand-in for systemd's notify socket in the agent tests: binds a unix datagram socket at
 * argv[1] and prints every message received (one per line, newlines inside a message shown
 * as '|') until argv[2] seconds have passed. */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/time.h"

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: %s SOCKET SECONDS\n", argv[0]);
      return 2;
    }
  int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  if (fd < 0 || strlen (argv[1]) >= sizeof sa.sun_path)
    return 1;
  strcpy (sa.sun_path, argv[1]);
  unlink (argv[1]);
  if (bind (fd, (struct sockaddr *)&sa, sizeof sa) < 0)
    {
      perror ("bind");
      return 1;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  uint64_t end = ebb_now_usec () + (uint64_t)atoi (argv[2]) * 1000000;
  char buf[4096];
  while (ebb_now_usec () < end)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      if (poll (&p, 1, 100) <= 0)
        continue;
      ssize_t n = recv (fd, buf, sizeof buf - 1, 0);
      if (n <= 0)
        continue;
      buf[n] = '\0';
      for (char *c = buf; *c; c++)
        if (*c == '\n')
          *c = '|';
      printf ("%s\n", buf);
    }
  unlink (argv[1]);
  return 0;
}
