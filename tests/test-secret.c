/* lib/secret.c: the one reader of tokens and TLS keys. Files in a fresh temp dir. */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>

#include "lib/secret.h"
#include "lib/util.h"
#include "tests/cu.h"

static char dir[] = "/tmp/ebb-test-secret-XXXXXX";

/* Writes text to dir/name with mode; returns the path (static buffer, one at a time). */
static const char *
put (const char *name, const char *text, mode_t mode)
{
  static char path[256];
  snprintf (path, sizeof path, "%s/%s", dir, name);
  unlink (path);
  FILE *f = fopen (path, "we");
  CU_ASSERT_FATAL (f != NULL);
  fputs (text, f);
  fclose (f);
  CU_ASSERT_FATAL (chmod (path, mode) == 0);
  return path;
}

/* Reads a token expecting code (0: accepted); on refusal the message must name the file. */
static void
expect_token (const char *path, int code, const char *want)
{
  ebb_error *err = NULL;
  char *tok = NULL;
  int r = ebb_secret_read_token (path, &tok, &err);
  CU_ASSERT_EQUAL (r, -code);
  if (code == 0)
    {
      CU_ASSERT_PTR_NULL (err);
      CU_ASSERT_STRING_EQUAL (tok ? tok : "(null)", want);
    }
  else
    {
      CU_ASSERT_PTR_NULL (tok);
      CU_ASSERT_EQUAL (ebb_error_code (&err), code);
      CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), path));
    }
  free (tok);
  ebb_error_free (&err);
}

static void
test_token_accepted (void)
{
  expect_token (put ("t", "0123456789abcdef\n", 0600), 0, "0123456789abcdef");
  expect_token (put ("t", "0123456789abcdefXY \t\r\nsecond line\n", 0400), 0, "0123456789abcdefXY");
  expect_token (put ("t", "0123456789abcdef", 0600), 0, "0123456789abcdef");
}

/* The rules the agent had and the controller and ebbctl did not: mode and length. */
static void
test_token_mode_refused (void)
{
  static const mode_t modes[] = { 0644, 0640, 0604, 0620, 0602, 0660, 0606 };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (modes); i++)
    expect_token (put ("t", "0123456789abcdef\n", modes[i]), EACCES, NULL);
}

static void
test_token_length_refused (void)
{
  expect_token (put ("t", "x\n", 0600), EBB_ERANGE, NULL);
  expect_token (put ("t", "0123456789abcde\n", 0600), EBB_ERANGE, NULL);
  char big[EBB_SECRET_TOKEN_MAX_BYTES + 8];
  memset (big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  expect_token (put ("t", big, 0600), EBB_ERANGE, NULL);
  big[EBB_SECRET_TOKEN_MAX_BYTES] = '\0';
  char *want = ebb_xstrdup (big);
  expect_token (put ("t", big, 0600), 0, want);
  free (want);
}

static void
test_token_content_refused (void)
{
  expect_token (put ("t", "", 0600), EBB_EPARSE, NULL);
  expect_token (put ("t", "\n0123456789abcdef\n", 0600), EBB_EPARSE, NULL);
  expect_token (put ("t", "0123456789 abcdef\n", 0600), EBB_EPARSE, NULL);
  expect_token (put ("t", "0123456789\001abcdef\n", 0600), EBB_EPARSE, NULL);
  expect_token (put ("t", "0123456789abcdef\xc3\xa9\n", 0600), EBB_EPARSE, NULL);
}

static void
test_token_file_kind_refused (void)
{
  char path[256], link[256];
  snprintf (path, sizeof path, "%s/missing", dir);
  expect_token (path, ENOENT, NULL);
  snprintf (path, sizeof path, "%s/sub", dir);
  CU_ASSERT_FATAL (mkdir (path, 0700) == 0);
  expect_token (path, EINVAL, NULL);
  rmdir (path);
  snprintf (path, sizeof path, "%s/fifo", dir);
  CU_ASSERT_FATAL (mkfifo (path, 0600) == 0);
  expect_token (path, EINVAL, NULL); /* opened without blocking, then refused */
  unlink (path);
  snprintf (path, sizeof path, "%s", put ("t", "0123456789abcdef\n", 0600));
  snprintf (link, sizeof link, "%s/link", dir);
  CU_ASSERT_FATAL (symlink (path, link) == 0);
  expect_token (link, ELOOP, NULL);
  unlink (link);
}

static void
test_key_file (void)
{
  static const char pem[] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  char *text = NULL;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_secret_read_file (put ("k", pem, 0600), "TLS key", &text, &err), 0);
  CU_ASSERT_STRING_EQUAL (text ? text : "", pem);
  free (text);
  const char *p = put ("k", pem, 0644);
  CU_ASSERT_EQUAL (ebb_secret_read_file (p, "TLS key", &text, &err), -EACCES);
  CU_ASSERT_PTR_NULL (text);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), p));
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "TLS key"));
  ebb_error_free (&err);
  p = put ("k", "", 0600);
  CU_ASSERT_EQUAL (ebb_secret_read_file (p, "TLS key", &text, &err), -EBB_EPARSE);
  ebb_error_free (&err);
  p = put ("k", pem, 0640);
  CU_ASSERT_EQUAL (ebb_secret_read_file (p, "TLS key", &text, &err), -EACCES);
  ebb_error_free (&err);
  unlink (p);
}

static int
init (void)
{
  return mkdtemp (dir) ? 0 : -1;
}

static int
clean (void)
{
  char path[256];
  snprintf (path, sizeof path, "%s/t", dir);
  unlink (path);
  return rmdir (dir);
}

int
main (void)
{
  static const ebb_cu_test tests[] = {
    EBB_CU_TEST (test_token_accepted),          EBB_CU_TEST (test_token_mode_refused),
    EBB_CU_TEST (test_token_length_refused),    EBB_CU_TEST (test_token_content_refused),
    EBB_CU_TEST (test_token_file_kind_refused), EBB_CU_TEST (test_key_file),
  };
  return ebb_cu_run ("secret", init, clean, tests, EBB_ARRAY_SIZE (tests));
}
