/* libebb-cgroup's systemd backend, the bus side (cgroup/systemd-bus.h): each handle has its
 * own bus connection (a handle is used by one thread at a time, sd-bus objects are not
 * thread-safe); a dropped connection is re-opened on the next call, and systemd's Reloading
 * signal marks the limits for re-verification (cgroup/systemd.c). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/systemd-bus.h"
#include "lib/log.h"

ebb_cg_sd_state *
ebb_cg_sd_state_of (const ebb_cg *cg)
{
  return cg && cg->kind == EBB_CG_BACKEND_SYSTEMD ? cg->backend_data : NULL;
}

void
ebb_cg_sd_drop_bus (ebb_cg_sd_state *s)
{
  s->reload_slot = sd_bus_slot_unref (s->reload_slot);
  s->bus = sd_bus_flush_close_unref (s->bus);
}

void
ebb_cg_sd_state_free (ebb_cg_sd_state *s)
{
  if (!s)
    return;
  ebb_cg_sd_drop_bus (s);
  free (s->unit);
  free (s->unit_path);
  free (s->iface);
  free (s);
}

/* Completed reloads arrive as Reloading(false). */
static int
on_reloading (sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
  ebb_cg_sd_state *s = userdata;
  int active = 0;
  (void)ret_error;
  if (sd_bus_message_read (m, "b", &active) >= 0 && !active)
    {
      s->reloads++;
      s->reload_pending = 1;
    }
  return 0;
}

/* Connects to the system bus, or (root, no dbus-daemon) straight to systemd's private
 * socket. Returns 0 and *out, or a negative errno. */
static int
open_bus (sd_bus **out)
{
  sd_bus *bus = NULL;
  int r = sd_bus_open_system (&bus);
  if (r >= 0)
    {
      /* sd_bus_open_system connects lazily; a cheap call proves the daemon is there */
      r = sd_bus_call_method (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus", "GetId", NULL, NULL, "");
      if (r >= 0)
        return *out = bus, 0;
    }
  bus = sd_bus_flush_close_unref (bus);
  if ((r = sd_bus_new (&bus)) < 0)
    return r;
  if ((r = sd_bus_set_address (bus, SD_PRIVATE_BUS)) >= 0 && (r = sd_bus_start (bus)) >= 0)
    return *out = bus, 0;
  sd_bus_unref (bus);
  return r;
}

/* Makes sure s->bus is connected, subscribed to Reloading. A (re)connection marks a reload
 * as pending: one may have happened while we were not listening. Returns 0 or -errno. */
int
ebb_cg_sd_ensure_bus (ebb_cg_sd_state *s)
{
  if (s->bus && sd_bus_is_open (s->bus) > 0)
    return 0;
  if (s->bus)
    {
      ebb_cg_sd_drop_bus (s);
      s->reconnects++;
      ebb_log_info ("systemd backend %s: bus connection lost, reconnecting", s->unit);
    }
  int r = open_bus (&s->bus);
  if (r < 0)
    return r;
  r = sd_bus_match_signal (s->bus, &s->reload_slot, SD_DEST, SD_PATH, SD_MANAGER, "Reloading",
                           on_reloading, s);
  if (r >= 0)
    /* systemd broadcasts its signals on the system bus only to subscribed clients */
    r = sd_bus_call_method (s->bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL, "");
  if (r < 0)
    ebb_log_warn ("systemd backend: no Reloading signal (%s): limits are re-verified on each "
                  "operation only",
                  strerror (-r));
  s->reload_pending = 1;
  return 0;
}

static int
is_connection_error (int r)
{
  return r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE || r == -ESHUTDOWN || r == -ECONNREFUSED
         || r == -EBADF;
}

/* Calls a method, building the message with build(arg); on a lost connection reconnects and
 * tries once more. Returns >= 0 (reply in *reply when given); the bus error's errno with a
 * message in *err otherwise. */
int
ebb_cg_sd_call (ebb_cg_sd_state *s, const char *path, const char *iface, const char *member,
                ebb_cg_sd_build_fn build, const void *arg, sd_bus_message **reply, ebb_error **err)
{
  int r = 0;
  for (int attempt = 0; attempt < 2; attempt++)
    {
      sd_bus_error e = SD_BUS_ERROR_NULL;
      sd_bus_message *m = NULL;
      if ((r = ebb_cg_sd_ensure_bus (s)) < 0)
        return ebb_error_set (err, -r, "systemd: cannot connect to the bus: %s", strerror (-r));
      r = sd_bus_message_new_method_call (s->bus, &m, SD_DEST, path, iface, member);
      if (r >= 0 && build)
        r = build (m, arg);
      if (r >= 0)
        r = sd_bus_call (s->bus, m, CALL_TIMEOUT_USEC, &e, reply);
      sd_bus_message_unref (m);
      if (r >= 0)
        return r;
      if (attempt == 0 && is_connection_error (r) && !sd_bus_error_is_set (&e))
        {
          ebb_cg_sd_drop_bus (s);
          continue;
        }
      /* the unit went away with its processes: "task gone", as ENOENT on the files is */
      int code = sd_bus_error_has_name (&e, "org.freedesktop.systemd1.NoSuchUnit")
                     ? EBB_EGONE
                     : (sd_bus_error_get_errno (&e) ?: -r);
      r = ebb_error_set (err, code, "systemd %s %s: %s", member, s->unit ? s->unit : "",
                         e.message ? e.message : strerror (-r));
      sd_bus_error_free (&e);
      return r;
    }
  return r;
}

static int
build_get (sd_bus_message *m, const void *arg)
{
  const char *const *ifname = arg;
  return sd_bus_message_append (m, "ss", ifname[0], ifname[1]);
}

/* Reads property `name` of interface `iface` on the unit; type 't' (into *u64) or 's' (copied
 * into str). Returns 0, or negative with *err. */
int
ebb_cg_sd_get_prop (ebb_cg_sd_state *s, const char *iface, const char *name, char type,
                    uint64_t *u64, char *str, size_t strsz, ebb_error **err)
{
  const char *ifname[2] = { iface, name };
  sd_bus_message *reply = NULL;
  char sig[2] = { type, 0 };
  int r = ebb_cg_sd_call (s, s->unit_path, "org.freedesktop.DBus.Properties", "Get", build_get,
                          ifname, &reply, err);
  if (r < 0)
    return r;
  r = sd_bus_message_enter_container (reply, 'v', sig);
  if (r >= 0 && type == 't')
    r = sd_bus_message_read (reply, "t", u64);
  else if (r >= 0)
    {
      const char *v = NULL;
      r = sd_bus_message_read (reply, "s", &v);
      if (r >= 0)
        snprintf (str, strsz, "%s", v);
    }
  sd_bus_message_unref (reply);
  if (r < 0)
    return ebb_error_set (err, EBB_EPARSE, "systemd %s: property %s: %s", s->unit, name,
                          strerror (-r));
  return 0;
}

static int
build_set (sd_bus_message *m, const void *arg)
{
  const ebb_cg_sd_prop_set *p = arg;
  int r = sd_bus_message_append (m, "sb", p->unit, 1);
  if (r >= 0)
    r = sd_bus_message_open_container (m, 'a', "(sv)");
  for (int i = 0; i < p->n && r >= 0; i++)
    if (p->type[i] == 'b')
      r = sd_bus_message_append (m, "(sv)", p->name[i], "b", (int)p->value[i]);
    else
      r = sd_bus_message_append (m, "(sv)", p->name[i], "t", p->value[i]);
  if (r >= 0)
    r = sd_bus_message_close_container (m);
  return r;
}

int
ebb_cg_sd_set_props (ebb_cg_sd_state *s, const ebb_cg_sd_prop_set *p, ebb_error **err)
{
  return ebb_cg_sd_call (s, SD_PATH, SD_MANAGER, "SetUnitProperties", build_set, p, NULL, err);
}

uint64_t
ebb_cg_sd_value (uint64_t v)
{
  return v == EBB_CG_MAX ? UINT64_MAX : v; /* systemd's infinity is UINT64_MAX as well */
}
