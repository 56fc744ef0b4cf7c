/* dns.timeout on real containers (dockerd), through the whole tool: a drill
 * run with --execute and its agent. The effect is measured from inside the
 * target: getaddrinfo() of the peer container's name by the target's own
 * libc (nettool resolve, through docker exec), before, while the fault is
 * held, and after it is undone. Two networks, two resolvers:
 *  - a user-defined network, where the target asks Docker's resolver at
 *    127.0.0.11, reached on lo through a DNAT in the target's own netns;
 *  - the default bridge, where it asks a resolver of the test's own (a
 *    nettool dns container) named with --dns, across the bridge.
 * The run must also say the effect was proven, not only that the rules are
 * there; and after it, a residue scan of the target's netns finds nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "basic/clock.h"
#include "demo-harness.h"
#include "engine/engine.h"

/* The fault is held long enough for the "held" check (docker exec and a 1 s
 * query, seconds on a loaded machine) to land well inside it. */
#define HOLD_S 20
/* The target's libc asks once and waits 1 s (RES_OPTIONS): a dropped query
 * takes about that, an answered one a few ms. */
#define RES_OPTIONS  "RES_OPTIONS=timeout:1 attempts:1"
#define TIMED_OUT_MS 900

static struct demo demo;
/* mayhem-dns-{target,peer,resolver,net}-PID and their compose file, as
 * tests/data/compose/dns/compose.yaml has them but for the pid: two
 * checkouts' runs never share a container. */
static char target[48], peer[48], resolver[48], network[48], compose[128];

static void name_stack(void) {
        int pid = (int)getpid();
        snprintf(target, sizeof(target), "mayhem-dns-target-%d", pid);
        snprintf(peer, sizeof(peer), "mayhem-dns-peer-%d", pid);
        snprintf(resolver, sizeof(resolver), "mayhem-dns-resolver-%d", pid);
        snprintf(network, sizeof(network), "mayhem-dns-net-%d", pid);
        snprintf(compose, sizeof(compose), "%s.compose.yaml", demo.db);
}

static void write_compose(void) {
        FILE *f = fopen(compose, "we");
        assert_non_null(f);
        fprintf(f,
                "name: dns-%d\nservices:\n"
                "  target: {image: mayhem-test-net:latest, container_name: %s}\n"
                "  peer: {image: mayhem-test-net:latest, container_name: %s}\n"
                "  resolver: {image: mayhem-test-net:latest, container_name: %s}\n",
                (int)getpid(), target, peer, resolver);
        assert_int_equal(fclose(f), 0);
}

static void docker(const char *const *argv, bool must) {
        struct cmd_result r = run_command(NULL, argv);
        if (must && r.exit != 0)
                fail_msg("%s %s: %s", argv[0], argv[1], r.err);
        cmd_result_done(&r);
}

#define DOCKER(must, ...) docker((const char *const[]){ "docker", __VA_ARGS__, NULL }, must)

static void remove_stack(void) {
        DOCKER(false, "rm", "-f", target, peer, resolver);
        DOCKER(false, "network", "rm", network);
}

/* docker run -d NAME as compose service, with extra args (NULL-ended) before the image. */
static void start(const char *name, const char *service, const char *const *extra, const char *const *cmd) {
        char project[48], label[64];
        snprintf(project, sizeof(project), "com.docker.compose.project=dns-%d", (int)getpid());
        const char *argv[24] = { "docker", "run", "-d", "--name", name, "--label", project };
        size_t n = 7;
        snprintf(label, sizeof(label), "com.docker.compose.service=%s", service);
        argv[n++] = "--label";
        argv[n++] = label;
        for (; extra && *extra && n < 18; extra++)
                argv[n++] = *extra;
        argv[n++] = "mayhem-test-net:latest";
        for (; cmd && *cmd && n < 23; cmd++)
                argv[n++] = *cmd;
        argv[n] = NULL;
        docker(argv, true);
}

static void container(const char *name, char *ip, size_t size, int *ret_pid) {
        struct engine *e = NULL;
        struct engine_container c;
        if (engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0 ||
            engine_container_inspect(e, name, &c, NULL) < 0)
                fail_msg("cannot inspect %s", name);
        engine_free(e);
        if (ip)
                snprintf(ip, size, "%s", c.networks[0].ip);
        if (ret_pid)
                *ret_pid = c.pid;
}

/* getaddrinfo(peer) inside the target: "ok ADDR" or the EAI_ code, and how long it took. */
struct resolved {
        char outcome[32], addr[64];
        double ms;
};

static struct resolved resolve_in_target(void) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "exec", "-e", RES_OPTIONS, target, "/nettool",
                                             "resolve", peer, NULL });
        struct resolved out = { 0 };
        if (r.exit != 0 || !r.out)
                fail_msg("nettool resolve in the target: %s", r.err ? r.err : "");
        if (strncmp(r.out, "ok ", 3) == 0)
                sscanf(r.out, "%31s %63s %lf", out.outcome, out.addr, &out.ms);
        else
                sscanf(r.out, "%31s %lf", out.outcome, &out.ms);
        cmd_result_done(&r);
        return out;
}

static bool resolves(const struct resolved *r, const char *peer_ip) {
        return strcmp(r->outcome, "ok") == 0 && strcmp(r->addr, peer_ip) == 0 && r->ms < TIMED_OUT_MS;
}

static void assert_resolves(const char *peer_ip, const char *when) {
        struct resolved r = resolve_in_target();
        print_message(
                "%s: getaddrinfo(%s) in the target: %s %s (%.0f ms)\n", when, peer, r.outcome, r.addr, r.ms);
        assert_string_equal(r.outcome, "ok");
        assert_string_equal(r.addr, peer_ip);
        assert_true(r.ms < TIMED_OUT_MS);
}

/* Before the drill, on containers just started: Docker's resolver, or ours,
 * may take a moment to answer; retried for up to 10 s, then as above. */
static void wait_resolves(const char *peer_ip, const char *when) {
        for (double until = monotonic_ms() + 10000; monotonic_ms() < until; sleep_ms(200)) {
                struct resolved r = resolve_in_target();
                if (resolves(&r, peer_ip))
                        break;
                print_message(
                        "%s: getaddrinfo(%s) in the target: %s %s (%.0f ms), again\n", when, peer, r.outcome,
                        r.addr, r.ms);
        }
        assert_resolves(peer_ip, when);
}

static void assert_times_out(const char *when) {
        struct resolved r = resolve_in_target();
        print_message("%s: getaddrinfo(%s) in the target: %s (%.0f ms)\n", when, peer, r.outcome, r.ms);
        assert_string_equal(r.outcome, "EAI_AGAIN");
        assert_true(r.ms >= TIMED_OUT_MS);
}

/* The drill of the current evidence database's run. */
static const char *drill_path(void) {
        static char path[128];
        snprintf(path, sizeof(path), "%s.drill.yaml", demo.db);
        return path;
}

static pid_t run_drill(void) {
        demo_fresh_db(&demo);
        const char *path = drill_path();
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: dns\ncontainers:\n  %s:\n    faults:\n"
                "      - {fault: dns.timeout, duration: %ds, probability: 100}\nexecution:\n"
                "  - parallel: [%s]\n",
                target, HOLD_S, target);
        fclose(f);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", path, "-c", compose, "--execute", NULL });
        assert_true(pid > 0);
        return pid;
}

static char *wait_log(pid_t pid, const char *what) {
        /* planning, the agent and the inject: seconds, more under the sanitizer */
        for (double until = monotonic_ms() + 60000; monotonic_ms() < until; sleep_ms(50)) {
                char *log = demo_spawn_log(&demo);
                if (strstr(log, what))
                        return log;
                free(log);
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        break;
        }
        fail_msg("the run never said '%s':\n%s", what, demo_spawn_log(&demo));
        return NULL;
}

static void wait_done(pid_t pid) {
        int code = demo_wait_run(&demo, pid, (HOLD_S + 60) * 1000.0);
        char *log = demo_spawn_log(&demo);
        if (code != 0)
                fail_msg("mayhem run exited %d (-1: still running after %d s):\n%s", code, HOLD_S + 60, log);
        if (!strstr(log, "1 in force (1 proven, 0 not observable)"))
                fail_msg("the summary does not count the effect as proven:\n%s", log);
        free(log);
}

/* The whole case on the stack as started: before, held, after. */
static void dns_case(const char *which) {
        char peer_ip[64], why[700];
        int target_pid = 0;
        container(peer, peer_ip, sizeof(peer_ip), NULL);
        container(target, NULL, 0, &target_pid);
        wait_resolves(peer_ip, "before");
        pid_t pid = run_drill();
        char *log = wait_log(pid, "in force:");
        const char *line = strstr(log, "in force:");
        print_message("%s: %.*s\n", which, (int)strcspn(line, "\n"), line);
        if (!strstr(line, "in force: a DNS query"))
                fail_msg("the effect was not proven:\n%s", log);
        free(log);
        assert_times_out("held");
        wait_done(pid);
        unlink(drill_path());
        if (demo_net_residue(target_pid, why, sizeof(why)))
                fail_msg("residue in the target's netns: %s", why);
        assert_resolves(peer_ip, "after the undo");
}

/* Docker's resolver on 127.0.0.11, DNAT'ed on lo in the target's own netns. */
static void test_user_network(void **state) {
        (void)state;
        remove_stack();
        DOCKER(true, "network", "create", network);
        start(peer, "peer", (const char *const[]){ "--network", network, NULL }, NULL);
        start(target, "target", (const char *const[]){ "--network", network, NULL }, NULL);
        dns_case("user-defined network");
        remove_stack();
}

/* The default bridge: no resolver of Docker's; ours, named with --dns. */
static void test_default_bridge(void **state) {
        (void)state;
        char peer_ip[64], resolver_ip[64];
        remove_stack();
        start(peer, "peer", NULL, NULL);
        container(peer, peer_ip, sizeof(peer_ip), NULL);
        start(resolver, "resolver", NULL, (const char *const[]){ "/nettool", "dns", peer, peer_ip, NULL });
        container(resolver, resolver_ip, sizeof(resolver_ip), NULL);
        start(target, "target", (const char *const[]){ "--dns", resolver_ip, NULL }, NULL);
        dns_case("default bridge");
        remove_stack();
}

int main(void) {
        int r = demo_up(&demo);
        if (r == 77 || demo_podman())
                return 77;
        if (r < 0) {
                demo_down(&demo);
                return 1;
        }
        name_stack();
        write_compose();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_user_network),
                cmocka_unit_test(test_default_bridge),
        };
        if (getenv("MH_TEST_FILTER"))
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_stack();
        unlink(compose);
        demo_down(&demo);
        return failed;
}
