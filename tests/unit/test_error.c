/* test_error.c - error codes, names, exit statuses, the last message. */
#include <errno.h>
#include <string.h>

#include "wstest.h"
#include "ws/error.h"

START_TEST(names_and_exit_statuses)
{
	static const struct {
		int code;
		const char *name;
		int exit_status;
	} t[] = {
		{WS_EINVALID_ARGUMENT, "INVALID_ARGUMENT", 2},
		{WS_EINVALID_PATH, "INVALID_PATH", 2},
		{WS_EINVALID_PATTERN, "INVALID_PATTERN", 2},
		{WS_EPOLICY_ERROR, "POLICY_ERROR", 2},
		{WS_EWORKSPACE_NOT_FOUND, "WORKSPACE_NOT_FOUND", 2},
		{WS_EPATH_OUTSIDE_WORKSPACE, "PATH_OUTSIDE_WORKSPACE", 3},
		{WS_ESYMLINK_OUTSIDE_WORKSPACE, "SYMLINK_OUTSIDE_WORKSPACE", 3},
		{WS_EREAD_ONLY, "READ_ONLY", 3},
		{WS_EPOLICY_DENIED, "POLICY_DENIED", 3},
		{WS_EBLOCKED_COMMAND, "BLOCKED_COMMAND", 3},
		{WS_EAPPROVAL_REQUIRED, "APPROVAL_REQUIRED", 4},
		{WS_ENOT_FOUND, "NOT_FOUND", 5},
		{WS_ENOT_A_DIRECTORY, "NOT_A_DIRECTORY", 5},
		{WS_EIS_A_DIRECTORY, "IS_A_DIRECTORY", 5},
		{WS_EDIRECTORY_NOT_EMPTY, "DIRECTORY_NOT_EMPTY", 5},
		{WS_ENOT_A_REGULAR_FILE, "NOT_A_REGULAR_FILE", 5},
		{WS_ESYMLINK_LOOP, "SYMLINK_LOOP", 5},
		{WS_EFILE_TOO_LARGE, "FILE_TOO_LARGE", 5},
		{WS_EALREADY_EXISTS, "ALREADY_EXISTS", 5},
		{WS_EEDIT_NO_MATCH, "EDIT_NO_MATCH", 5},
		{WS_EEDIT_AMBIGUOUS, "EDIT_AMBIGUOUS", 5},
		{WS_EPERMISSION_DENIED, "PERMISSION_DENIED", 5},
		{WS_EIO_ERROR, "IO_ERROR", 5},
		{WS_ELIMIT_EXCEEDED, "LIMIT_EXCEEDED", 6},
		{WS_ESANDBOX_UNAVAILABLE, "SANDBOX_UNAVAILABLE", 6},
		{WS_EVERSION_MISMATCH, "VERSION_MISMATCH", 5},
		{WS_ENOMEM, "IO_ERROR", 5},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_str_eq(ws_error_name(t[i].code), t[i].name);
		ck_assert_int_eq(ws_error_exit_status(t[i].code), t[i].exit_status);
	}
	ck_assert_int_eq(ws_error_exit_status(0), 0);
	/* An unknown code never maps to success. */
	ck_assert_int_eq(ws_error_exit_status(-999), 5);
}
END_TEST

START_TEST(last_message)
{
	int rc = ws_error_set(WS_ENOT_FOUND, "a/b", "no such %s", "file");

	ck_assert_int_eq(rc, WS_ENOT_FOUND);
	ck_assert_int_eq(ws_error_last_code(), WS_ENOT_FOUND);
	ck_assert_str_eq(ws_error_last(), "no such file");
	ck_assert_str_eq(ws_error_last_path(), "a/b");
	ws_error_clear();
	ck_assert_int_eq(ws_error_last_code(), 0);
	ck_assert_ptr_null(ws_error_last_path());
	ck_assert_int_eq(ws_error_errno(ELOOP, NULL, "open"), WS_ESYMLINK_LOOP);
	ck_assert_int_eq(ws_error_from_errno(ENOTEMPTY), WS_EDIRECTORY_NOT_EMPTY);
	ck_assert_int_eq(ws_error_from_errno(EROFS), WS_EREAD_ONLY);
	ck_assert_int_eq(ws_error_from_errno(EIO), WS_EIO_ERROR);
}
END_TEST

START_TEST(hint_and_policy)
{
	ck_assert_int_eq(ws_error_set(WS_EPOLICY_DENIED, "a", "denied"),
			 WS_EPOLICY_DENIED);
	ck_assert_ptr_null(ws_error_last_hint());
	ck_assert_int_eq(ws_error_set_hint("try %s", "b"), WS_EPOLICY_DENIED);
	ck_assert_int_eq(ws_error_set_policy("p", NULL, "write"), WS_EPOLICY_DENIED);
	ck_assert_str_eq(ws_error_last_hint(), "try b");
	ck_assert_str_eq(ws_error_last_policy(), "p");
	ck_assert_ptr_null(ws_error_last_rule());
	ck_assert_str_eq(ws_error_last_operation(), "write");
	/* Renaming the path keeps the rest, even from the path itself. */
	ws_error_set_path(ws_error_last_path());
	ck_assert_str_eq(ws_error_last_path(), "a");
	ws_error_set_path("/x");
	ck_assert_str_eq(ws_error_last_path(), "/x");
	ck_assert_str_eq(ws_error_last_hint(), "try b");
	ck_assert_str_eq(ws_error_last(), "denied");
	/* A new error forgets them; so does clearing. */
	ws_error_set(WS_ENOT_FOUND, NULL, "gone");
	ck_assert_ptr_null(ws_error_last_hint());
	ck_assert_ptr_null(ws_error_last_policy());
	ck_assert_ptr_null(ws_error_last_operation());
	ws_error_set_hint("h");
	ws_error_clear();
	ck_assert_ptr_null(ws_error_last_hint());
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_and_exit_statuses);
	tcase_add_test(tc, last_message);
	tcase_add_test(tc, hint_and_policy);
	suite_add_tcase(s, tc);
	return s;
}

WST_MAIN(suite)
