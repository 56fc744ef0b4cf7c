#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/run-command.h"

/* Issue 11 with a real run, no engine: a child of this test serves HTTP on
 * 127.0.0.1 and proc.pause stops it for 2.5 s while an observability probe
 * polls it every 500 ms (400 ms timeout). The probe's latencies are the
 * issue's series (a few ms, then ~400 ms while paused, then a few ms): a
 * latency criterion on the last sample alone still passes, but says what it
 * did not look at; max, p95 of 'during' and all of 'during' fail; baseline
 * and after hold. The samples keep the 500 ms schedule while the probe takes
 * 400 ms (they were 900 ms apart), and a 900 ms probe skips slots instead. */

#define CADENCE_MS 500

static char db[64], drill[64];
static pid_t server = -1;
static int port;

/* The target: a server answering every connection with 200; stopped by the fault. */
static int setup(void **state) {
        server = http_server_start("mayhem-itjudge", &port);
        return server > 0 ? 0 : -1;
}

static int teardown(void **state) {
        if (server > 0) {
                kill(server, SIGKILL);
                waitpid(server, NULL, 0);
        }
        unlink(drill);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char path[80];
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
        return 0;
}

static void write_drill(int timeout_ms, const char *criteria) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: judged\ntargets:\n  web:\n    runtime: process\n"
                "    process: {pid: %d}\n    faults: [{fault: proc.pause, duration: 2500ms}]\n"
                "execution:\n  - wait: 1500ms\n  - sequential: [web]\n  - wait: 2s\n"
                "success:\n  criteria:\n%s"
                "observability:\n  sources:\n    - kind: probe\n      source_id: poll\n"
                "      probe: {type: http, url: \"http://127.0.0.1:%d/\", timeout: %dms}\n"
                "      cadence: %dms\n",
                (int)server, criteria, port, timeout_ms, CADENCE_MS);
        fclose(f);
}

static struct cmd_result mayhem(void) {
        unlink(db);
        return run_command(
                NULL,
                (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute", NULL });
}

/* The summary line of criterion n (0-based), which must say want. */
static void assert_criterion(const struct cmd_result *r, int n, const char *want) {
        const char *line = r->out;
        for (int i = 0; line && i <= n; i++)
                if ((line = strstr(line, "\n- [")))
                        line++;
        if (!line)
                fail_msg("no criterion %d\n%s", n, r->out);
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        if (!memmem(line, (size_t)len, want, strlen(want)))
                fail_msg("criterion %d does not say \"%s\"\n%s%s", n, want, r->out, r->err);
}

/* The number criterion n says right after label, which must be there. */
static double criterion_number(const struct cmd_result *r, int n, const char *label) {
        assert_criterion(r, n, label);
        const char *line = r->out;
        for (int i = 0; i <= n; i++)
                line = strstr(line, "\n- [") + 1;
        return strtod(strstr(line, label) + strlen(label), NULL);
}

static void print_criteria(const struct cmd_result *r) {
        for (const char *line = strstr(r->out, "\n- ["); line; line = strstr(line + 1, "\n- [")) {
                const char *end = strchr(line + 1, '\n');
                print_message("%.*s\n", end ? (int)(end - line - 1) : (int)strlen(line + 1), line + 1);
        }
}

/* The run: only the last sample judged, PASS, exit 0 — but the
 * detail shows the 400 ms samples it ignored, and validation warned. */
static void test_last_sample_says_what_it_ignored(void **state) {
        write_drill(400, "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300}\n");
        struct cmd_result r = mayhem();
        if (r.exit != 0 || !strstr(r.err, "judges only the last sample of source 'poll'"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        print_criteria(&r);
        assert_criterion(&r, 0, "[PASS]");
        assert_criterion(&r, 0, "(last of ");
        /* the paused samples: 400 ms timeouts, which take a little longer */
        if (criterion_number(&r, 0, "; max ") < 300)
                fail_msg("the ignored samples are not over the bound\n%s", r.out);
        cmd_result_done(&r);
}

static void test_over_and_window_judge_the_series(void **state) {
        write_drill(
                400,
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300, over: max}\n"
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300, over: p95, window: during}\n"
                "    - {type: boolean, source_id: poll, over: all, window: during}\n"
                "    - {type: boolean, source_id: poll, over: any, window: during}\n"
                /* 390: a healthy sample has the margin a loaded machine and the sanitizer
                 * need; a paused one (a 400 ms timeout) still fails it, had the window
                 * let one in */
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 390, over: all, window: "
                "baseline}\n"
                "    - {type: boolean, source_id: poll, over: all, window: after}\n"
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300, over: last}\n");
        struct cmd_result r = mayhem();
        if (r.exit != 1 || strstr(r.err, "judges only the last sample"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        print_criteria(&r);
        assert_criterion(&r, 0, "[FAIL] latency:poll.latency_ms FAIL");
        if (criterion_number(&r, 0, "(latency=") < 300)
                fail_msg("the max is not over the bound\n%s", r.out);
        assert_criterion(&r, 0, "(max of ");
        assert_criterion(&r, 1, "[FAIL]");
        assert_criterion(&r, 1, " in 'during')");
        assert_criterion(&r, 2, "[FAIL]");
        assert_criterion(&r, 3, "[FAIL]");
        assert_criterion(&r, 3, ": 0 hold");
        assert_criterion(&r, 4, "[PASS]");
        assert_criterion(&r, 4, " in 'baseline'");
        assert_criterion(&r, 5, "[PASS]");
        assert_criterion(&r, 6, "[PASS]");
        cmd_result_done(&r);
}

/* When each probe of poll began (ms since the first), from the evidence:
 * its pass/fail row is written as it ends (the latency row just after),
 * and it began its latency earlier. */
static size_t sample_starts(double *ret, size_t max) {
        sqlite3 *h = NULL;
        sqlite3_stmt *st = NULL;
        size_t n = 0;
        assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        assert_int_equal(
                sqlite3_prepare_v2(
                        h,
                        "SELECT (julianday(b.timestamp) - 2440587.5) * 86400000.0 - "
                        "json_extract(l.data_json, '$.value') FROM observations b "
                        "JOIN observations l ON l.id = b.id + 1 "
                        "WHERE b.source = 'poll' AND l.source = 'poll.latency_ms' ORDER BY b.id",
                        -1, &st, NULL),
                SQLITE_OK);
        while (n < max && sqlite3_step(st) == SQLITE_ROW)
                ret[n++] = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(h);
        for (size_t i = n; i-- > 0;)
                ret[i] -= ret[0];
        return n;
}

/* Every sample began on the grid of slots laid from the first: its offset
 * from at[0] is a whole number of periods, give or take SLOT_SLACK_MS (the
 * timestamps round to whole ms, the evidence write after a probe, and a
 * loaded machine, under the sanitizer too, wakes the observer late), each in
 * a later slot than the one before. One sample may miss by more (a single
 * stall of the machine); a schedule that drifts moves every sample after the
 * pause by the 400 ms the paused probes took, and fails. */
#define SLOT_SLACK_MS 60

static void assert_schedule(double period) {
        double at[64];
        size_t n = sample_starts(at, 64), outliers = 0;
        long last_slot = 0;
        assert_true(n >= 6);
        for (size_t i = 1; i < n; i++) {
                long slot = (long)((at[i] + period / 2) / period); /* the nearest: at[i] > 0 */
                double off = at[i] - period * (double)slot;
                print_message(
                        "sample %zu began %+.0f ms after the first: slot %ld %+.0f ms\n", i, at[i], slot,
                        off);
                if (slot <= last_slot)
                        fail_msg(
                                "sample %zu began %.1f ms after the first, in slot %ld: not after the slot "
                                "of the one before (%ld)",
                                i, at[i], slot, last_slot);
                last_slot = slot;
                outliers += off > SLOT_SLACK_MS || off < -SLOT_SLACK_MS;
        }
        if (outliers > 1)
                fail_msg(
                        "%zu samples began more than %d ms off the %.0f ms grid (one may)", outliers,
                        SLOT_SLACK_MS, period);
}

/* The run's "N samples, L late, S skipped". */
static void sample_counts(const struct cmd_result *r, unsigned *samples, unsigned *late, unsigned *skipped) {
        const char *line = strstr(r->out, "**observations**");
        if (r->exit != 0 || !line ||
            sscanf(line, "**observations**: 1/1 sources collected, %u samples, %u late, %u skipped", samples,
                   late, skipped) != 3)
                fail_msg("exit %d\n%s%s", r->exit, r->out, r->err);
        print_message("%u samples, %u late, %u skipped\n", *samples, *late, *skipped);
}

/* The probe takes 400 ms of its 500 ms while the server is paused: the
 * samples stay 500 ms apart. None is skipped or late on a quiet machine;
 * one may be on a loaded one (late: begun more than 50 ms after its slot,
 * src/run/cadence.c), never the run of them a drifting schedule makes. */
static void test_cadence_keeps_its_schedule(void **state) {
        unsigned samples = 0, late = 9, skipped = 9;
        write_drill(400, "    - {type: boolean, source_id: poll, over: all, window: baseline}\n");
        struct cmd_result r = mayhem();
        sample_counts(&r, &samples, &late, &skipped);
        if (late + skipped > 1)
                fail_msg("%u late and %u skipped of %u samples\n%s", late, skipped, samples, r.out);
        cmd_result_done(&r);
        assert_schedule(CADENCE_MS);
}

/* A 900 ms probe on a 500 ms cadence: the slots that come due while it runs
 * are skipped, and counted; the samples stay on the grid (one may begin
 * late on a loaded machine, as above). */
static void test_overrun_skips_slots(void **state) {
        unsigned samples = 0, late = 9, skipped = 0;
        write_drill(900, "    - {type: boolean, source_id: poll, over: all, window: baseline}\n");
        struct cmd_result r = mayhem();
        sample_counts(&r, &samples, &late, &skipped);
        assert_true(late <= 1);
        assert_true(skipped >= 2); /* 2.5 s paused: 900 ms probes at 1000 ms, a slot skipped by each */
        cmd_result_done(&r);
        assert_schedule(CADENCE_MS);
}

int main(void) {
        if (geteuid() != 0)
                return 77; /* host targets need the agent's host role */
        snprintf(db, sizeof(db), "/tmp/mayhem-itjudged-%d.db", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/mayhem-itjudged-%d.yaml", (int)getpid());
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_last_sample_says_what_it_ignored),
                cmocka_unit_test(test_over_and_window_judge_the_series),
                cmocka_unit_test(test_cadence_keeps_its_schedule),
                cmocka_unit_test(test_overrun_skips_slots),
        };
        if (getenv("MH_TEST_FILTER"))
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        return cmocka_run_group_tests(tests, setup, teardown);
}
