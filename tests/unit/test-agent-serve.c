#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "basic/clock.h"
#include "common/proc-stat.h"

/* The real mayhem-agent binary over its stdin/stdout, as the controller
 * talks to it: every malformed or refused request gets the right error code,
 * and nothing is touched. No engine is needed: a refused or malformed request
 * never reaches one. */

struct agent {
        pid_t pid;
        int to, from;
        char buf[1 << 16];
        size_t len;
};

static const char *state_dir; /* --state-dir for the next start(), or the agent's default */

static struct agent start(const char *roles) {
        int in[2], out[2];
        struct agent a = { 0 };
        assert_int_equal(pipe2(in, O_CLOEXEC), 0);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        a.pid = fork();
        if (a.pid == 0) {
                dup2(in[0], 0);
                dup2(out[1], 1);
                int null = open("/dev/null", O_WRONLY);
                dup2(null, 2);
                const char *bin = getenv("MAYHEM_AGENT_BIN");
                if (state_dir)
                        execl(bin, bin, "serve", "--roles", roles, "--state-dir", state_dir, (char *)NULL);
                execl(bin, bin, "serve", "--roles", roles, (char *)NULL);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        a.to = in[1];
        a.from = out[0];
        return a;
}

static void send_raw(struct agent *a, const void *data, size_t len) {
        const char *p = data;
        while (len > 0) {
                ssize_t n = write(a->to, p, len);
                assert_true(n > 0);
                p += n;
                len -= (size_t)n;
        }
}

/* The next reply line, parsed; NULL when none comes within 5 s. */
static json_t *reply(struct agent *a) {
        for (;;) {
                char *nl = memchr(a->buf, '\n', a->len);
                if (nl) {
                        json_t *j = json_loadb(a->buf, (size_t)(nl - a->buf), 0, NULL);
                        a->len -= (size_t)(nl - a->buf) + 1;
                        memmove(a->buf, nl + 1, a->len);
                        return j;
                }
                struct pollfd p = { .fd = a->from, .events = POLLIN };
                if (poll(&p, 1, 5000) <= 0)
                        return NULL;
                ssize_t n = read(a->from, a->buf + a->len, sizeof(a->buf) - a->len);
                if (n <= 0)
                        return NULL;
                a->len += (size_t)n;
        }
}

static json_t *ask(struct agent *a, const char *line) {
        send_raw(a, line, strlen(line));
        send_raw(a, "\n", 1);
        return reply(a);
}

static int stop(struct agent *a) {
        int status = 0;
        close(a->to);
        waitpid(a->pid, &status, 0);
        close(a->from);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void assert_error(json_t *r, int code, const char *message_part) {
        json_t *e = json_object_get(r, "error");
        if (!e || json_integer_value(json_object_get(e, "code")) != code ||
            !strstr(json_string_value(json_object_get(e, "message")), message_part)) {
                char *text = json_dumps(r, 0);
                fail_msg("expected error %d '%s', got %s", code, message_part, text ? text : "(none)");
        }
        json_decref(r);
}

#define CTX "\"run_id\":\"r-t\",\"agent_id\":\"ctl\""

static void test_handshake_and_ping(void **state) {
        struct agent a = start("proc,container");
        json_t *r = ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"handshake\",\"params\":{" CTX "}}");
        json_t *res = json_object_get(r, "result");
        assert_int_equal(json_integer_value(json_object_get(r, "id")), 1);
        assert_string_equal(json_string_value(json_object_get(res, "protocol")), "mayhem/1");
        assert_int_equal(json_array_size(json_object_get(res, "roles")), 2);
        json_decref(r);
        r = ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"health.ping\",\"params\":{" CTX "}}");
        assert_true(json_is_true(json_object_get(json_object_get(r, "result"), "pong")));
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(r, "result"), "owned_leases")), 0);
        json_decref(r);
        r = ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"capabilities.query\",\"params\":{" CTX "}}");
        char *faults = json_dumps(json_object_get(json_object_get(r, "result"), "faults"), JSON_COMPACT);
        assert_non_null(strstr(faults, "\"container.pause\""));
        assert_non_null(strstr(faults, "\"proc.pause\""));
        assert_null(strstr(faults, "cpu."));
        free(faults);
        json_decref(r);
        assert_int_equal(stop(&a), 0);
}

static void test_malformed_requests(void **state) {
        struct agent a = start("proc");
        assert_error(ask(&a, "{not json"), -32700, "bad json");
        assert_error(ask(&a, "[1,2]"), -32600, "");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"method\":\"health.ping\",\"params\":{" CTX "}}"), -32600,
                "missing id");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\",\"params\":{" CTX "}}"), -32601,
                "no such method: nope");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"health.ping\",\"params\":{}}"), -32602,
                "correlation context");
        send_raw(&a, "\xff\xfe\n", 3);
        assert_error(reply(&a), -32700, "UTF-8");
        /* A frame over 1 MiB is refused, and the agent keeps serving. */
        size_t big = (1u << 20) + 16;
        char *blob = malloc(big + 1);
        memset(blob, 'x', big);
        blob[big] = '\n';
        send_raw(&a, blob, big + 1);
        free(blob);
        assert_error(reply(&a), -32600, "1 MiB");
        json_t *r =
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"health.ping\",\"params\":{" CTX "}}");
        assert_non_null(json_object_get(r, "result"));
        json_decref(r);
        /* A notification gets no answer; the next request still does. */
        r = ask(&a, "{\"jsonrpc\":\"2.0\",\"method\":\"log.emit\",\"params\":{}}\n"
                    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"health.ping\",\"params\":{" CTX "}}");
        assert_int_equal(json_integer_value(json_object_get(r, "id")), 6);
        json_decref(r);
        assert_int_equal(stop(&a), 0);
}

static void test_refusals_touch_nothing(void **state) {
        struct agent a = start("proc");
        /* container.pause is outside the proc role: -32001 before the lease is even read. */
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task.execute\",\"params\":{" CTX
                        ",\"fault_id\":\"container.pause\",\"phase\":\"inject\",\"lease\":{}}}"),
                -32001, "not authorized to inject 'container.pause'");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"task.execute\",\"params\":{" CTX
                        ",\"fault_id\":\"proc.pause\",\"phase\":\"inject\",\"lease\":{\"id\":\"l-1\"}}}"),
                -32602, "lease:");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"task.execute\",\"params\":{" CTX
                        ",\"fault_id\":\"proc.pause\",\"phase\":\"explode\"}}"),
                -32602, "phase");
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"lease.extend\",\"params\":{" CTX
                        ",\"lease_id\":\"l-nope\",\"ttl_seconds\":30}}"),
                -32602, "no lease l-nope");
        json_t *r =
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"task.status\",\"params\":{" CTX "}}");
        assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"), "watchdog")), 0);
        json_decref(r);
        assert_int_equal(stop(&a), 0);
}

/* A child of this test, paused through the agent as a host process. */
/* A child that holds none of our descriptors by the time it is returned:
 * stopped while it still held the agent's stdin, its stdin would never close
 * with ours, and the agent would wait its whole TTL for an EOF. */
static pid_t victim(void) {
        int ready[2];
        char c;
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        pid_t pid = fork();
        if (pid == 0) {
                for (int fd = 3; fd < 1024; fd++)
                        if (fd != ready[1])
                                close(fd);
                close(ready[1]); /* the last one: the parent sees EOF */
                for (;;)
                        pause();
        }
        close(ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 0);
        close(ready[0]);
        return pid;
}

/* task.execute of proc.pause in phase on host process v, with its real start time. */
static json_t *pause_request(struct agent *a, const char *phase, pid_t v, int ttl) {
        char line[1024];
        struct proc_stat st = { 0 };
        assert_true(proc_stat_read(v, &st));
        snprintf(
                line, sizeof(line),
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task.execute\",\"params\":{" CTX
                ",\"fault_id\":\"proc.pause\",\"phase\":\"%s\",\"lease\":{\"id\":\"l-t\",\"fault_id\":"
                "\"proc.pause\",\"ttl_seconds\":%d,\"target\":{\"engine\":\"host\",\"socket\":\"\","
                "\"container_id\":\"\",\"container_name\":\"victim\",\"started_at\":\"\",\"pid\":%d,"
                "\"pid_start_time\":%llu},\"undo\":[\"signal.cont\"],\"verify\":[\"process.not_stopped\"],"
                "\"effect\":\"process.stopped\"}}}",
                phase, ttl, (int)v, st.start_time);
        return ask(a, line);
}

static void inject_pause(struct agent *a, pid_t v, int ttl) {
        json_t *r = pause_request(a, "inject", v, ttl);
        if (!json_is_true(json_object_get(json_object_get(r, "result"), "ok"))) {
                char *text = json_dumps(r, 0);
                fail_msg("inject failed: %s", text);
        }
        json_decref(r);
        /* A signal is delivered after pidfd_send_signal() returns: the victim
         * stops a moment after the reply, on a busy machine. */
        double t0 = monotonic_ms();
        while (proc_state_of(v) != 'T' && monotonic_ms() - t0 < 5000)
                sleep_ms(5);
        if (proc_state_of(v) != 'T')
                fail_msg(
                        "victim %d not stopped %.0f ms after the inject reply", (int)v, monotonic_ms() - t0);
}

static bool resumed_within(pid_t v, int ms) {
        double t0 = monotonic_ms();
        while (monotonic_ms() - t0 < ms) {
                if (proc_state_of(v) != 'T')
                        return true;
                sleep_ms(10);
        }
        if (proc_state_of(v) != 'T')
                return true;
        print_message("victim %d still stopped after %d ms\n", (int)v, ms);
        return false;
}

/* The dead-man's switch: the lease's TTL passes without lease.extend. */
static void test_ttl_expiry_undoes(void **state) {
        struct agent a = start("proc,host");
        pid_t v = victim();
        /* TTL 3 s, renewed every 500 ms for 4.5 s: held past its TTL only
         * because of the renewals. A TTL of 1 s left a renewal's round trip
         * (an ASan agent on a loaded machine) too little room: one stall and
         * the watchdog undid it early; 3 s leaves 2.5 s. */
        inject_pause(&a, v, 3);
        for (int i = 0; i < 9; i++) {
                usleep(500000);
                json_decref(
                        ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"lease.extend\",\"params\":{" CTX
                                ",\"lease_id\":\"l-t\",\"ttl_seconds\":3}}"));
        }
        assert_int_equal(proc_state_of(v), 'T');
        /* No more renewals: undone by the watchdog once the 3 s pass. */
        assert_true(resumed_within(v, 6000));
        /* The compensation is recorded once the undo is verified and its
         * record settled (two fsyncs): asked until it is, for 10 s. */
        json_t *r = NULL, *comp = NULL;
        for (double until = monotonic_ms() + 10000; json_array_size(comp) == 0 && monotonic_ms() < until;) {
                json_decref(r);
                r = ask(&a,
                        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"task.status\",\"params\":{" CTX "}}");
                comp = json_object_get(json_object_get(r, "result"), "compensated");
                if (json_array_size(comp) == 0)
                        sleep_ms(50);
        }
        assert_int_equal(json_array_size(comp), 1);
        assert_string_equal(
                json_string_value(json_object_get(json_array_get(comp, 0), "state")), "compensated");
        json_decref(r);
        assert_int_equal(stop(&a), 0);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

/* The dead-man's switch: the controller goes away (stdin closes). */
static void test_stdin_eof_undoes(void **state) {
        struct agent a = start("proc,host");
        pid_t v = victim();
        inject_pause(&a, v, 600);
        assert_int_equal(stop(&a), 0); /* closes stdin, waits for the agent to exit */
        assert_int_not_equal(proc_state_of(v), 'T');
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

/* recovery: false: a kept fault the kernel holds by itself (a stopped
 * process) is let go: neither its TTL nor the controller going away undoes
 * it, the agent's record says kept, and a fresh agent undoes it from there. */
static void test_kept_outlives_the_agent(void **state) {
        char dir[] = "/tmp/mayhem-keep-XXXXXX", rec[64];
        assert_non_null(mkdtemp(dir));
        state_dir = dir;
        struct agent a = start("proc,host");
        pid_t v = victim();
        /* TTL 2 s: lease.keep comes well within it even from a slow agent. */
        inject_pause(&a, v, 2);
        json_t *r =
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"lease.keep\",\"params\":{" CTX
                        ",\"lease_id\":\"l-t\"}}");
        json_t *res = json_object_get(r, "result");
        assert_true(json_is_true(json_object_get(res, "kept")));
        assert_true(json_is_false(json_object_get(res, "keeper"))); /* nothing of it lives in the agent */
        json_decref(r);
        assert_error(
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"lease.keep\",\"params\":{" CTX
                        ",\"lease_id\":\"l-none\"}}"),
                -32602, "no lease l-none is held by this agent");
        usleep(2500000); /* past its TTL */
        assert_int_equal(stop(&a), 0);
        assert_int_equal(proc_state_of(v), 'T');
        snprintf(rec, sizeof(rec), "%s/l-t.json", dir);
        json_t *j = json_load_file(rec, 0, NULL);
        assert_true(json_is_true(json_object_get(j, "kept")));
        assert_true(json_is_null(json_object_get(j, "keeper")));
        json_decref(j);

        a = start("proc,host"); /* recover execute: a fresh agent */
        r = pause_request(&a, "undo", v, 120);
        assert_true(json_is_true(json_object_get(json_object_get(r, "result"), "ok")));
        json_decref(r);
        assert_true(resumed_within(v, 3000));
        r = pause_request(&a, "verify", v, 120);
        assert_true(json_is_true(json_object_get(json_object_get(r, "result"), "verified")));
        json_decref(r);
        assert_int_equal(stop(&a), 0);
        state_dir = NULL;
        unlink(rec);
        rmdir(dir);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

static json_t *resolve_pid(struct agent *a, pid_t pid) {
        char line[256];
        snprintf(
                line, sizeof(line),
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"target.resolve\",\"params\":{" CTX
                ",\"target\":{\"engine\":\"host\",\"pid\":%d}}}",
                (int)pid);
        return ask(a, line);
}

/* Without the host role the agent neither resolves nor touches a host
 * process, in any phase (-32001); the victim is never stopped. */
static void test_host_needs_the_host_role(void **state) {
        struct agent a = start("proc");
        pid_t v = victim();
        assert_error(
                resolve_pid(&a, v), -32001, "not authorized to resolve a host process: it needs role host");
        assert_error(
                pause_request(&a, "inject", v, 60), -32001,
                "not authorized to inject 'proc.pause' on a host process: it needs role host");
        assert_error(pause_request(&a, "undo", v, 60), -32001, "not authorized to undo 'proc.pause' on");
        usleep(50000); /* a stop, had one been sent, would be delivered by now */
        assert_int_equal(proc_state_of(v), 'S');
        assert_int_equal(stop(&a), 0);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

/* With the role, still never init, a kernel thread, the agent itself or
 * its parent (this test, standing for the controller that started it):
 * -32004 in target.resolve and in every phase of task.execute. */
static void test_host_guard(void **state) {
        struct agent a = start("proc,host");
        struct proc_stat st;
        assert_error(resolve_pid(&a, 1), -32004, "is the init process: the agent never acts on it");
        assert_error(pause_request(&a, "inject", 1, 60), -32004, "is the init process");
        assert_error(resolve_pid(&a, a.pid), -32004, ") is the agent itself: the agent never acts on it");
        assert_error(pause_request(&a, "inject", a.pid, 60), -32004, "is the agent itself");
        assert_error(
                resolve_pid(&a, getpid()), -32004, ") is the agent's parent: the agent never acts on it");
        assert_error(pause_request(&a, "inject", getpid(), 60), -32004, "is the agent's parent");
        assert_error(pause_request(&a, "undo", getpid(), 60), -32004, "is the agent's parent");
        if (getppid() > 1)
                assert_error(
                        resolve_pid(&a, getppid()), -32004,
                        "is an ancestor of the agent (2 generations up)");
        if (proc_stat_read(2, &st) && st.ppid == 0 && proc_comm_is(2, "kthreadd"))
                assert_error(
                        pause_request(&a, "inject", 2, 60), -32004, "pid 2 (kthreadd) is a kernel thread");
        json_t *r =
                ask(&a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"task.status\",\"params\":{" CTX "}}");
        assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"), "watchdog")), 0);
        json_decref(r);
        assert_int_equal(stop(&a), 0);
}

static void test_unknown_role_refused(void **state) {
        struct agent a = start("proc,teleport");
        assert_null(reply(&a));
        assert_int_equal(stop(&a), 2);
}

int main(void) {
        signal(SIGPIPE, SIG_IGN);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_handshake_and_ping),       cmocka_unit_test(test_malformed_requests),
                cmocka_unit_test(test_refusals_touch_nothing),   cmocka_unit_test(test_unknown_role_refused),
                cmocka_unit_test(test_ttl_expiry_undoes),        cmocka_unit_test(test_stdin_eof_undoes),
                cmocka_unit_test(test_host_needs_the_host_role), cmocka_unit_test(test_host_guard),
                cmocka_unit_test(test_kept_outlives_the_agent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
