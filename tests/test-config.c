#include "config.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "tests/cu.h"

static void
test_placeholder (void)
{
  CU_ASSERT_EQUAL (ebb_strv_length (NULL), 0);
}

static const ebb_cu_test tests[] = { EBB_CU_TEST (test_placeholder) };
EBB_CU_MAIN ("config", NULL, NULL, tests)
