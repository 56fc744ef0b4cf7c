#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agent/agent-client.h"
#include "common/agent-lease.h"
#include "basic/clock.h"
#include "common/proc-stat.h"
#include "common/run-command.h"

/* Faults on a plain host process (no engine at all): a child of this test
 * with a name of its own is paused by name and by pid, and killed; with a
 * supervisor (this test restarting it) the kill verifies, without one the
 * lease is dirty and the run exits 7.
 *
 * The host gate: drills naming pid 1, kthreadd, this test (the controller's
 * parent) or its parent are refused at plan time (exit 5) and nothing is
 * journalled; the real agent, sent the same targets directly, refuses them
 * too (-32004), and without the host role any host process (-32001). A name
 * that only a process inside a container has (a dockerd container of this
 * test's own) matches nothing, and that process is never stopped, unless the
 * drill says include_containers: true. */

#define NAME "mayhem-itproc"

static char db[64], drill[64];

/* A child named NAME, paused in pause(). It names itself after the fork: a
 * drill that targets it by name right away could find no process of that
 * name, so this returns once /proc says it (10 s at most). No assertion:
 * the supervisor thread calls it too. */
static pid_t spawn_victim(void) {
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_NAME, NAME);
                for (;;)
                        pause();
        }
        for (double until = monotonic_ms() + 10000;
             pid > 0 && !proc_comm_is(pid, NAME) && monotonic_ms() < until;)
                sleep_ms(5);
        return pid;
}

static pid_t start_victim(void) {
        pid_t pid = spawn_victim();
        assert_true(pid > 0);
        if (!proc_comm_is(pid, NAME))
                fail_msg("victim pid %d not named %s within 10 s", (int)pid, NAME);
        return pid;
}

/* The state of a process that is not stopped settles to 'S' (a victim in
 * pause(), busybox in sleep): just after a SIGCONT, or a fork, it may still
 * read 'R' for a moment. Polls up to 2 s; the state seen last. */
static char settled_state(pid_t pid) {
        char st = proc_state_of(pid);
        for (double until = monotonic_ms() + 2000; st != 'S' && monotonic_ms() < until;
             st = proc_state_of(pid))
                sleep_ms(5);
        return st;
}

/* After each test, pass or fail: no victim of ours is left (stopped, holding
 * the test runner's pipes). */
static int reap_victims(void **state) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        struct proc_stat st;
        while (d && (de = readdir(d))) {
                pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
                if (pid > 0 && proc_comm_is(pid, NAME) && proc_stat_read(pid, &st) && st.ppid == getpid()) {
                        kill(pid, SIGKILL);
                        waitpid(pid, NULL, 0);
                }
        }
        if (d)
                closedir(d);
        return 0;
}

static void write_drill(const char *target, const char *faults) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: host\nconfig: {risk_ceiling: high}\ntargets:\n  victim:\n"
                "    runtime: process\n    process: %s\n    faults:\n%s"
                "execution:\n  - sequential: [victim]\n",
                target, faults);
        fclose(f);
}

static struct cmd_result mayhem(void) {
        unlink(db);
        return run_command(
                NULL,
                (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute", NULL });
}

static void test_pause_by_name(void **state) {
        pid_t v = start_victim();
        write_drill("{name: " NAME "}", "      - {fault: proc.pause, duration: 1s}\n");
        struct cmd_result r = mayhem();
        if (r.exit != 0 || !strstr(r.err, "in force: process") || !strstr(r.err, "is stopped"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        assert_int_equal(settled_state(v), 'S');
        cmd_result_done(&r);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

/* The test plays the supervisor: when the victim dies, a new one with the same name starts. */
static void *supervise(void *arg) {
        pid_t *v = arg;
        waitpid(*v, NULL, 0);
        *v = spawn_victim();
        return NULL;
}

static void test_kill_with_supervisor_verifies(void **state) {
        pid_t v = start_victim();
        char target[64];
        pthread_t t;
        snprintf(target, sizeof(target), "{pid: %d}", (int)v);
        write_drill(target, "      - {fault: process.kill, duration: 1s}\n");
        assert_int_equal(pthread_create(&t, NULL, supervise, &v), 0);
        struct cmd_result r = mayhem();
        pthread_join(t, NULL);
        if (r.exit != 0 || !strstr(r.err, "undone and verified: a process of that name runs"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

static void test_kill_without_supervisor_is_dirty(void **state) {
        pid_t v = start_victim();
        char target[64];
        snprintf(target, sizeof(target), "{pid: %d}", (int)v);
        write_drill(target, "      - {fault: process.kill, duration: 1s}\n");
        struct cmd_result r = mayhem();
        waitpid(v, NULL, 0);
        if (r.exit != 7 || !strstr(r.out, "1 DIRTY"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
}

static struct cmd_result mayhem_on_db(const char *const *args) {
        const char *argv[8] = { getenv("MAYHEM_BIN"), "--db", db };
        for (size_t i = 0; args[i] && i < 4; i++)
                argv[3 + i] = args[i];
        return run_command(NULL, argv);
}

/* A field of the first row of `mayhem inspect WHAT --json` ("?" when there is none); leases
 * include released ones. */
static char *first_row(const char *what, const char *field, char *buf, size_t size) {
        bool leases = strcmp(what, "leases") == 0;
        struct cmd_result r = mayhem_on_db(
                (const char *const[]){ "inspect", what, "--json", leases ? "--all" : NULL, NULL });
        json_t *rows = json_loads(r.out, 0, NULL);
        const char *v = json_string_value(json_object_get(json_array_get(rows, 0), field));
        snprintf(buf, size, "%s", v ? v : "?");
        json_decref(rows);
        cmd_result_done(&r);
        return buf;
}

/* The agent dies after pausing the victim, before its reply reaches the
 * controller (reply-loss-agent): the lease stays pending, never expired, and
 * `recover execute` undoes the pause. */
static void test_agent_lost_after_apply_is_recovered(void **state) {
        pid_t v = start_victim();
        char st[32], run_id[160];
        write_drill("{name: " NAME "}", "      - {fault: proc.pause, duration: 1s}\n");
        setenv("MAYHEM_REAL_AGENT", getenv("MAYHEM_AGENT_BIN"), 1);
        setenv("MAYHEM_AGENT", getenv("MAYHEM_REPLY_LOSS_AGENT"), 1);
        struct cmd_result r = mayhem();
        unsetenv("MAYHEM_AGENT");
        if (r.exit != 7 || !strstr(r.out, "1 ORPHANED"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_int_equal(proc_state_of(v), 'T'); /* applied, and nobody undid it */
        assert_string_equal(first_row("leases", "state", st, sizeof(st)), "pending");

        first_row("runs", "id", run_id, sizeof(run_id));
        r = mayhem_on_db((const char *const[]){ "recover", "execute", run_id, NULL });
        if (r.exit != 0)
                fail_msg("recover exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_int_equal(settled_state(v), 'S');
        assert_string_equal(first_row("leases", "state", st, sizeof(st)), "released");
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

static void test_missing_process_touches_nothing(void **state) {
        write_drill("{name: mayhem-nosuch}", "      - {fault: proc.pause, duration: 1s}\n");
        struct cmd_result r = mayhem();
        assert_int_equal(r.exit, 3);
        assert_non_null(strstr(r.err, "target 'victim': no process named 'mayhem-nosuch' runs"));
        cmd_result_done(&r);
}

/* The first line of what mayhem printed on stderr that has want in it. */
static void assert_refused(struct cmd_result *r, int exit, const char *want) {
        if (r->exit != exit || !strstr(r->err, want))
                fail_msg("exit %d (wanted %d with \"%s\")\n%s%s", r->exit, exit, want, r->out, r->err);
        print_message(
                "exit %d: %.300s", r->exit, strstr(r->err, "error:") ? strstr(r->err, "error:") : r->err);
}

static void refused_at_plan_time(const char *target, const char *want) {
        char st[32];
        write_drill(target, "      - {fault: proc.pause, duration: 1s}\n");
        struct cmd_result r = mayhem();
        assert_refused(&r, 5, want);
        cmd_result_done(&r);
        assert_string_equal(first_row("leases", "state", st, sizeof(st)), "?"); /* nothing journalled */
}

static void test_plan_refuses_protected_processes(void **state) {
        char target[64], want[256], comm[32];
        struct proc_stat st;
        FILE *f = fopen("/proc/self/comm", "re");
        assert_non_null(f);
        assert_non_null(fgets(comm, sizeof(comm), f));
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        refused_at_plan_time("{pid: 1}", "is the init process; a drill never targets it [safety.host_init]");
        snprintf(target, sizeof(target), "{pid: %d}", (int)getpid()); /* mayhem's parent */
        snprintf(
                want, sizeof(want),
                "error: safety refused: target 'victim': pid %d (%s) is the controller's parent; a drill "
                "never "
                "targets it [safety.host_mayhem]",
                (int)getpid(), comm);
        refused_at_plan_time(target, want);
        if (getppid() > 1) {
                snprintf(target, sizeof(target), "{pid: %d}", (int)getppid());
                refused_at_plan_time(target, "is an ancestor of the controller (2 generations up)");
        }
        if (proc_stat_read(2, &st) && st.ppid == 0 && proc_comm_is(2, "kthreadd")) {
                refused_at_plan_time(
                        "{pid: 2}", "pid 2 (kthreadd) is a kernel thread; a drill never targets it "
                                    "[safety.host_kernel_thread]");
                refused_at_plan_time(
                        "{name: kthreadd}", "target 'victim' (name 'kthreadd'): pid 2 (kthreadd) is a "
                                            "kernel thread");
        }
        refused_at_plan_time("{name: mayhem-agent}", "'mayhem-agent' is the name of mayhem's own program");
        snprintf(target, sizeof(target), "{name: %s}", comm); /* this test by name: unique, an ancestor */
        refused_at_plan_time(target, "is the controller's parent");
}

static struct agent_client *start_agent(const char *roles) {
        struct agent_client *a = NULL;
        struct mh_error e = { 0 };
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = roles,
                                          .run_id = "host" };
        if (agent_client_start(&o, &a, &e) < 0)
                fail_msg("agent: %s", e.msg);
        return a;
}

/* target.resolve {engine: host, pid}: the error, or 0. */
static int resolve_pid(struct agent_client *a, pid_t pid, struct mh_error *e) {
        json_t *res = NULL;
        int r = agent_client_call(
                a, "target.resolve",
                json_pack("{s:{s:s, s:i}}", "target", "engine", "host", "pid", (int)pid), 15000, &res, e);
        json_decref(res);
        return r;
}

/* A lease for proc.pause on pid as the controller would journal it. */
static json_t *pause_lease(pid_t pid) {
        struct proc_stat st = { 0 };
        static unsigned n;
        char id[32];
        assert_true(proc_stat_read(pid, &st));
        json_t *identity = json_pack(
                "{s:s, s:s, s:s, s:s, s:i, s:I}", "engine", "host", "container_id", "", "container_name",
                "x", "started_at", "", "pid", (int)pid, "pid_start_time", (json_int_t)st.start_time);
        snprintf(id, sizeof(id), "l-host%08x%04x", (unsigned)getpid(), ++n);
        json_t *l = agent_lease_new(id, "proc.pause", identity, NULL, NULL);
        json_decref(identity);
        assert_non_null(l);
        return l;
}

/* Refused by the agent, resolved or injected, with the message and the exit class the CLI gives it. */
static void agent_refuses(struct agent_client *a, pid_t pid, int exit, const char *want) {
        struct mh_error e = { 0 };
        json_t *l = pause_lease(pid);
        char before = proc_state_of(pid);
        if (resolve_pid(a, pid, &e) >= 0 || !strstr(e.msg, want) || (int)e.exit != exit)
                fail_msg(
                        "target.resolve pid %d: exit %d, %s (wanted \"%s\")", (int)pid, (int)e.exit, e.msg,
                        want);
        e = (struct mh_error){ 0 };
        if (agent_lease_call(a, l, "inject", NULL, &e) >= 0 || !strstr(e.msg, want) || (int)e.exit != exit)
                fail_msg("inject pid %d: exit %d, %s (wanted \"%s\")", (int)pid, (int)e.exit, e.msg, want);
        print_message("refused: %.300s\n", e.msg);
        usleep(50000); /* a stop, had one been sent, is delivered by now */
        /* not stopped: running or asleep as it likes (pid 1, the agent, this test change
         * between the two at any moment) */
        char after = proc_state_of(pid);
        if (after == 'T' || after == 't')
                fail_msg("pid %d was %c before the refusal and is %c after it", (int)pid, before, after);
        json_decref(l);
}

/* The agent checks on its own side: its own pid, its parent (this test,
 * standing for the controller that started it), its grandparent, pid 1,
 * kthreadd. */
static void test_agent_refuses_protected_processes(void **state) {
        struct agent_client *a = start_agent("proc,host");
        struct proc_stat st;
        agent_refuses(a, 1, 5, "is the init process: the agent never acts on it; nothing was touched");
        agent_refuses(
                a, agent_client_pid(a), 5, "(mayhem-agent) is the agent itself: the agent never acts on it");
        agent_refuses(
                a, getpid(), 5, "is the agent's parent: the agent never acts on it; nothing was touched");
        if (getppid() > 1)
                agent_refuses(a, getppid(), 5, "is an ancestor of the agent (2 generations up)");
        if (proc_stat_read(2, &st) && st.ppid == 0 && proc_comm_is(2, "kthreadd"))
                agent_refuses(a, 2, 5, "pid 2 (kthreadd) is a kernel thread: the agent never acts on it");
        a = agent_client_stop(a);
}

/* Without the host role a host process is neither resolved nor touched. */
static void test_agent_without_host_role(void **state) {
        struct agent_client *a = start_agent("proc");
        pid_t v = start_victim();
        agent_refuses(a, v, 5, "a host process: it needs role host");
        assert_int_equal(settled_state(v), 'S');
        a = agent_client_stop(a);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

static char ctr_name[64], ctr_comm[16];

static bool docker(const char *const *argv, char *out, size_t size) {
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        if (out)
                snprintf(out, size, "%s", r.out ? r.out : "");
        if (!ok)
                print_message("%s %s: exit %d %s", argv[0], argv[1], r.exit, r.err ? r.err : "");
        cmd_result_done(&r);
        return ok;
}

/* A container of this test whose main process has a name no host process
 * has: the host's static busybox mounted as /busybox-mhNNNNN (busybox runs
 * as its multiplexer under any name starting with "busybox"). Its host pid,
 * or 0 (the test is skipped) when dockerd does not answer. */
static pid_t start_container(void) {
        char vol[96], exe[24], pid[32];
        snprintf(ctr_name, sizeof(ctr_name), "mayhem-itest-host-%d", (int)getpid());
        snprintf(ctr_comm, sizeof(ctr_comm), "busybox-mh%05u", (unsigned)getpid() % 100000u);
        snprintf(vol, sizeof(vol), "/bin/busybox:/%s:ro", ctr_comm);
        snprintf(exe, sizeof(exe), "/%s", ctr_comm);
        if (!docker((const char *const[]){ "docker", "info", "-f", "{{.ID}}", NULL }, NULL, 0))
                return 0;
        assert_true(
                docker((const char *const[]){ "docker", "run", "-d", "--name", ctr_name, "-v", vol,
                                              "mayhem-test-busybox:latest", exe, "sleep", "600", NULL },
                       NULL, 0));
        assert_true(
                docker((const char *const[]){ "docker", "inspect", "-f", "{{.State.Pid}}", ctr_name, NULL },
                       pid, sizeof(pid)));
        pid_t p = (pid_t)strtol(pid, NULL, 10);
        assert_true(p > 0);
        for (double until = monotonic_ms() + 10000; !proc_comm_is(p, ctr_comm) && monotonic_ms() < until;)
                sleep_ms(5);
        if (!proc_comm_is(p, ctr_comm))
                fail_msg("%s's pid %d not named %s within 10 s", ctr_name, (int)p, ctr_comm);
        return p;
}

static int remove_container(void **state) {
        if (ctr_name[0])
                docker((const char *const[]){ "docker", "rm", "-f", ctr_name, NULL }, NULL, 0);
        ctr_name[0] = '\0';
        return reap_victims(state);
}

/* Samples a process's state every millisecond while a run goes on. */
struct watch {
        pid_t pid;
        volatile bool done;
        unsigned samples, stopped;
};

static void *watch_state(void *arg) {
        struct watch *w = arg;
        while (!w->done) {
                char st = proc_state_of(w->pid);
                w->samples++;
                w->stopped += st == 'T' || st == 't';
                usleep(1000);
        }
        return NULL;
}

static struct cmd_result run_watched(struct watch *w) {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, watch_state, w), 0);
        struct cmd_result r = mayhem();
        w->done = true;
        pthread_join(t, NULL);
        return r;
}

/* By name, a process inside a container is not a host process: the run
 * refuses before any lease and the container's process is never stopped. */
static void test_name_in_container_untouched(void **state) {
        char target[96], want[256], st[32];
        pid_t p = start_container();
        if (!p)
                skip();
        snprintf(target, sizeof(target), "{name: %s}", ctr_comm);
        write_drill(target, "      - {fault: proc.pause, duration: 2s}\n");
        struct watch w = { .pid = p };
        struct cmd_result r = run_watched(&w);
        snprintf(
                want, sizeof(want),
                "no host process named '%s' runs: pid %d of that name is in a container (or cannot be read "
                "as on "
                "the host); include_containers: true matches it",
                ctr_comm, (int)p);
        assert_refused(&r, 3, want);
        cmd_result_done(&r);
        print_message(
                "state of pid %d sampled %u times during the run: stopped %u times\n", (int)p, w.samples,
                w.stopped);
        assert_int_equal(w.stopped, 0);
        assert_int_equal(settled_state(p), 'S');
        assert_string_equal(first_row("leases", "state", st, sizeof(st)), "?");
}

/* include_containers: true lets the same name match it: paused, then continued. */
static void test_name_in_container_opt_in(void **state) {
        char target[96], want[64];
        pid_t p = start_container();
        if (!p)
                skip();
        snprintf(target, sizeof(target), "{name: %s, include_containers: true}", ctr_comm);
        write_drill(target, "      - {fault: proc.pause, duration: 1s}\n");
        struct watch w = { .pid = p };
        struct cmd_result r = run_watched(&w);
        snprintf(want, sizeof(want), "in force: process %d is stopped", (int)p);
        if (r.exit != 0 || !strstr(r.err, want))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        print_message(
                "state of pid %d sampled %u times during the run: stopped %u times\n", (int)p, w.samples,
                w.stopped);
        assert_true(w.stopped > 0);
        assert_int_equal(settled_state(p), 'S');
}

int main(void) {
        snprintf(db, sizeof(db), "/tmp/mayhem-ithost-%d.db", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/mayhem-ithost-%d.yaml", (int)getpid());
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_pause_by_name, reap_victims),
                cmocka_unit_test_teardown(test_kill_with_supervisor_verifies, reap_victims),
                cmocka_unit_test_teardown(test_kill_without_supervisor_is_dirty, reap_victims),
                cmocka_unit_test_teardown(test_missing_process_touches_nothing, reap_victims),
                cmocka_unit_test_teardown(test_agent_lost_after_apply_is_recovered, reap_victims),
                cmocka_unit_test_teardown(test_plan_refuses_protected_processes, reap_victims),
                cmocka_unit_test_teardown(test_agent_refuses_protected_processes, reap_victims),
                cmocka_unit_test_teardown(test_agent_without_host_role, reap_victims),
                cmocka_unit_test_teardown(test_name_in_container_untouched, remove_container),
                cmocka_unit_test_teardown(test_name_in_container_opt_in, remove_container),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        unlink(drill);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char path[80];
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
        return failed;
}
