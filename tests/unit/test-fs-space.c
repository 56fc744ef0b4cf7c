/* What fs.fill and fs.inode_exhaust aim at (fs-space.h), and the unnamed
 * file that holds it (fs_tmpfile: no name ever appears in the directory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault/fs-space.h"
#include "fault/fs-target.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

static void test_fill_goal(void **state) {
        const char *why = NULL;
        /* 64 MiB, 10 MiB used: 45% is 28.8 MiB used. */
        struct fs_usage u = { .size = 64 * MIB, .avail = 54 * MIB, .block = 4096 };
        assert_int_equal(fs_fill_goal(&u, 45, &why), (uint64_t)(64 * MIB * 0.45));
        /* 100 GiB, 10 GiB used: 45% would add 35 GiB; the cap adds 1 GiB. */
        u = (struct fs_usage){ .size = 100 * GIB, .avail = 90 * GIB };
        assert_int_equal(fs_fill_goal(&u, 45, &why), 11 * GIB);
        /* Already above: nothing to fill, and why. */
        u = (struct fs_usage){ .size = 64 * MIB, .avail = 10 * MIB };
        assert_int_equal(fs_fill_goal(&u, 45, &why), 0);
        assert_non_null(strstr(why, "already"));
        u = (struct fs_usage){ 0 };
        assert_int_equal(fs_fill_goal(&u, 45, &why), 0);
        (void)state;
}

static void test_inode_goal(void **state) {
        const char *why = NULL;
        struct fs_usage u = { .files = 16384, .ffree = 16000 };
        assert_int_equal(fs_inode_goal(&u, 50, &why), 8000);
        u = (struct fs_usage){ .files = 10000000, .ffree = 9000000 };
        assert_int_equal(fs_inode_goal(&u, 50, &why), FS_INODES_CAP);
        /* btrfs, tmpfs nr_inodes=0: no fixed count, an honest refusal. */
        u = (struct fs_usage){ .files = 0, .ffree = 0 };
        assert_int_equal(fs_inode_goal(&u, 50, &why), 0);
        assert_non_null(strstr(why, "no fixed inode count"));
        u = (struct fs_usage){ .files = 100, .ffree = 1 };
        assert_int_equal(fs_inode_goal(&u, 50, &why), 0);
        (void)state;
}

static void test_names(void **state) {
        char buf[96];
        assert_non_null(strstr(fs_kind(0x794C7630, buf, sizeof(buf)), "host's disk"));
        assert_non_null(strstr(fs_kind(0x01021994, buf, sizeof(buf)), "memory cgroup"));
        assert_string_equal(fs_kind(0xEF53, buf, sizeof(buf)), "ext4");
        assert_string_equal(fs_kind(0x1234, buf, sizeof(buf)), "fs 0x1234");
        assert_string_equal(fs_bytes(512, buf, sizeof(buf)), "512 B");
        assert_string_equal(fs_bytes(64 * MIB, buf, sizeof(buf)), "64.0 MiB");
        assert_string_equal(fs_bytes(GIB + GIB / 2, buf, sizeof(buf)), "1.5 GiB");
        (void)state;
}

static size_t entries(const char *dir) {
        size_t n = 0;
        DIR *d = opendir(dir);
        assert_non_null(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static void test_tmpfile_has_no_name(void **state) {
        char dir[] = "/tmp/mayhem-fs-space-XXXXXX";
        assert_non_null(mkdtemp(dir));
        int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(d >= 0);
        int fd = fs_tmpfile(d);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "x", 1), 1);
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_nlink, 0);
        assert_int_equal(entries(dir), 2); /* "." and ".." */
        struct fs_usage u;
        assert_int_equal(fs_usage_of(d, &u), 0);
        assert_true(u.size > 0);
        close(fd);
        close(d);
        assert_int_equal(rmdir(dir), 0);
        (void)state;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fill_goal),
                cmocka_unit_test(test_inode_goal),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_tmpfile_has_no_name),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
