#include "config.h"
#include "lib/error.h"
#include "tests/cu.h"

static int
fails_inner (ebb_error **err)
{
  return ebb_error_set_errno (err, ENOENT, "open %s", "cpu.max");
}

static int
fails_outer (ebb_error **err)
{
  if (fails_inner (err) < 0)
    return ebb_error_wrap (err, "suspend task %s", "web-1");
  return 0;
}

static void
test_set_returns_negative_code (void)
{
  cleanup_error ebb_error *err = NULL;
  int r = ebb_error_set (&err, EINVAL, "bad value %d", 7);
  CU_ASSERT_EQUAL (r, -EINVAL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (err);
  CU_ASSERT_EQUAL (err->code, EINVAL);
  CU_ASSERT_STRING_EQUAL (err->msg, "bad value 7");
}

static void
test_wrap_prepends_context (void)
{
  cleanup_error ebb_error *err = NULL;
  int r = fails_outer (&err);
  CU_ASSERT_EQUAL (r, -ENOENT);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err),
                          "suspend task web-1: open cpu.max: No such file or directory");
  CU_ASSERT_EQUAL (ebb_error_code (&err), ENOENT);
}

static void
test_null_err_is_allowed (void)
{
  CU_ASSERT_EQUAL (fails_outer (NULL), -EIO); /* wrap without details cannot know the code */
  CU_ASSERT_EQUAL (fails_inner (NULL), -ENOENT);
  CU_ASSERT_EQUAL (ebb_error_code (NULL), 0);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (NULL), "");
}

static void
test_first_error_wins (void)
{
  cleanup_error ebb_error *err = NULL;
  ebb_error_set (&err, EBB_EGONE, "task gone");
  int r = ebb_error_set (&err, EIO, "later failure");
  CU_ASSERT_EQUAL (r, -EIO);
  CU_ASSERT_EQUAL (err->code, EBB_EGONE);
  CU_ASSERT_STRING_EQUAL (err->msg, "task gone");
}

static void
test_code_zero_becomes_eio (void)
{
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_error_set (&err, 0, "x"), -EIO);
  CU_ASSERT_EQUAL (err->code, EIO);
}

static void
test_ebb_codes_have_no_strerror (void)
{
  cleanup_error ebb_error *err = NULL;
  ebb_error_set_errno (&err, EBB_EPARSE, "line 3");
  CU_ASSERT_STRING_EQUAL (err->msg, "line 3");
  CU_ASSERT_STRING_EQUAL (ebb_error_code_name (EBB_EPARSE), "EBB_EPARSE");
  CU_ASSERT_STRING_EQUAL (ebb_error_code_name (ENOENT), "ENOENT");
  CU_ASSERT_STRING_EQUAL (ebb_error_code_name (-12345), "E?");
}

static void
test_free_resets (void)
{
  ebb_error *err = NULL;
  ebb_error_set (&err, EPERM, "x");
  ebb_error_free (&err);
  CU_ASSERT_PTR_NULL (err);
  ebb_error_free (&err); /* idempotent */
  ebb_error_free (NULL);
  CU_ASSERT_EQUAL (ebb_error_wrap (&err, "ctx"), -EIO);
  CU_ASSERT_PTR_NULL (err);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_set_returns_negative_code),
  EBB_CU_TEST (test_wrap_prepends_context),
  EBB_CU_TEST (test_null_err_is_allowed),
  EBB_CU_TEST (test_first_error_wins),
  EBB_CU_TEST (test_code_zero_becomes_eio),
  EBB_CU_TEST (test_ebb_codes_have_no_strerror),
  EBB_CU_TEST (test_free_resets),
};
EBB_CU_MAIN ("error", NULL, NULL, tests)
