/* agent/runtime.c against a fake engine: a unix-socket HTTP server in a thread that serves
 * canned inspect/list documents and an /events stream the test writes byte by byte. Covers
 * what a real engine will not do on demand: events split at every boundary, a malformed
 * stream, an error status, a container that vanishes while the client is away, and the
 * event/inspect races (each reported once). Runs as any user; no engine needed. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "agent/runtime.h"
#include "lib/time.h"
#include "tests/cu.h"

#define ID1 "1111111111111111111111111111111111111111111111111111111111111111"
#define ID2 "2222222222222222222222222222222222222222222222222222222222222222"
#define ID3 "3333333333333333333333333333333333333333333333333333333333333333"

typedef struct
{
  char id[65];
  char name[32];
  pid_t pid; /* 0: not running */
  int exit_code;
  bool labeled;
} fake_container;

/* The engine's state, shared by the server threads and the test (under lock). */
static struct
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  fake_container c[4];
  size_t n;
  int events_status;   /* status for the next /events request */
  char queue[1 << 16]; /* bytes to send on the open events stream, one chunk per write */
  size_t queue_len;
  size_t chunk_bytes; /* send the queue in chunks this big */
  int stream_gen;     /* bumped to close the open events stream (as a dying engine does) */
  int events_conns;
  int listen_fd;
  char sock[108];
} fe = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static sd_event *loop;
static pid_t child; /* a real process to stand for the containers */

/* --------------------------------------------------------------------------------- */
/* The fake engine                                                                     */

static bool
send_all (int fd, const char *buf, size_t len)
{
  while (len > 0)
    {
      ssize_t n = send (fd, buf, len, MSG_NOSIGNAL);
      if (n <= 0)
        return false;
      buf += n;
      len -= (size_t)n;
    }
  return true;
}

static void
reply (int fd, int status, const char *body)
{
  char head[256];
  snprintf (head, sizeof head,
            "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
            "Connection: close\r\n\r\n",
            status, strlen (body));
  send_all (fd, head, strlen (head));
  send_all (fd, body, strlen (body));
}

static char *
inspect_doc (const fake_container *c)
{
  return ebb_xasprintf ("{\"Id\":\"%s\",\"Name\":\"/%s\",\"State\":{\"Running\":%s,\"Pid\":%d,"
                        "\"ExitCode\":%d},\"Config\":{\"Labels\":%s}}",
                        c->id, c->name, c->pid ? "true" : "false", (int)c->pid, c->exit_code,
                        c->labeled ? "{\"ebb.job\":\"j\",\"ebb.class\":\"short\",\"ebb.cpu\":"
                                     "\"100\",\"ebb.memory\":\"1000\"}"
                                   : "{}");
}

static void
serve_list (int fd)
{
  char body[4096] = "[";
  for (size_t i = 0; i < fe.n; i++)
    {
      const fake_container *c = &fe.c[i];
      snprintf (body + strlen (body), sizeof body - strlen (body),
                "%s{\"Id\":\"%s\",\"Names\":[\"/%s\"],\"State\":\"%s\",\"Labels\":%s}",
                i ? "," : "", c->id, c->name, c->pid ? "running" : "exited",
                c->labeled ? "{\"ebb.job\":\"j\"}" : "{}");
    }
  strcat (body, "]");
  reply (fd, 200, body);
}

static void
serve_inspect (int fd, const char *ref)
{
  for (size_t i = 0; i < fe.n; i++)
    if (strcmp (fe.c[i].id, ref) == 0 || strcmp (fe.c[i].name, ref) == 0)
      {
        char *doc = inspect_doc (&fe.c[i]);
        reply (fd, 200, doc);
        free (doc);
        return;
      }
  reply (fd, 404, "{\"message\":\"No such container\"}");
}

/* The events stream: chunked, fed from fe.queue until the stream generation changes (a drop,
 * or a newer stream) or the client goes away. Called with the lock. */
static void
serve_events (int fd)
{
  int status = fe.events_status;
  fe.events_conns++;
  pthread_cond_broadcast (&fe.cond);
  if (status != 200)
    {
      reply (fd, status, "{\"message\":\"no\"}");
      return;
    }
  const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n";
  int gen = ++fe.stream_gen;
  bool up = send_all (fd, head, strlen (head));
  while (up && gen == fe.stream_gen)
    {
      if (fe.queue_len == 0)
        {
          pthread_cond_wait (&fe.cond, &fe.lock);
          continue;
        }
      size_t n = fe.queue_len < fe.chunk_bytes ? fe.queue_len : fe.chunk_bytes;
      char size[32];
      snprintf (size, sizeof size, "%zx\r\n", n);
      up = send_all (fd, size, strlen (size)) && send_all (fd, fe.queue, n)
           && send_all (fd, "\r\n", 2);
      memmove (fe.queue, fe.queue + n, fe.queue_len - n);
      fe.queue_len -= n;
      /* Let the client read each chunk on its own. */
      pthread_mutex_unlock (&fe.lock);
      ebb_sleep_usec (200);
      pthread_mutex_lock (&fe.lock);
    }
  /* Dropped without the final chunk, like an engine that dies. */
}

static void *
serve_conn (void *arg)
{
  int fd = (int)(intptr_t)arg;
  char req[4096] = "";
  size_t len = 0;
  while (len < sizeof req - 1 && !strstr (req, "\r\n\r\n"))
    {
      ssize_t n = recv (fd, req + len, sizeof req - 1 - len, 0);
      if (n <= 0)
        break;
      len += (size_t)n;
      req[len] = '\0';
    }
  req[len] = '\0';
  char path[1024] = "";
  sscanf (req, "GET %1023s", path);
  pthread_mutex_lock (&fe.lock);
  char ref[256];
  if (strncmp (path, "/v1.40/events", 13) == 0)
    serve_events (fd);
  else if (strncmp (path, "/v1.40/containers/json", 22) == 0)
    serve_list (fd);
  else if (sscanf (path, "/v1.40/containers/%255[^/]/json", ref) == 1)
    serve_inspect (fd, ref);
  else
    reply (fd, 404, "{\"message\":\"page not found\"}");
  pthread_mutex_unlock (&fe.lock);
  close (fd);
  return NULL;
}

static void *
serve (void *arg EBB_UNUSED)
{
  for (;;)
    {
      int fd = accept (fe.listen_fd, NULL, NULL);
      if (fd < 0)
        return NULL; /* the listening socket was shut down */
      pthread_t t;
      if (pthread_create (&t, NULL, serve_conn, (void *)(intptr_t)fd) == 0)
        pthread_detach (t);
      else
        close (fd);
    }
}

/* Closes the open events stream. */
static void
drop_stream (void)
{
  pthread_mutex_lock (&fe.lock);
  fe.stream_gen++;
  pthread_cond_broadcast (&fe.cond);
  pthread_mutex_unlock (&fe.lock);
}

/* Queues text for the events stream. */
static void
push_events (const char *text, size_t chunk_bytes)
{
  pthread_mutex_lock (&fe.lock);
  size_t n = strlen (text);
  CU_ASSERT_FATAL (fe.queue_len + n <= sizeof fe.queue);
  memcpy (fe.queue + fe.queue_len, text, n);
  fe.queue_len += n;
  fe.chunk_bytes = chunk_bytes;
  pthread_cond_broadcast (&fe.cond);
  pthread_mutex_unlock (&fe.lock);
}

static void
set_container (size_t i, const char *id, const char *name, pid_t pid, int exit_code, bool labeled)
{
  pthread_mutex_lock (&fe.lock);
  fake_container *c = &fe.c[i];
  snprintf (c->id, sizeof c->id, "%s", id);
  snprintf (c->name, sizeof c->name, "%s", name);
  c->pid = pid;
  c->exit_code = exit_code;
  c->labeled = labeled;
  if (i >= fe.n)
    fe.n = i + 1;
  pthread_mutex_unlock (&fe.lock);
}

/* --------------------------------------------------------------------------------- */
/* The client side                                                                     */

typedef struct
{
  ebb_rt_event_type type;
  char id[65];
  pid_t pid;
  int exit_code;
  bool managed;
  char detail[128];
  char cpu[512];
} rec_event;

static rec_event rec[256];
static size_t n_rec;

static void
on_event (ebb_rt *rt EBB_UNUSED, const ebb_rt_event *ev, void *userdata EBB_UNUSED)
{
  if (n_rec == EBB_ARRAY_SIZE (rec))
    return;
  rec_event *e = &rec[n_rec++];
  memset (e, 0, sizeof *e);
  e->type = ev->type;
  e->exit_code = ev->exit_code;
  snprintf (e->detail, sizeof e->detail, "%s", ev->detail ? ev->detail : "");
  if (!ev->info)
    return;
  snprintf (e->id, sizeof e->id, "%s", ev->info->id);
  e->pid = ev->info->pid;
  e->managed = ev->info->managed;
  const char *cpu = ev->info->cgroups.cpu ? ev->info->cgroups.cpu : ev->info->cgroups.unified;
  snprintf (e->cpu, sizeof e->cpu, "%s", cpu ? cpu : "");
}

/* ebb_rt_inspect_async: the answer arrives through the loop. */
typedef struct
{
  bool done;
  int code;
  char id[65];
  int running;
} async_out;

static void
on_async (ebb_rt_info *info, const ebb_error *err, void *ud)
{
  async_out *o = ud;
  o->done = true;
  o->code = err ? err->code : 0;
  if (info)
    {
      snprintf (o->id, sizeof o->id, "%s", info->id ? info->id : "");
      o->running = info->running;
    }
}

/* Starts an asynchronous lookup of ref and runs the loop until it answers (2 s at most). */
static async_out
inspect_async (ebb_rt *rt, const char *ref)
{
  async_out o = { 0 };
  ebb_error *err = NULL;
  if (ebb_rt_inspect_async (rt, ref, on_async, &o, &err) < 0)
    {
      o.done = true;
      o.code = ebb_error_code (&err) ? ebb_error_code (&err) : EIO;
      ebb_error_free (&err);
      return o;
    }
  CU_ASSERT_FALSE (o.done); /* never answered inside the call */
  uint64_t end = ebb_now_usec () + 2000000;
  while (!o.done && ebb_now_usec () < end)
    sd_event_run (loop, 20000);
  CU_ASSERT_TRUE (o.done);
  return o;
}

static ssize_t
wait_event (ebb_rt_event_type type, const char *id, size_t from, uint64_t timeout_usec)
{
  uint64_t end = ebb_now_usec () + timeout_usec;
  for (;;)
    {
      for (size_t i = from; i < n_rec; i++)
        if (rec[i].type == type && (!id || strcmp (rec[i].id, id) == 0))
          return (ssize_t)i;
      uint64_t now = ebb_now_usec ();
      if (now >= end)
        return -1;
      sd_event_run (loop, end - now < 20000 ? end - now : 20000);
    }
}

static size_t
count (ebb_rt_event_type type, const char *id, size_t from)
{
  size_t n = 0;
  for (size_t i = from; i < n_rec; i++)
    n += rec[i].type == type && (!id || strcmp (rec[i].id, id) == 0);
  return n;
}

static void
spin (uint64_t usec)
{
  uint64_t end = ebb_now_usec () + usec;
  for (uint64_t now; (now = ebb_now_usec ()) < end;)
    sd_event_run (loop, end - now);
}

static const char *
event_json (const char *action, const char *id, const char *exit_code)
{
  static char buf[1024];
  snprintf (buf, sizeof buf,
            "{\"status\":\"%s\",\"id\":\"%s\",\"Type\":\"container\",\"Action\":\"%s\","
            "\"Actor\":{\"ID\":\"%s\",\"Attributes\":{\"name\":\"x\"%s%s%s}},\"time\":1}\n",
            action, id, action, id, exit_code ? ",\"exitCode\":\"" : "", exit_code ? exit_code : "",
            exit_code ? "\"" : "");
  return buf;
}

static ebb_rt *
client (void)
{
  ebb_rt_options o = { .backoff_min_usec = 20000, .backoff_max_usec = 100000 };
  ebb_rt *rt = ebb_rt_new (loop, EBB_RT_DOCKER, fe.sock, &o, on_event, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rt);
  return rt;
}

/* Connect, re-list, events split into 1..7-byte chunks, each reported once. */
static void
test_follow (void)
{
  n_rec = 0;
  fe.events_status = 200;
  set_container (0, ID1, "one", child, 0, true);
  set_container (1, ID2, "plain", child, 0, false);
  ebb_rt *rt = client ();
  CU_ASSERT_FATAL (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, 0, 2000000) >= 0);
  ssize_t i = wait_event (EBB_RT_CONTAINER_STARTED, ID1, 0, 2000000);
  CU_ASSERT_FATAL (i >= 0);
  CU_ASSERT_EQUAL (rec[i].pid, child);
  CU_ASSERT_TRUE (rec[i].managed);
  /* Resolved from the child's real /proc/PID/cgroup. */
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL_FATAL (ebb_rt_read_proc_cgroup (NULL, child, &cg, NULL), 0);
  CU_ASSERT_STRING_EQUAL (rec[i].cpu, cg.cpu ? cg.cpu : cg.unified);
  ebb_rt_cgroups_clear (&cg);
  CU_ASSERT_EQUAL (count (EBB_RT_CONTAINER_STARTED, ID2, 0), 0); /* no ebb labels */
  for (size_t chunk = 1; chunk <= 7; chunk++)
    {
      size_t from = n_rec;
      set_container (2, ID3, "three", child, 0, true);
      push_events (event_json ("create", ID3, NULL), chunk);
      push_events (event_json ("start", ID3, NULL), chunk);
      CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_STARTED, ID3, from, 2000000) >= 0);
      set_container (2, ID3, "three", 0, 5, true);
      push_events (event_json ("die", ID3, "5"), chunk);
      push_events (event_json ("oom", ID1, NULL), chunk);
      push_events (event_json ("update", ID1, NULL), chunk);
      ssize_t d = wait_event (EBB_RT_CONTAINER_DIED, ID3, from, 2000000);
      CU_ASSERT_TRUE (d >= 0 && rec[d].exit_code == 5);
      CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_OOM, ID1, from, 2000000) >= 0);
      CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_UPDATED, ID1, from, 2000000) >= 0);
      push_events (event_json ("destroy", ID3, NULL), chunk);
      CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_REMOVED, ID3, from, 2000000) >= 0);
      spin (50000);
      CU_ASSERT_EQUAL (count (EBB_RT_CONTAINER_STARTED, ID3, from), 1);
      CU_ASSERT_EQUAL (count (EBB_RT_CONTAINER_DIED, ID3, from), 1);
      CU_ASSERT_EQUAL (count (EBB_RT_CONTAINER_STARTED, ID1, from), 0);
    }
  CU_ASSERT_EQUAL (count (EBB_RT_ENGINE_DISCONNECTED, NULL, 0), 0);
  ebb_rt_free (rt);
  drop_stream ();
}

/* A malformed stream, then an engine that answers 500, then one that is back without the
 * container we knew: DISCONNECTED each time, reconnect with backoff, and the re-list
 * reports the container gone. */
static void
test_hostile_and_reconnect (void)
{
  n_rec = 0;
  fe.events_status = 200;
  fe.n = 0;
  set_container (0, ID1, "one", child, 0, true);
  ebb_rt *rt = client ();
  CU_ASSERT_FATAL (wait_event (EBB_RT_CONTAINER_STARTED, ID1, 0, 2000000) >= 0);
  size_t from = n_rec;
  pthread_mutex_lock (&fe.lock);
  fe.events_status = 500; /* for the reconnect */
  pthread_mutex_unlock (&fe.lock);
  push_events ("{\"Type\":\"container\",\"Action\":\"start\"]\n", 3);
  ssize_t d = wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, from, 2000000);
  CU_ASSERT_FATAL (d >= 0);
  CU_ASSERT_STRING_EQUAL (rec[d].detail, "malformed event stream");
  CU_ASSERT_FALSE (ebb_rt_connected (rt));
  ssize_t e = wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, (size_t)d + 1, 2000000);
  CU_ASSERT_FATAL (e >= 0);
  CU_ASSERT_STRING_EQUAL (rec[e].detail, "HTTP 500 from /events");
  /* Back, without container one (it went away while we were not listening). */
  pthread_mutex_lock (&fe.lock);
  fe.n = 0;
  fe.events_status = 200;
  fe.queue_len = 0;
  pthread_mutex_unlock (&fe.lock);
  set_container (0, ID2, "two", child, 0, true);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, (size_t)e, 2000000) >= 0);
  ssize_t died = wait_event (EBB_RT_CONTAINER_DIED, ID1, from, 2000000);
  ssize_t gone = wait_event (EBB_RT_CONTAINER_REMOVED, ID1, from, 2000000);
  CU_ASSERT_TRUE (died >= 0 && gone > died);
  CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_STARTED, ID2, from, 2000000) >= 0);
  /* Blocking calls on the same engine. */
  ebb_rt_info info;
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "two", &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.id, ID2);
  CU_ASSERT_EQUAL (info.pid, child);
  ebb_rt_info_clear (&info);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "one", &info, &err), -ENOENT);
  ebb_error_free (&err);
  /* The start of a name, when only one name starts so. */
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "tw", &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.id ? info.id : "", ID2);
  ebb_rt_info_clear (&info);
  set_container (1, ID3, "twin", 0, 0, false);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "tw", &info, &err), -EINVAL);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "2 containers"));
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "twi", &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.id ? info.id : "", ID3);
  CU_ASSERT_FALSE (info.running);
  ebb_rt_info_clear (&info);
  /* The same lookups without blocking (what the agent's API uses). */
  async_out ao = inspect_async (rt, "two");
  CU_ASSERT_EQUAL (ao.code, 0);
  CU_ASSERT_STRING_EQUAL (ao.id, ID2);
  CU_ASSERT_TRUE (ao.running);
  ao = inspect_async (rt, "twi");
  CU_ASSERT_EQUAL (ao.code, 0);
  CU_ASSERT_STRING_EQUAL (ao.id, ID3);
  ao = inspect_async (rt, "tw");
  CU_ASSERT_EQUAL (ao.code, EINVAL);
  ao = inspect_async (rt, "one");
  CU_ASSERT_EQUAL (ao.code, ENOENT);
  ao = inspect_async (rt, "../x");
  CU_ASSERT_EQUAL (ao.code, EINVAL);
  pthread_mutex_lock (&fe.lock);
  fe.n = 1;
  pthread_mutex_unlock (&fe.lock);
  ebb_rt_info *list = NULL;
  CU_ASSERT_EQUAL (ebb_rt_list (rt, true, &list, NULL), 1);
  CU_ASSERT_STRING_EQUAL (list[0].id, ID2);
  ebb_rt_info_array_free (list, 1);
  /* The engine dies mid-stream: DISCONNECTED, then back. */
  from = n_rec;
  drop_stream ();
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, from, 2000000) >= 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, from, 2000000) >= 0);
  spin (100000);
  CU_ASSERT_EQUAL (count (EBB_RT_CONTAINER_STARTED, ID2, from), 0); /* unchanged: not again */
  ebb_rt_free (rt);
  drop_stream ();
}

static char dir[] = "/tmp/ebb-rt-fake.XXXXXX";
static pthread_t server;

static int
init (void)
{
  if (!mkdtemp (dir) || sd_event_new (&loop) < 0)
    return -1;
  snprintf (fe.sock, sizeof fe.sock, "%s/engine.sock", dir);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s", fe.sock);
  fe.listen_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fe.listen_fd < 0 || bind (fe.listen_fd, (struct sockaddr *)&sa, sizeof sa) < 0
      || listen (fe.listen_fd, 16) < 0)
    return -1;
  child = fork ();
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  return pthread_create (&server, NULL, serve, NULL) == 0 ? 0 : -1;
}

static int
clean (void)
{
  shutdown (fe.listen_fd, SHUT_RDWR);
  pthread_join (server, NULL);
  close (fe.listen_fd);
  if (child > 0)
    {
      kill (child, SIGKILL);
      waitpid (child, NULL, 0);
    }
  unlink (fe.sock);
  rmdir (dir);
  sd_event_unref (loop);
  return 0;
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_follow),
  EBB_CU_TEST (test_hostile_and_reconnect),
};

EBB_CU_MAIN ("runtime-fake", init, clean, tests)
