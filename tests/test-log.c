#include "config.h"
#include "lib/log.h"
#include "tests/cu.h"

static char *buf;
static size_t buf_len;

static FILE *
capture (void)
{
  free (buf);
  buf = NULL;
  FILE *f = open_memstream (&buf, &buf_len);
  ebb_log_set_stream (f);
  return f;
}

static void
test_prefix_and_threshold (void)
{
  FILE *f = capture ();
  ebb_log_set_prefix_mode (EBB_LOG_PREFIX_ALWAYS);
  ebb_log_set_level (LOG_INFO);
  ebb_log_err ("disk %s", "full");
  ebb_log_debug ("hidden");
  ebb_log_info ("x=%d", 3);
  fclose (f);
  ebb_log_set_stream (NULL);
  CU_ASSERT_STRING_EQUAL (buf, "<3>disk full\n<6>x=3\n");
}

static void
test_no_prefix_and_ident (void)
{
  FILE *f = capture ();
  ebb_log_set_prefix_mode (EBB_LOG_PREFIX_NEVER);
  ebb_log_set_ident ("ebb-agent");
  ebb_log_set_level (LOG_DEBUG);
  ebb_log_debug ("now shown");
  fclose (f);
  ebb_log_set_stream (NULL);
  ebb_log_set_ident (NULL);
  CU_ASSERT_STRING_EQUAL (buf, "ebb-agent: now shown\n");
}

static void
test_long_message_truncated_with_newline (void)
{
  FILE *f = capture ();
  ebb_log_set_prefix_mode (EBB_LOG_PREFIX_NEVER);
  char big[5000];
  memset (big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ebb_log_warn ("%s", big);
  fclose (f);
  ebb_log_set_stream (NULL);
  CU_ASSERT (buf_len > 1000 && buf_len < 2048);
  CU_ASSERT_EQUAL (buf[buf_len - 1], '\n');
}

static void
test_level_names (void)
{
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("debug"), LOG_DEBUG);
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("WARNING"), LOG_WARNING);
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("warn"), LOG_WARNING);
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("3"), LOG_ERR);
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("8"), -1);
  CU_ASSERT_EQUAL (ebb_log_level_from_string ("loud"), -1);
  CU_ASSERT_EQUAL (ebb_log_level_from_string (NULL), -1);
  ebb_log_set_level (99);
  CU_ASSERT_EQUAL (ebb_log_get_level (), LOG_DEBUG);
}

static int
cleanup (void)
{
  free (buf);
  return 0;
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_prefix_and_threshold),
  EBB_CU_TEST (test_no_prefix_and_ident),
  EBB_CU_TEST (test_long_message_truncated_with_newline),
  EBB_CU_TEST (test_level_names),
};
EBB_CU_MAIN ("log", NULL, cleanup, tests)
