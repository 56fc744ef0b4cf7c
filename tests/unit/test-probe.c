/* Host probes against real processes, files, programs and a loopback socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/probe.h"

static struct probe_result run(const struct drill_probe *p) {
        struct probe_result r = { 0 };
        probe_run(p, &r);
        return r;
}

static void test_process_by_pid(void **state) {
        (void)state;
        struct drill_probe p = { .type = PROBE_PROCESS, .pid = getpid() };
        assert_true(run(&p).ok);

        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
                _exit(0);
        /* A zombie is not running. */
        siginfo_t info;
        assert_int_equal(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
        p.pid = child;
        struct probe_result r = run(&p);
        assert_false(r.ok);
        assert_non_null(strstr(r.detail, "is gone"));
        waitpid(child, NULL, 0);
        assert_false(run(&p).ok);
}

static void test_process_by_name(void **state) {
        (void)state;
        char comm[16];
        assert_int_equal(prctl(PR_GET_NAME, comm), 0);
        struct drill_probe p = { .type = PROBE_PROCESS, .process_name = comm };
        assert_true(run(&p).ok);

        pid_t twin = fork(); /* two of the same name still count as running */
        assert_true(twin >= 0);
        if (twin == 0) {
                pause();
                _exit(0);
        }
        assert_true(run(&p).ok);
        kill(twin, SIGKILL);
        waitpid(twin, NULL, 0);

        p.process_name = "no-such-proc-x";
        struct probe_result r = run(&p);
        assert_false(r.ok);
        assert_non_null(strstr(r.detail, "not found"));
}

static void test_file(void **state) {
        (void)state;
        char path[] = "/tmp/mayhem-probe-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "status: ready\n", 14), 14);
        close(fd);
        struct drill_probe p = { .type = PROBE_FILE, .path = path };
        assert_true(run(&p).ok);
        p.contains = "ready";
        assert_true(run(&p).ok);
        p.contains = "degraded";
        assert_false(run(&p).ok);
        unlink(path);
        p.contains = NULL;
        assert_false(run(&p).ok);
}

static void test_exec(void **state) {
        (void)state;
        const char *yes[] = { "true", NULL }, *no[] = { "false", NULL }, *slow[] = { "sleep", "5", NULL };
        struct drill_probe p = { .type = PROBE_EXEC, .cmd = yes, .n_cmd = 1, .timeout_ms = 5000 };
        assert_true(run(&p).ok);
        p.cmd = no;
        struct probe_result r = run(&p);
        assert_false(r.ok);
        assert_int_equal(r.exit_code, 1);
        p.expected_exit_code = 1;
        assert_true(run(&p).ok);

        p.cmd = slow;
        p.n_cmd = 2;
        p.timeout_ms = 100;
        r = run(&p);
        assert_false(r.ok);
        assert_non_null(strstr(r.detail, "timed out after 100ms"));
}

static void test_tcp(void **state) {
        (void)state;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
        assert_int_equal(listen(s, 4), 0);
        assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
        struct drill_probe p = {
                .type = PROBE_TCP, .host = "127.0.0.1", .port = ntohs(a.sin_port), .timeout_ms = 1000
        };
        assert_true(run(&p).ok);
        close(s);
        assert_false(run(&p).ok);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_process_by_pid),
                cmocka_unit_test(test_process_by_name),
                cmocka_unit_test(test_file),
                cmocka_unit_test(test_exec),
                cmocka_unit_test(test_tcp),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
