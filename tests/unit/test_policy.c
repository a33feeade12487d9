/* test_policy.c - placeholder suite; the module's tests land with it. */
#include "wstest.h"

START_TEST(placeholder)
{
	ck_assert_int_eq(1 + 1, 2);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, placeholder);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
