#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/run-command.h"
#include "evidence/evidence.h"
#include "evidence/run-record.h"
#include "report/report-html.h"

/* The HTML report read by the consumer the issue names: a real run (no
 * engine: proc.pause on two host processes of this test, one an HTTP server
 * an observability probe polls every 250 ms), its record read back from the
 * evidence, the page written by report_html_write() and opened in headless
 * Chromium: a screenshot taken, and the DOM Chromium built (--dump-dom)
 * holds one shaded window per fault and one point per sample of the record. */

#define CHROMIUM_TIMEOUT "90" /* seconds; a cold start on a loaded CI machine takes a few */

static char db[64], drill[64], page[64], shot[64], profile[64];
static pid_t server = -1, idle = -1;
static int port;

/* A second target that only waits (a fault on it touches no sample). */
static pid_t idle_child(void) {
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                        pause();
        }
        return pid;
}

static int setup(void **state) {
        server = http_server_start(NULL, &port);
        idle = idle_child();
        return server > 0 && idle > 0 ? 0 : -1;
}

static int teardown(void **state) {
        pid_t pids[] = { server, idle };
        for (size_t i = 0; i < 2; i++)
                if (pids[i] > 0) {
                        kill(pids[i], SIGKILL);
                        waitpid(pids[i], NULL, 0);
                }
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char path[80];
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
        unlink(drill);
        unlink(page);
        struct cmd_result rm = run_command(NULL, (const char *const[]){ "rm", "-rf", profile, NULL });
        cmd_result_done(&rm);
        return 0;
}

/* A hostile drill name: the page must show it as text. */
static void write_drill(void) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: \"checkout <script>alert(1)</script> & 'q'\"\n"
                "hypothesis: the API answers while its process is paused for 2.5 s\n"
                "targets:\n  web:\n    runtime: process\n    process: {pid: %d}\n"
                "    faults: [{fault: proc.pause, duration: 2500ms}]\n"
                "  worker:\n    runtime: process\n    process: {pid: %d}\n"
                "    faults: [{fault: proc.pause, duration: 1s}]\n"
                "execution:\n  - wait: 1s\n  - sequential: [web]\n  - wait: 1s\n  - sequential: [worker]\n"
                "  - wait: 1s\n"
                "success:\n  criteria:\n"
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300, over: max}\n"
                "    - {type: boolean, source_id: poll, over: all, window: baseline}\n"
                "observability:\n  sources:\n    - kind: probe\n      source_id: poll\n"
                "      probe: {type: http, url: \"http://127.0.0.1:%d/\", timeout: 400ms}\n"
                "      cadence: 250ms\n",
                (int)server, (int)idle, port);
        fclose(f);
}

/* The id of the run the mayhem output names ("run r-... started"). */
static void run_id_of(const char *err, char *ret, size_t size) {
        const char *p = strstr(err, " run r-");
        if (!p || sscanf(p + 5, "%63s", ret) != 1 || size < 64)
                fail_msg("no run id in\n%s", err);
}

static json_t *record_of(const char *run_id) {
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        json_t *rec = NULL;
        if (evidence_open_read(db, &ev, &e) < 0 || evidence_run_record_json(ev, run_id, &rec, &e) < 0)
                fail_msg("%s", e.msg);
        evidence_close(ev);
        return rec;
}

static void page_write(const json_t *rec) {
        FILE *f = fopen(page, "we");
        struct mh_error e = { 0 };
        assert_non_null(f);
        if (report_html_write(f, rec, &e) < 0)
                fail_msg("%s", e.msg);
        assert_int_equal(fclose(f), 0);
}

static struct cmd_result chromium(const char *what) {
        char url[96], dir[96];
        snprintf(url, sizeof(url), "file://%s", page);
        snprintf(dir, sizeof(dir), "--user-data-dir=%s", profile);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "timeout", "-k", "5", CHROMIUM_TIMEOUT, "chromium",
                                             "--headless", "--disable-gpu", "--no-sandbox", dir,
                                             "--window-size=1400,1000", what, url, NULL });
        if (r.exit != 0)
                fail_msg("chromium %s: exit %d\n%s", what, r.exit, r.err);
        return r;
}

static size_t count(const char *hay, const char *needle) {
        size_t n = 0;
        for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

/* The samples the record holds with a finite value, of source (NULL: all). */
static size_t record_samples(const json_t *rec, const char *source) {
        size_t i, n = 0;
        const json_t *o;
        json_array_foreach(json_object_get(rec, "observations"), i, o) {
                const json_t *v = json_object_get(json_object_get(o, "data"), "value");
                if (json_is_number(v) && isfinite(json_number_value(v)) &&
                    (!source || strcmp(json_string_value(json_object_get(o, "source")), source) == 0))
                        n++;
        }
        return n;
}

static void assert_window(const char *dom, const json_t *lease) {
        char want[128];
        snprintf(
                want, sizeof(want), "class=\"fault-window\" data-fault=\"%s\"",
                json_string_value(json_object_get(lease, "id")));
        if (count(dom, want) != 1)
                fail_msg("the DOM has %zu of %s", count(dom, want), want);
}

static void test_chromium_shows_every_fault_and_sample(void **state) {
        char run_id[64];
        write_drill();
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute", NULL });
        if (r.exit != 1) /* the paused server fails the latency criterion */
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        run_id_of(r.err, run_id, sizeof(run_id));
        cmd_result_done(&r);

        json_t *rec = record_of(run_id);
        const json_t *leases = json_object_get(rec, "leases");
        assert_int_equal(json_array_size(leases), 2);
        page_write(rec);

        char arg[96];
        snprintf(arg, sizeof(arg), "--screenshot=%s", shot);
        unlink(shot);
        struct cmd_result s = chromium(arg);
        struct stat st;
        assert_int_equal(stat(shot, &st), 0);
        print_message("screenshot %s: %lld bytes\n", shot, (long long)st.st_size);
        assert_true(st.st_size > 20000); /* a blank 1400x1000 PNG is a few KiB */
        cmd_result_done(&s);

        struct cmd_result d = chromium("--dump-dom");
        const char *dom = d.out;
        size_t windows = count(dom, "class=\"fault-window"), points = count(dom, "class=\"sample");
        size_t failed = count(dom, "class=\"sample failed\"");
        print_message(
                "DOM: %zu fault windows for %zu leases, %zu points (%zu failed) for %zu samples\n", windows,
                json_array_size(leases), points, failed, record_samples(rec, NULL));
        assert_int_equal(windows, json_array_size(leases));
        for (size_t i = 0; i < json_array_size(leases); i++)
                assert_window(dom, json_array_get(leases, i));
        assert_int_equal(points, record_samples(rec, NULL));
        assert_int_equal(
                count(dom, "data-source=\"poll.latency_ms\""), record_samples(rec, "poll.latency_ms"));
        assert_int_equal(count(dom, "data-source=\"poll\""), record_samples(rec, "poll"));
        assert_true(
                failed >=
                4); /* 2.5 s paused, 400 ms timeouts on a 250 ms cadence: each probe and its latency */
        assert_null(strstr(dom, "<script>alert"));
        assert_non_null(strstr(dom, "checkout &lt;script&gt;alert(1)&lt;/script&gt; &amp; 'q'"));
        cmd_result_done(&d);
        json_decref(rec);
}

int main(void) {
        if (geteuid() != 0)
                return 77; /* host targets need the agent's host role */
        struct cmd_result v = run_command(NULL, (const char *const[]){ "chromium", "--version", NULL });
        bool have = v.exit == 0;
        cmd_result_done(&v);
        if (!have)
                return 77; /* tools/bootstrap installs it */
        snprintf(db, sizeof(db), "/tmp/hr15-report-%d.db", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/hr15-report-%d.yaml", (int)getpid());
        snprintf(page, sizeof(page), "/tmp/hr15-report-%d.html", (int)getpid());
        snprintf(profile, sizeof(profile), "/tmp/hr15-chromium-%d", (int)getpid());
        /* kept, its path printed: docs/report-html.png is one */
        snprintf(shot, sizeof(shot), "/tmp/hr15-shot-%d.png", (int)getpid());
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_chromium_shows_every_fault_and_sample, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
