#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/doctor-measure.h"
#include "cli/doctor.h"

/* doctor's checks from a given agent report: the kernel lines are the impact
 * gate's decisions with each feature flipped, the host lines the catalog's
 * needs of what is missing. */

static const struct doctor_check *find(const struct doctor_report *r, const char *name) {
        for (size_t i = 0; i < r->n; i++)
                if (strcmp(r->checks[i].check, name) == 0)
                        return &r->checks[i];
        fail_msg("no check '%s'", name);
        return NULL;
}

static json_t *caps_with_kernel(bool netem, bool xt, bool nft_queue, bool owner) {
        return json_pack(
                "{s:{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}}", "kernel", "known", 1, "nft_owner", owner,
                "netem", netem, "tbf", 1, "ifb", 1, "xt_nfqueue", xt, "nft_queue", nft_queue,
                "netdev_egress", 1);
}

/* This machine's kernel: no netem, NFQUEUE through xt. */
static void test_netem_absent_falls_back(void **state) {
        static struct doctor_report r;
        json_t *caps = caps_with_kernel(false, true, false, true);
        r.n = 0;
        doctor_check_kernel(&r, caps, "this host");
        const struct doctor_check *c = find(&r, "kernel netem");
        assert_int_equal(c->status, DOCTOR_MISSING);
        assert_false(c->blocking);
        assert_non_null(strstr(c->detail, "net.latency egress: the NFQUEUE shaper instead of netem"));
        assert_non_null(strstr(c->detail, "net.duplicate egress: nftables rules instead of netem"));
        assert_non_null(strstr(c->disables, "nothing"));
        c = find(&r, "kernel nft_queue");
        assert_int_equal(c->status, DOCTOR_WARN); /* xt NFQUEUE serves the same faults */
        c = find(&r, "kernel xt_nfqueue");
        assert_int_equal(c->status, DOCTOR_OK);
        assert_non_null(strstr(c->detail, "needed by "));
        assert_non_null(strstr(c->detail, "net.latency egress"));
        assert_false(doctor_report_blocking(&r));
        json_decref(caps);
}

static void test_no_way_to_delay_blocks(void **state) {
        static struct doctor_report r;
        json_t *caps = caps_with_kernel(false, false, false, true);
        r.n = 0;
        doctor_check_kernel(&r, caps, "this host");
        const struct doctor_check *c = find(&r, "kernel netem");
        assert_true(c->blocking);
        assert_non_null(strstr(c->disables, "net.latency egress"));
        assert_true(doctor_report_blocking(&r));
        json_decref(caps);
}

static void test_unknown_kernel_blocks(void **state) {
        static struct doctor_report r;
        json_t *caps = json_pack("{s:{s:b}}", "kernel", "known", 0);
        r.n = 0;
        doctor_check_kernel(&r, caps, "h");
        assert_int_equal(r.n, 1);
        assert_true(r.checks[0].blocking);
        assert_non_null(strstr(r.checks[0].disables, "net.latency"));
        json_decref(caps);
}

/* A user without CAP_NET_ADMIN (bit 12) and CAP_SYS_ADMIN (21). */
static void test_privileges_from_caps(void **state) {
        static struct doctor_report r;
        json_t *caps = json_pack(
                "{s:{s:i, s:b, s:s, s:{s:b, s:[s, s, s], s:[]}, s:b, s:n}}", "host", "euid", 1000,
                "caps_known", 1, "cap_eff", "0000000000000000", "cgroup", "v2", 1, "v2_controllers", "cpu",
                "memory", "pids", "v1", "time_ns", 1, "htb");
        r.n = 0;
        doctor_check_host(&r, caps, "h");
        const struct doctor_check *c = find(&r, "privileges");
        assert_int_equal(c->status, DOCTOR_MISSING);
        assert_true(c->blocking);
        assert_non_null(strstr(c->detail, "CAP_NET_ADMIN"));
        assert_non_null(strstr(c->disables, "net.latency"));
        c = find(&r, "cgroups");
        assert_int_equal(c->status, DOCTOR_OK); /* v2 has cgroup.freeze everywhere */
        assert_non_null(strstr(c->detail, "cpu (v2)"));
        c = find(&r, "kernel htb");
        assert_int_equal(c->status, DOCTOR_WARN);
        assert_non_null(strstr(c->detail, "could not be probed"));
        json_decref(caps);
}

static void test_report_json_and_bounds(void **state) {
        static struct doctor_report r;
        r.n = 0;
        for (int i = 0; i < DOCTOR_CHECKS_MAX + 5; i++)
                doctor_add(&r, DOCTOR_OK, "c%d", i);
        assert_int_equal(r.n, DOCTOR_CHECKS_MAX);
        struct doctor_check *c = &r.checks[0];
        for (int i = 0; i < 500; i++)
                doctor_append(c->detail, ", ", "word%d", i);
        assert_true(strlen(c->detail) < DOCTOR_TEXT_MAX);
        assert_string_equal(c->detail + strlen(c->detail) - 3, "...");
        json_t *a = doctor_report_json(&r);
        assert_int_equal(json_array_size(a), DOCTOR_CHECKS_MAX);
        assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "status")), "ok");
        json_decref(a);
}

/* doctor_tcp_outcome() against a server on loopback that answers, answers
 * something else, closes,
 * resets or says nothing once it read the GET, and a port nobody holds. */
enum serve_as {
        SERVE_ANSWER,
        SERVE_GARBAGE,
        SERVE_CLOSE,
        SERVE_RESET,
        SERVE_SILENT
};

static pid_t serve_once(enum serve_as how, int *ret_port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(l >= 0 && bind(l, (struct sockaddr *)&a, len) == 0 && listen(l, 1) == 0);
        assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
        *ret_port = ntohs(a.sin_port);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid > 0) {
                close(l);
                return pid;
        }
        char buf[64];
        int c = accept(l, NULL, NULL);
        (void)!read(c, buf, sizeof(buf));
        struct linger now = { .l_onoff = 1, .l_linger = 0 };
        if (how == SERVE_ANSWER)
                (void)!write(c, "HTTP/1.0 200 OK\r\n\r\n", 19);
        else if (how == SERVE_GARBAGE)
                (void)!write(c, "SSH-2.0-x\r\n", 11);
        else if (how == SERVE_RESET)
                setsockopt(c, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
        else if (how == SERVE_SILENT)
                sleep(2);
        close(c);
        _exit(0);
}

static void test_tcp_outcome(void **state) {
        static const struct {
                enum serve_as how;
                int want;
        } cases[] = { { SERVE_ANSWER, 0 },
                      { SERVE_GARBAGE, -EPROTO },
                      { SERVE_CLOSE, -EPIPE },
                      { SERVE_RESET, -ECONNRESET },
                      { SERVE_SILENT, -ETIMEDOUT } };
        int port;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                pid_t pid = serve_once(cases[i].how, &port);
                /* A freshly forked server (slow under a sanitizer, on a loaded
                 * machine) gets 5 s to accept, read and answer; the silent one
                 * 300 ms, well below the 2 s it stays silent, so the client
                 * times out before the server closes. */
                int got = doctor_tcp_outcome("127.0.0.1", port, cases[i].how == SERVE_SILENT ? 300 : 5000);
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
                if (got != cases[i].want)
                        fail_msg("case %zu: %d, expected %d", i, got, cases[i].want);
        }
        /* the port the last server held, nobody's now */
        assert_int_equal(doctor_tcp_outcome("127.0.0.1", port, 300), -ECONNREFUSED);
        assert_int_equal(doctor_tcp_outcome("not an address", port, 300), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_netem_absent_falls_back),
                cmocka_unit_test(test_tcp_outcome),
                cmocka_unit_test(test_no_way_to_delay_blocks),
                cmocka_unit_test(test_unknown_kernel_blocks),
                cmocka_unit_test(test_privileges_from_caps),
                cmocka_unit_test(test_report_json_and_bounds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
