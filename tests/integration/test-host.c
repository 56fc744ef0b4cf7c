#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

static char victim_state(pid_t pid) {
        char path[64], buf[512];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "re");
        size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f)
                fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : '-';
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
        assert_true(victim_state(v) == 'S');
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
                cmocka_unit_test(test_pause_by_name),
                cmocka_unit_test(test_kill_with_supervisor_verifies),
                cmocka_unit_test(test_kill_without_supervisor_is_dirty),
                cmocka_unit_test(test_missing_process_touches_nothing),
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
