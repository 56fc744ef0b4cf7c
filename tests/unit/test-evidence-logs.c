#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "evidence/evidence.h"

/* evidence-logs.c on a real SQLite file: a logs source's lines in one
 * transaction, counted back by stream and match; a bad line (stream not
 * stdout|stderr) stores none of the batch; an unknown run is -ENOENT. */

static char path[64];

static void cleanup(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char p[80];
                snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
                unlink(p);
        }
}

static int64_t count(struct evidence *ev, const char *stream, int matched) {
        int64_t n = -1;
        struct mh_error e = { 0 };
        assert_int_equal(evidence_log_lines_count(ev, "r-logs", "applog", stream, matched, &n, &e), 0);
        return n;
}

static void test_lines_stored(void **state) {
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        snprintf(path, sizeof(path), "/tmp/lg14-evlogs-%d.db", (int)getpid());
        cleanup();
        assert_int_equal(evidence_open(path, &ev, &e), 0);
        struct evidence_run run = { .id = "r-logs", .name = "x", .kind = "drill" };
        assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        const struct evidence_log_line lines[] = {
                { 0, "2026-12-03T17:00:00.1Z", "stdout", "start", false },
                { 1, "2026-12-03T17:00:01Z", "stderr", "ERROR boom", true },
                { 2, NULL, "stdout", "no stamp; 'quotes' \"and\" \x01 control", false },
        };
        assert_int_equal(evidence_log_lines(ev, "r-logs", "applog", "lg14-app", lines, 3, &e), 0);
        assert_int_equal(count(ev, NULL, -1), 3);
        assert_int_equal(count(ev, "stderr", -1), 1);
        assert_int_equal(count(ev, NULL, 1), 1);
        assert_int_equal(count(ev, "stdout", 0), 2);

        const struct evidence_log_line bad[] = {
                { 0, NULL, "stdout", "fine", false },
                { 1, NULL, "stdin", "not a stream", false },
        };
        assert_int_equal(evidence_log_lines(ev, "r-logs", "applog", "lg14-app", bad, 2, &e), -EINVAL);
        assert_int_equal(count(ev, NULL, -1), 3); /* the batch rolled back */
        assert_int_equal(evidence_log_lines(ev, "r-none", "applog", "lg14-app", lines, 1, &e), -ENOENT);
        evidence_close(ev);
        cleanup();
}

int main(void) {
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_lines_stored) };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
