/* The agent's dead-man's switch with one undo that hangs: the real
 * mayhem-agent reaches dockerd through a proxy of this test that relays
 * everything but an unpause, which it holds unanswered. The agent holds
 * container.pause on one container and proc.pause on another's process;
 * its stdin closes. The other lease is undone at once, the agent exits
 * within its bound (AGENT_RELEASE_MS, 20 s) instead of waiting on the engine
 * forever, and the held container is left paused for `mayhem recover`
 * (the test unpauses it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/proc-stat.h"
#include "common/run-command.h"
#include "engine/engine.h"

#define IMAGE       "mayhem-test-busybox:latest"
#define DOCKER_SOCK "/var/run/docker.sock"

static char stuck[64], other[64], proxy_path[64];
static struct engine *engine;
static int proxy_fd = -1;

/* ---- the proxy: dockerd, but an unpause never answered ----------------------- */

static int connect_docker(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = DOCKER_SOCK };
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                close(fd);
                return -1;
        }
        return fd;
}

/* Relays one connection both ways until either side closes; from the first
 * request naming /unpause on, it reads the client and passes nothing on. */
static void *relay(void *arg) {
        int client = (int)(intptr_t)arg, server = connect_docker();
        bool holding = false;
        char buf[65536];
        for (int rounds = 0; server >= 0 && rounds < 100000; rounds++) {
                struct pollfd p[2] = { { .fd = client, .events = POLLIN },
                                       { .fd = server, .events = POLLIN } };
                if (poll(p, 2, 60000) <= 0)
                        break;
                if (p[0].revents) {
                        ssize_t n = read(client, buf, sizeof(buf));
                        if (n <= 0)
                                break;
                        holding = holding || memmem(buf, (size_t)n, "/unpause", 8) != NULL;
                        if (!holding && write(server, buf, (size_t)n) != n)
                                break;
                }
                if (p[1].revents) {
                        ssize_t n = read(server, buf, sizeof(buf));
                        if (n <= 0 || write(client, buf, (size_t)n) != n)
                                break;
                }
        }
        if (server >= 0)
                close(server);
        close(client);
        return NULL;
}

static void *proxy_main(void *arg) {
        (void)arg;
        for (;;) {
                int c = accept4(proxy_fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        return NULL; /* closed: the test is done */
                pthread_t t;
                if (pthread_create(&t, NULL, relay, (void *)(intptr_t)c) == 0)
                        pthread_detach(t);
                else
                        close(c);
        }
}

static bool proxy_start(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(proxy_path, sizeof(proxy_path), "/tmp/mayhem-wd-%d.sock", (int)getpid());
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", proxy_path);
        unlink(proxy_path);
        proxy_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        pthread_t t;
        return proxy_fd >= 0 && bind(proxy_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
               listen(proxy_fd, 16) == 0 && pthread_create(&t, NULL, proxy_main, NULL) == 0 &&
               pthread_detach(t) == 0;
}

/* ---- the case ----------------------------------------------------------------- */

static bool docker(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        cmd_result_done(&r);
        return ok;
}

static struct engine_container inspect(const char *name) {
        struct engine_container c = { 0 };
        if (engine_container_inspect(engine, name, &c, NULL) < 0)
                fail_msg("inspect %s", name);
        return c;
}

static json_t *leased(struct agent_client *a, const char *fault, const char *name, unsigned n) {
        json_t *id = NULL, *l;
        char lease_id[32];
        struct mh_error e = { 0 };
        if (agent_lease_resolve(a, "docker", name, &id, &e) < 0)
                fail_msg("target.resolve %s: %s", name, e.msg);
        snprintf(lease_id, sizeof(lease_id), "l-%08x%08x", (unsigned)getpid(), n);
        l = agent_lease_new(lease_id, fault, id, NULL, NULL);
        json_decref(id);
        if (agent_lease_call(a, l, "inject", NULL, &e) < 0)
                fail_msg("%s on %s: %s", fault, name, e.msg);
        return l;
}

struct stopper {
        struct agent_client *agent;
        double took_ms;
};

static void *stop_agent(void *arg) {
        struct stopper *s = arg;
        double t0 = monotonic_ms();
        s->agent = agent_client_stop(s->agent); /* closes its stdin, waits for it */
        s->took_ms = monotonic_ms() - t0;
        return NULL;
}

static void test_stuck_undo_holds_up_nothing(void **state) {
        (void)state;
        char socket[96];
        snprintf(socket, sizeof(socket), "docker:%s", proxy_path);
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "proc,container",
                                          .engine_socket = socket,
                                          .run_id = "watchdog" };
        struct stopper s = { 0 };
        struct mh_error e = { 0 };
        if (agent_client_start(&o, &s.agent, &e) < 0)
                fail_msg("agent: %s", e.msg);
        json_t *a = leased(s.agent, "container.pause", stuck, 1),
               *b = leased(s.agent, "proc.pause", other, 2);
        pid_t other_pid = inspect(other).pid;
        for (double until = monotonic_ms() + 10000;
             proc_state_of(other_pid) != 'T' && monotonic_ms() < until;)
                sleep_ms(10);
        assert_true(inspect(stuck).paused);
        if (proc_state_of(other_pid) != 'T')
                fail_msg(
                        "%s's process (pid %d) not stopped 10 s after proc.pause was injected: state %c",
                        other, (int)other_pid, proc_state_of(other_pid));

        pthread_t t;
        double t0 = monotonic_ms();
        assert_int_equal(pthread_create(&t, NULL, stop_agent, &s), 0);
        while (proc_state_of(other_pid) == 'T' && monotonic_ms() - t0 < 15000)
                sleep_ms(5);
        double other_back = monotonic_ms() - t0;
        pthread_join(t, NULL);
        print_message(
                "stdin closed: %s running again after %.0f ms; the agent gone after %.1f s with the "
                "unpause of %s unanswered\n",
                other, other_back, s.took_ms / 1000, stuck);
        /* Queued behind the unpause, the other undo would wait out AGENT_RELEASE_MS (20 s)
         * or never come; at once it takes well under a second on a quiet machine, seconds
         * on a loaded one under the sanitizer. */
        if (other_back >= 10000)
                fail_msg("%s still stopped %.0f ms after the agent's stdin closed", other, other_back);
        /* AGENT_RELEASE_MS, then the agent's exit (LeakSanitizer's report included), not
         * the client's 30 s kill */
        assert_true(s.took_ms < 28000);
        assert_true(inspect(stuck).paused); /* what the hung engine kept: for recovery */
        assert_true(docker((const char *const[]){ "docker", "unpause", stuck, NULL }));
        json_decref(a);
        json_decref(b);
}

static bool start_container(char *name, size_t size, const char *which) {
        snprintf(name, size, "mayhem-wd-%s-%d", which, (int)getpid());
        return docker((const char *const[]){ "docker", "run", "-d", "--name", name, IMAGE, NULL });
}

static void remove_containers(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", stuck, other, NULL });
        cmd_result_done(&r);
}

int main(void) {
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        bool up = start_container(stuck, sizeof(stuck), "stuck") &&
                  start_container(other, sizeof(other), "other") && proxy_start();
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_stuck_undo_holds_up_nothing) };
        int failed = up ? cmocka_run_group_tests(tests, NULL, NULL) : 1;
        remove_containers();
        close(proxy_fd);
        unlink(proxy_path);
        engine_free(engine);
        return failed;
}
