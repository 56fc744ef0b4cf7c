/* check_spec with execution container / service (issue 14, part 1), through
 * the whole tool on dockerd: `mayhem run --execute` and its agent, the
 * observations read back from SQLite. Two containers on a user-defined
 * network, ck14-a (nettool) and ck14-b (busybox httpd on 8080, network
 * alias ck14-web). The checks run from ck14-a's netns with its DNS view
 * (Docker's resolver at 127.0.0.11 answers ck14-web), a name the host
 * cannot resolve (asserted). Measured: the http check passes with status
 * 200; while ck14-b is held by net.partition (recovery: false, undone with
 * `recover execute` afterwards) the same check fails; a tcp check passes on
 * 8080 and fails on 8081 (nothing listens: refused). execution: service
 * on a service of two replicas probes from the one that runs when the other
 * is paused, and fails naming both when both are. execution: process probes
 * from a host process in a netns of the test's own (ck14-ns-PID): its
 * 127.0.0.1:9099 answers there and not on the host's loopback. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <netdb.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/run-command.h"

#define A       "ck14-a"
#define B       "ck14-b"
#define ALIAS   "ck14-web"
#define R1      "ck14-r-1"
#define R2      "ck14-r-2"
#define NS_PORT "9099"
#define COMPOSE "tests/data/compose/checks/compose.yaml"

/* ck14-net-PID, ck14-ns-PID, /tmp/ck14-checks-PID.{db,yaml}: two checkouts'
 * runs never share them. The containers keep the names the compose file
 * gives them. */
static char net[32], netns[32], netns_path[64], db[64], drill_path[64];

static void name_things(void) {
        int pid = (int)getpid();
        snprintf(net, sizeof(net), "ck14-net-%d", pid);
        snprintf(netns, sizeof(netns), "ck14-ns-%d", pid);
        snprintf(netns_path, sizeof(netns_path), "/run/netns/%s", netns);
        snprintf(db, sizeof(db), "/tmp/ck14-checks-%d.db", pid);
        snprintf(drill_path, sizeof(drill_path), "/tmp/ck14-checks-%d.yaml", pid);
}

static const char *root(void) {
        const char *r = getenv("MAYHEM_SOURCE_ROOT");
        return r ? r : ".";
}

static int docker(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        int x = r.exit;
        cmd_result_done(&r);
        return x;
}

#define DOCKER(...) docker((const char *const[]){ "docker", __VA_ARGS__, NULL })

static pid_t ns_server; /* busybox httpd in netns, on its 127.0.0.1 only */

static void remove_all(void) {
        DOCKER("rm", "-f", A, B, R1, R2);
        DOCKER("network", "rm", net);
        if (ns_server > 0) {
                kill(ns_server, SIGKILL);
                waitpid(ns_server, NULL, 0);
                ns_server = 0;
        }
        struct cmd_result r = run_command(NULL, (const char *const[]){ "ip", "netns", "del", netns, NULL });
        cmd_result_done(&r);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        char path[80];
        for (size_t i = 0; i < 3; i++) {
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
        unlink(drill_path);
}

static int stack_up(void) {
        remove_all();
        if (DOCKER("network", "create", net) != 0)
                return -1;
        if (DOCKER("run", "-d", "--name", B, "--network", net, "--network-alias", ALIAS, "--label",
                   "com.docker.compose.project=ck14", "--label", "com.docker.compose.service=b",
                   "mayhem-test-busybox:latest", "/busybox", "httpd", "-f", "-p", "8080", "-h", "/etc") != 0)
                return -1;
        for (int i = 0; i < 2; i++)
                if (DOCKER("run", "-d", "--name", i ? R2 : R1, "--network", net, "--label",
                           "com.docker.compose.project=ck14", "--label", "com.docker.compose.service=r",
                           "mayhem-test-busybox:latest", "/busybox", "sleep", "3600") != 0)
                        return -1;
        return DOCKER(
                "run", "-d", "--name", A, "--network", net, "--label", "com.docker.compose.project=ck14",
                "--label", "com.docker.compose.service=a", "mayhem-test-net:latest");
}

/* A host process in a network namespace of its own, serving on that
 * namespace's loopback: only a probe from its side reaches it. */
static int ns_server_up(void) {
        const char *const steps[][8] = {
                { "ip", "netns", "add", netns, NULL },
                { "ip", "-n", netns, "link", "set", "lo", "up", NULL },
        };
        for (size_t i = 0; i < 2; i++) {
                struct cmd_result r = run_command(NULL, steps[i]);
                int x = r.exit;
                cmd_result_done(&r);
                if (x != 0)
                        return -1;
        }
        int fd = open(netns_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ns_server = fork();
        if (ns_server == 0) {
                if (setns(fd, CLONE_NEWNET) == 0)
                        execl("/bin/busybox", "busybox", "httpd", "-f", "-p", "127.0.0.1:" NS_PORT, "-h",
                              "/etc", (char *)NULL);
                _exit(127);
        }
        close(fd);
        return ns_server > 0 ? 0 : -1;
}

static struct cmd_result mayhem(const char *const *args) {
        const char *argv[16] = { getenv("MAYHEM_BIN"), "--db", db };
        size_t n = 3;
        for (; *args && n < 15; args++)
                argv[n++] = *args;
        argv[n] = NULL;
        return run_command(root(), argv);
}

static void write_drill(const char *text) {
        FILE *f = fopen(drill_path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void run_drill(const char *text, const char *must_say) {
        write_drill(text);
        struct cmd_result r =
                mayhem((const char *const[]){ "run", drill_path, "-c", COMPOSE, "--execute", NULL });
        print_message("%s", r.err);
        if (r.exit != 0 || !strstr(r.out, must_say))
                fail_msg("mayhem run exited %d:\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
}

/* The latest observation of source in the latest run: its value and detail. */
static double observed(const char *source, char *detail, size_t size) {
        sqlite3 *h = NULL;
        sqlite3_stmt *st = NULL;
        double v = -1;
        assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        assert_int_equal(
                sqlite3_prepare_v2(
                        h,
                        "SELECT json_extract(data_json, '$.value'), json_extract(data_json, '$.detail') "
                        "FROM observations WHERE source = ? ORDER BY id DESC LIMIT 1",
                        -1, &st, NULL),
                SQLITE_OK);
        sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
                v = sqlite3_column_double(st, 0);
                snprintf(detail, size, "%s", (const char *)sqlite3_column_text(st, 1));
        } else
                fail_msg("no observation %s", source);
        sqlite3_finalize(st);
        sqlite3_close(h);
        print_message("%s = %g (%s)\n", source, v, detail);
        return v;
}

/* file and process probes as ck14-a's root and pid namespace show them:
 * nettool is its pid 1 and its only process; ck14-b runs busybox, no nettool. */
static void test_file_and_process(void **state) {
        char detail[512];
        run_drill(
                "kind: drill\nname: ck14-fp\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - check_spec:\n"
                "      - {id: f-ok, execution: container, target: " A
                ", probe: {type: file, path: /nettool}}\n"
                "      - {id: f-has, execution: container, target: " A
                ", probe: {type: file, path: /etc/resolv.conf, contains: 127.0.0.11}}\n"
                "      - {id: f-gone, execution: container, target: " A
                ", probe: {type: file, path: /no-such}}\n"
                "      - {id: f-lacks, execution: container, target: " A
                ", probe: {type: file, path: /etc/resolv.conf, contains: ck14-absent}}\n"
                "      - {id: p-ok, execution: container, target: " A
                ", probe: {type: process, name: nettool}}\n"
                "      - {id: p-pid, execution: container, target: " A ", probe: {type: process, pid: 1}}\n"
                "      - {id: p-b, execution: container, target: " B
                ", probe: {type: process, name: nettool}}\n"
                "      - {id: p-nopid, execution: service, target: a, probe: {type: process, pid: 4000}}\n",
                "**status**: completed");
        assert_true(observed("f-ok", detail, sizeof(detail)) == 1);
        assert_true(observed("f-has", detail, sizeof(detail)) == 1);
        assert_true(observed("f-gone", detail, sizeof(detail)) == 0);
        assert_non_null(strstr(detail, "No such file"));
        assert_true(observed("f-lacks", detail, sizeof(detail)) == 0);
        assert_true(observed("p-ok", detail, sizeof(detail)) == 1);
        assert_true(observed("p-pid", detail, sizeof(detail)) == 1);
        assert_true(observed("p-b", detail, sizeof(detail)) == 0); /* nettool runs, but not in ck14-b */
        assert_true(observed("p-nopid", detail, sizeof(detail)) == 0);
}

/* exec through the engine's exec API: ck14-b's image holds /busybox only. */
static void test_exec(void **state) {
        char detail[512];
        run_drill(
                "kind: drill\nname: ck14-exec\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - check_spec:\n"
                "      - {id: e-ok, execution: container, target: " B
                ", probe: {type: exec, cmd: [/busybox, test, -f, /etc/hostname], timeout: 5s}}\n"
                "      - {id: e-exit, execution: container, target: " B
                ", probe: {type: exec, cmd: [/busybox, test, -f, /no-such], timeout: 5s}}\n"
                "      - {id: e-none, execution: container, target: " B
                ", probe: {type: exec, cmd: [/bin/cat, /etc/hostname], timeout: 5s}}\n",
                "**status**: completed");
        assert_true(observed("e-ok", detail, sizeof(detail)) == 1);
        assert_true(observed("e-exit", detail, sizeof(detail)) == 0);
        assert_non_null(strstr(detail, "exited 1"));
        assert_true(observed("e-none", detail, sizeof(detail)) == 0);
        assert_non_null(strstr(detail, "the image has no /bin/cat"));
}

/* A check from a container that does not exist: a failed observation with
 * the agent's reason, within the probe's timeout plus the margin. */
static void test_target_gone(void **state) {
        char detail[512];
        run_drill(
                "kind: drill\nname: ck14-gone\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - check_spec:\n"
                "      - {id: g, execution: container, target: ck14-gone, probe: {type: tcp, host: " B
                ", port: 8080, timeout: 1s}}\n",
                "**status**: completed");
        assert_true(observed("g", detail, sizeof(detail)) == 0);
        assert_non_null(strstr(detail, "the agent could not probe"));
        double ms = observed("g.latency_ms", detail, sizeof(detail));
        assert_true(ms >= 0 && ms < 6000); /* timeout 1 s + the 5 s margin, never a hang */
}

/* Whatever a case kept in force is undone, so no keeper outlives the test. */
static void recover_leftovers(void) {
        struct cmd_result r = mayhem((const char *const[]){ "inspect", "leases", "--json", NULL });
        const char *p = r.out;
        while (p && (p = strstr(p, "\"run_id\": \""))) {
                char run[128];
                p += 11;
                size_t n = strcspn(p, "\"");
                snprintf(run, sizeof(run), "%.*s", (int)(n < sizeof(run) ? n : sizeof(run) - 1), p);
                struct cmd_result x = mayhem((const char *const[]){ "recover", "execute", run, NULL });
                print_message("recover execute %s: exit %d\n", run, x.exit);
                cmd_result_done(&x);
        }
        cmd_result_done(&r);
}

static const char web_check[] = "  - check_spec:\n"
                                "      - id: web\n        execution: container\n        target: " A "\n"
                                "        probe: {type: http, url: \"http://" ALIAS
                                ":8080/hostname\", expected_status: 200, timeout: "
                                "2s}\n";

static void test_http_by_alias_passes_then_fails_under_partition(void **state) {
        char detail[512], drill[2048];
        struct addrinfo *res = NULL;
        int g = getaddrinfo(ALIAS, "8080", NULL, &res);
        if (g == 0)
                freeaddrinfo(res);
        print_message("host getaddrinfo(" ALIAS "): %s\n", g ? gai_strerror(g) : "resolved");
        assert_int_not_equal(g, 0); /* only the containers on the network know the name */

        snprintf(
                drill, sizeof(drill),
                "kind: drill\nname: ck14-pass\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n%s"
                "  - wait: {until_check_passes: web, timeout: 5s, interval: 200ms}\n",
                web_check);
        run_drill(drill, "**status**: completed");
        assert_true(observed("web", detail, sizeof(detail)) == 1);
        assert_non_null(strstr(detail, "from " A));
        assert_true(observed("web.status", detail, sizeof(detail)) == 200);
        double ms = observed("web.latency_ms", detail, sizeof(detail));
        assert_true(ms > 0 && ms < 2000); /* within the probe's timeout */

        snprintf(
                drill, sizeof(drill),
                "kind: drill\nname: ck14-part\nconfig: {recovery: false}\ncontainers:\n  " B ":\n"
                "    faults:\n      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - sequential: [" B "]\n%s",
                web_check);
        run_drill(drill, "1 kept faulted");
        double held = observed("web", detail, sizeof(detail));
        recover_leftovers(); /* the partition undone before anything is asserted */
        assert_true(held == 0);
        assert_non_null(strstr(detail, "timed out"));
}

static void test_tcp_passes_and_fails(void **state) {
        char detail[512];
        run_drill(
                "kind: drill\nname: ck14-tcp\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - check_spec:\n"
                "      - {id: open, execution: service, target: a, probe: {type: tcp, host: " B
                ", port: 8080, timeout: 2s}}\n"
                "      - {id: shut, execution: container, target: " A ", probe: {type: tcp, host: " B
                ", port: 8081, timeout: 2s}}\n",
                "**status**: completed");
        assert_true(observed("open", detail, sizeof(detail)) == 1);
        assert_true(observed("shut", detail, sizeof(detail)) == 0);
        assert_non_null(strstr(detail, "refused"));
}

/* execution: service on two replicas: the running one when the other is
 * paused; a failed observation naming both when both are. */
static void test_service_picks_a_running_replica(void **state) {
        char detail[512];
        static const char drill[] =
                "kind: drill\nname: ck14-svc\ncontainers:\n  " B ":\n    faults:\n"
                "      - {fault: net.partition, duration: 1s}\nexecution:\n"
                "  - check_spec:\n"
                "      - {id: rep, execution: service, target: r, probe: {type: tcp, host: " B
                ", port: 8080, timeout: 2s}}\n";
        assert_int_equal(DOCKER("pause", R1), 0);
        run_drill(drill, "**status**: completed");
        assert_true(observed("rep", detail, sizeof(detail)) == 1);
        assert_non_null(strstr(detail, "from " R2));
        assert_int_equal(DOCKER("pause", R2), 0);
        run_drill(drill, "**status**: completed");
        double both = observed("rep", detail, sizeof(detail));
        DOCKER("unpause", R1);
        DOCKER("unpause", R2);
        assert_true(both == 0);
        assert_non_null(strstr(detail, "no container of the service runs: " R1 " paused, " R2 " paused"));
}

/* execution: process: from a host process's netns (the agent with role
 * host); the same address from the host finds nothing. */
static void test_process_locus(void **state) {
        char detail[512], drill[1024];
        snprintf(
                drill, sizeof(drill),
                "kind: drill\nname: ck14-proc\ntargets:\n  w:\n    runtime: process\n"
                "    process: {pid: %d}\n    faults: [{fault: proc.pause, duration: 500ms}]\n"
                "execution:\n  - check_spec:\n"
                "      - {id: ns-tcp, execution: process, target: w, probe: {type: tcp, host: 127.0.0.1, "
                "port: " NS_PORT ", timeout: 2s}}\n"
                "      - {id: ns-http, execution: process, target: w, probe: {type: http, url: "
                "\"http://127.0.0.1:" NS_PORT "/hostname\", timeout: 2s}}\n"
                "      - {id: host-tcp, execution: host, probe: {type: tcp, host: 127.0.0.1, port: " NS_PORT
                ", timeout: 2s}}\n"
                "  - sequential: [w]\n",
                (int)ns_server);
        run_drill(drill, "**status**: completed");
        assert_true(observed("ns-tcp", detail, sizeof(detail)) == 1);
        assert_true(observed("ns-http", detail, sizeof(detail)) == 1);
        assert_true(observed("ns-http.status", detail, sizeof(detail)) == 200);
        assert_true(observed("host-tcp", detail, sizeof(detail)) == 0);
}

int main(void) {
        if (geteuid() != 0 || DOCKER("info") != 0)
                return 77;
        name_things();
        if (stack_up() != 0 || ns_server_up() != 0) {
                remove_all();
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_http_by_alias_passes_then_fails_under_partition),
                cmocka_unit_test(test_tcp_passes_and_fails),
                cmocka_unit_test(test_file_and_process),
                cmocka_unit_test(test_exec),
                cmocka_unit_test(test_target_gone),
                cmocka_unit_test(test_service_picks_a_running_replica),
                cmocka_unit_test(test_process_locus),
        };
        if (getenv("MH_TEST_FILTER"))
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        recover_leftovers();
        remove_all();
        return failed;
}
