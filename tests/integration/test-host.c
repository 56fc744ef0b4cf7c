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

#include "common/proc-stat.h"
#include "common/run-command.h"

/* Faults on a plain host process (no engine at all): a child of this test
 * with a name of its own is paused by name and by pid, and killed; with a
 * supervisor (this test restarting it) the kill verifies, without one the
 * lease is dirty and the run exits 7. */

#define NAME "mayhem-itproc"

static char db[64], drill[64];

static pid_t start_victim(void) {
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_NAME, NAME);
                for (;;)
                        pause();
        }
        return pid;
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
        assert_true(proc_state_of(v) == 'S');
        cmd_result_done(&r);
        kill(v, SIGKILL);
        waitpid(v, NULL, 0);
}

/* The test plays the supervisor: when the victim dies, a new one with the same name starts. */
static void *supervise(void *arg) {
        pid_t *v = arg;
        waitpid(*v, NULL, 0);
        *v = start_victim();
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
        assert_int_equal(proc_state_of(v), 'S');
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

int main(void) {
        snprintf(db, sizeof(db), "/tmp/mayhem-ithost-%d.db", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/mayhem-ithost-%d.yaml", (int)getpid());
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_pause_by_name, reap_victims),
                cmocka_unit_test_teardown(test_kill_with_supervisor_verifies, reap_victims),
                cmocka_unit_test_teardown(test_kill_without_supervisor_is_dirty, reap_victims),
                cmocka_unit_test_teardown(test_missing_process_touches_nothing, reap_victims),
                cmocka_unit_test_teardown(test_agent_lost_after_apply_is_recovered, reap_victims),
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
