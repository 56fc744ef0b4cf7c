/* src/sys/mountinfo.c: /proc/PID/mountinfo lines as the kernel writes them
 * (show_mountinfo()), and the lines it never writes, which are skipped. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "sys/mountinfo.h"

static const char table[] =
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "27 1 254:0 / / ro,relatime shared:1 - ext4 /dev/vda rw\n"
        "75 27 0:60 / /tmp/with\\040space\\134x rw,nosuid master:3 - tmpfs mayhem-test rw,size=1024k\n"
        "80 27 0:61 /sub /data rw shared:12 master:4 - tmpfs t rw\n";

static void test_fields(void **state) {
        struct mountinfo_entry e;
        assert_int_equal(mountinfo_find(table, strlen(table), 27, &e), 1);
        assert_int_equal(e.parent, 1);
        assert_string_equal(e.point, "/");
        assert_true(e.read_only);
        assert_true(e.shared);
        assert_int_equal(mountinfo_find(table, strlen(table), 22, &e), 1);
        assert_false(e.read_only);
        assert_false(e.shared);
        assert_int_equal(mountinfo_find(table, strlen(table), 75, &e), 1);
        assert_string_equal(e.point, "/tmp/with space\\x"); /* octal escapes undone */
        assert_false(e.shared);                             /* master: a slave, not shared */
        assert_int_equal(mountinfo_find(table, strlen(table), 80, &e), 1);
        assert_true(e.shared);
        assert_string_equal(e.point, "/data");
        assert_int_equal(mountinfo_find(table, strlen(table), 99, &e), 0);
        /* Without the trailing newline, and cut in the middle of a line. */
        assert_int_equal(mountinfo_find(table, strlen(table) - 1, 80, &e), 1);
        assert_int_equal(mountinfo_find(table, 30, 27, &e), 0);
}

static void test_malformed_lines_are_no_mounts(void **state) {
        static const char *const bad[] = {
                "",
                "27 1 254:0 / / ro",                           /* no separator */
                "27 1 254:0 / / ro shared:1",                  /* no separator */
                "x 1 254:0 / / ro - ext4 /dev/vda rw",         /* id */
                "27 -1 254:0 / / ro - ext4 /dev/vda rw",       /* parent */
                "27 1 254:0 / relative ro - ext4 a rw",        /* mount point not absolute */
                "27 1 254:0 / /a\\04 ro - ext4 a rw",          /* escape cut short */
                "27 1 254:0 / /a\\000 ro - ext4 a rw",         /* NUL escape */
                "27 1 254:0 / /a\\9xx ro - ext4 a rw",         /* not octal */
                "27 1 254:0 / /a nosuid - ext4 a rw",          /* neither rw nor ro */
                "99999999999999999999 1 0:1 / /a rw - t t rw", /* id overflow */
        };
        struct mountinfo_entry e;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (mountinfo_parse_line(bad[i], strlen(bad[i]), &e) != -EINVAL)
                        fail_msg("taken for a mount: \"%s\"", bad[i]);
                assert_int_equal(mountinfo_find(bad[i], strlen(bad[i]), 27, &e), 0);
        }
}

static void test_long_mount_point(void **state) {
        static char line[PATH_MAX + 64];
        struct mountinfo_entry e;
        size_t n = (size_t)snprintf(line, sizeof(line), "5 1 0:1 / /");
        memset(line + n, 'a', PATH_MAX - 2); /* "/" + PATH_MAX - 2: fits with its NUL */
        n += PATH_MAX - 2;
        n += (size_t)snprintf(line + n, sizeof(line) - n, " rw - t t rw");
        assert_int_equal(mountinfo_parse_line(line, n, &e), 0);
        assert_int_equal(strlen(e.point), PATH_MAX - 1);
        n = (size_t)snprintf(line, sizeof(line), "5 1 0:1 / /");
        memset(line + n, 'a', PATH_MAX - 1);
        n += PATH_MAX - 1;
        n += (size_t)snprintf(line + n, sizeof(line) - n, " rw - t t rw");
        assert_int_equal(mountinfo_parse_line(line, n, &e), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fields),
                cmocka_unit_test(test_malformed_lines_are_no_mounts),
                cmocka_unit_test(test_long_mount_point),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
