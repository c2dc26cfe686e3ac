/* ebbctl jobs' filters: active jobs by default, --all, --state, --class, --name PATTERN. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

static const char *const states[] = { "queued", "running", "done", "failed", "killed", "active" };
static const char *const classes[] = { "short", "long", "auto" };

/* arg when it is one of words, else the usage error (with the closest word). */
static int
one_of (const char *opt, const char *arg, const char *const *words, size_t n, const char **out,
        ebb_error **err)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (arg, words[i]) == 0)
      {
        *out = words[i];
        return 0;
      }
  const char *near = ebbctl_suggest (arg, words, n);
  return ebb_error_set (err, EINVAL, "%s: unknown value '%s'%s%s%s", opt, arg,
                        near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

int
ebbctl_jobs_filter_opt (int val, const char *arg, void *data, ebb_error **err)
{
  ebbctl_jobs_filter *f = data;
  switch (val)
    {
    case EBBCTL_O_ALL:
      f->all = true;
      return 0;
    case EBBCTL_O_ACTIVE:
      f->state = "active";
      return 0;
    case EBBCTL_O_STATE:
      return one_of ("--state", arg, states, EBB_ARRAY_SIZE (states), &f->state, err);
    case EBBCTL_O_CLASS:
      return one_of ("--class", arg, classes, EBB_ARRAY_SIZE (classes), &f->klass, err);
    case EBBCTL_O_NAME:
      if (!*arg)
        return ebb_error_set (err, EINVAL, "--name: empty pattern");
      f->name = arg;
      return 0;
    default:
      return ebb_error_set (err, EINVAL, "no such option");
    }
}

bool
ebbctl_jobs_filter_wants_finished (const ebbctl_jobs_filter *f)
{
  if (f->state)
    return ebbctl_job_finished (f->state);
  return f->all;
}

bool
ebbctl_jobs_filter_match (const ebbctl_jobs_filter *f, json_object *job)
{
  const char *state = ebbctl_str (job, "state"), *klass = ebbctl_str (job, "class");
  const char *name = ebbctl_str (job, "name");
  if (f->state && strcmp (f->state, "active") == 0 ? ebbctl_job_finished (state)
      : f->state                                   ? !state || strcmp (state, f->state) != 0
      : !f->all                                    ? ebbctl_job_finished (state)
                                                   : false)
    return false;
  if (f->klass && (!klass || strcmp (klass, f->klass) != 0))
    return false;
  return !f->name || (name && fnmatch (f->name, name, 0) == 0);
}
