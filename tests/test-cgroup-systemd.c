/* The systemd backend where PID 1 is not systemd (these build hosts): opening a cgroup with
 * systemd allowed must fall back to the files quietly, and the systemd-only calls must refuse
 * a files-backed handle. The backend itself is tested against a real systemd by
 * test-cgroup-systemd-live in the VM (`make check-vm`). */
#include "config.h"

#include <errno.h>
#include <systemd/sd-daemon.h>

#include "cgroup/cgroup.h"
#include "cgroup/systemd.h"
#include "lib/util.h"
#include "tests/cu.h"

static void
test_files_without_systemd (void)
{
  ebb_cg_ctx_config cfg;
  ebb_cg_ctx *ctx = NULL;
  ebb_cg *cg = NULL;
  cleanup_error ebb_error *err = NULL;
  ebb_cg_ctx_config_init (&cfg);
  CU_ASSERT_EQUAL (cfg.use_systemd, 1);
  CU_ASSERT_EQUAL_FATAL (ebb_cg_ctx_new (&cfg, &ctx, &err), 0);
  int r = ebb_cg_open_pid (ctx, 0, 0, &cg, &err);
  if (r < 0)
    printf ("\n  open own cgroup: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r, 0);
  if (r == 0)
    {
      CU_ASSERT_NOT_EQUAL (ebb_cg_backend (cg), EBB_CG_BACKEND_SYSTEMD);
      CU_ASSERT_PTR_NULL (ebb_cg_systemd_unit (cg));
      CU_ASSERT_EQUAL (ebb_cg_systemd_verify (cg, 1, &err), -ENOTSUP);
      ebb_error_free (&err);
      ebb_cg_systemd_props p;
      CU_ASSERT_EQUAL (ebb_cg_systemd_read_props (cg, &p, &err), -ENOTSUP);
      CU_ASSERT_EQUAL (ebb_cg_systemd_reloads (cg), 0);
      CU_ASSERT (ebb_cg_systemd_fd (cg) < 0);
      printf ("\n  own cgroup %s: backend %s\n", ebb_cg_path (cg),
              ebb_cg_backend_name (ebb_cg_backend (cg)));
    }
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_files_without_systemd),
};

int
main (void)
{
  if (sd_booted () > 0)
    return 77; /* PID 1 is systemd: test-cgroup-systemd-live covers this host's case */
  if (access ("/sys/fs/cgroup", R_OK) != 0)
    return ebb_cu_skip ("no /sys/fs/cgroup");
  return ebb_cu_run ("cgroup-systemd", NULL, NULL, tests, EBB_ARRAY_SIZE (tests));
}
