#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "common/proc-stat.h"
#include "common/run-command.h"
#include "basic/clock.h"
#include "demo-harness.h" /* demo_wait_exit(), inline: this test does not link the harness */

/* The journal fails under a run. Every write a one-fault run makes is
 * failed in turn (faulty-journal-mayhem: the real CLI with sqlite3_step
 * wrapped), and a real database is locked, filled (a full tmpfs), deleted
 * and replaced while the fault is held. Each time the victim, a host
 * process of this test, runs again afterwards; the run exits 3 when nothing
 * was touched yet and 7 after, never says "completed"; and `mayhem janitor
 * --execute` then leaves no open lease. No engine is needed. */

#define NAME "mayhem-itjrnl"

static char dir[] = "/tmp/mh-journal-XXXXXX", db[200], drill[128], log_path[128];
static pid_t victim;

static pid_t start_victim(void) {
        pid_t pid = fork();
        if (pid == 0) {
                prctl(PR_SET_NAME, NAME);
                for (int fd = 3; fd < 1024; fd++)
                        close(fd);
                for (;;)
                        pause();
        }
        return pid;
}

/* proc.pause on the victim for hold_s, its process probed every 200 ms
 * (the writes while it is held). */
static void write_drill(int hold_s) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: journal\nconfig: {risk_ceiling: high}\ntargets:\n  victim:\n"
                "    runtime: process\n    process: {pid: %d}\n    faults:\n"
                "      - {fault: proc.pause, duration: %ds}\n"
                "observability:\n  sources:\n    - kind: probe\n      source_id: victim-seen\n"
                "      probe: {type: process, pid: %d}\n      cadence: 200ms\n"
                "execution:\n  - sequential: [victim]\n",
                (int)victim, hold_s, (int)victim);
        fclose(f);
}

static struct cmd_result mayhem_with(const char *bin, const char *const *args) {
        const char *argv[12] = { bin, "--db", db };
        for (size_t i = 0; args[i] && i < 8; i++)
                argv[3 + i] = args[i];
        return run_command(NULL, argv);
}

static struct cmd_result mayhem(const char *const *args) {
        return mayhem_with(getenv("MAYHEM_BIN"), args);
}

/* The journal agrees with the victim: janitor --execute exits 0 and leaves
 * no open lease, and the victim is not stopped. */
static void assert_consistent(const char *when) {
        struct cmd_result r = mayhem((const char *const[]){ "janitor", "--execute", NULL });
        if (r.exit != 0)
                fail_msg("%s: janitor --execute exit %d\n%s%s", when, r.exit, r.out, r.err);
        cmd_result_done(&r);
        r = mayhem((const char *const[]){ "inspect", "leases", "--json", NULL });
        json_t *open = json_loads(r.out ? r.out : "", 0, NULL);
        if (!json_is_array(open) || json_array_size(open) != 0)
                fail_msg("%s: open leases after the janitor: %s", when, r.out);
        json_decref(open);
        cmd_result_done(&r);
        if (proc_state_of(victim) == 'T')
                fail_msg("%s: the victim is still stopped", when);
}

static void assert_honest(const struct cmd_result *r, const char *when) {
        if (strstr(r->out, "**status**: completed"))
                fail_msg("%s: says completed\n%s%s", when, r->out, r->err);
}

/* ---- every write point, failed in turn ---------------------------------- */

/* A fresh store with its schema: the points tried are the run's writes. */
static void fresh_store(void) {
        unlink(db);
        struct cmd_result r = mayhem((const char *const[]){ "janitor", NULL });
        assert_int_equal(r.exit, 0);
        cmd_result_done(&r);
}

/* The faulty mayhem, counting the writes it stepped: *ret_writes. */
static struct cmd_result counted_run(unsigned long *ret_writes) {
        char count_file[160];
        snprintf(count_file, sizeof(count_file), "%s/writes", dir);
        unlink(count_file);
        setenv("MAYHEM_COUNT_WRITES", count_file, 1);
        struct cmd_result r = mayhem_with(
                getenv("MAYHEM_FAULTY_JOURNAL"), (const char *const[]){ "run", drill, "--execute", NULL });
        unsetenv("MAYHEM_COUNT_WRITES");
        FILE *f = fopen(count_file, "re");
        assert_non_null(f);
        assert_int_equal(fscanf(f, "%lu", ret_writes), 1);
        fclose(f);
        return r;
}

static unsigned long writes_of_a_run(void) {
        unsigned long n = 0;
        struct cmd_result r = counted_run(&n);
        if (r.exit != 0)
                fail_msg("the clean run: exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        return n;
}

static void test_every_write_fails(void **state) {
        (void)state;
        fresh_store();
        write_drill(1);
        /* The observer's samples make the count vary by a few from run to
         * run (fewer on a loaded machine): the points tried are those the
         * fewest-writing of three clean runs reached, and a point a run did
         * not reach is counted apart, never judged. */
        unsigned long n = 0, before = 0, after = 0, unreached = 0;
        for (int i = 0; i < 3; i++) {
                fresh_store();
                unsigned long w = writes_of_a_run();
                print_message("clean run %d: %lu writes\n", i + 1, w);
                n = i == 0 || w < n ? w : n;
        }
        assert_true(n > 5 && n < 500);
        double t0 = monotonic_ms();
        for (unsigned long k = 1; k <= n; k++) {
                char spec[32], when[48];
                snprintf(
                        spec, sizeof(spec), "%lu:%s", k,
                        k % 3 == 0   ? "full"
                        : k % 3 == 1 ? "ioerr"
                                     : "busy");
                snprintf(when, sizeof(when), "write %lu of %lu failed", k, n);
                fresh_store();
                setenv("MAYHEM_FAIL_WRITE", spec, 1);
                unsigned long stepped = 0;
                struct cmd_result r = counted_run(&stepped);
                unsetenv("MAYHEM_FAIL_WRITE");
                if (stepped < k && r.exit == 0) {
                        unreached++;
                        cmd_result_done(&r);
                        continue;
                }
                if (r.exit != 3 && r.exit != 7)
                        fail_msg("%s: exit %d\n%s%s", when, r.exit, r.out, r.err);
                assert_honest(&r, when);
                before += r.exit == 3, after += r.exit == 7;
                cmd_result_done(&r);
                assert_consistent(when);
        }
        print_message(
                "%lu writes in a run, each failed in turn (%.0f s): %lu refused before anything was "
                "touched (exit 3), %lu undone (exit 7), %lu not reached by that run; the victim running "
                "and no open lease after every one\n",
                n, (monotonic_ms() - t0) / 1000, before, after, unreached);
        assert_true(unreached <= 5);
}

/* ---- a real store failing while the fault is held ------------------------- */

static pid_t spawn_run(void) {
        pid_t pid = fork();
        if (pid == 0) {
                int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                dup2(fd, 1);
                dup2(fd, 2);
                const char *bin = getenv("MAYHEM_BIN");
                execl(bin, bin, "--db", db, "run", drill, "--execute", (char *)NULL);
                _exit(127);
        }
        return pid;
}

static char *run_log(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "cat", log_path, NULL });
        char *out = strdup(r.out ? r.out : "");
        cmd_result_done(&r);
        return out;
}

static void wait_in_force(pid_t pid) {
        for (double until = monotonic_ms() + 15000; monotonic_ms() < until; sleep_ms(50)) {
                char *log = run_log();
                bool yes = strstr(log, "in force:") != NULL;
                free(log);
                if (yes && proc_state_of(victim) == 'T')
                        return;
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        break;
        }
        char *log = run_log();
        fail_msg("the fault never came into force:\n%s", log);
}

/* Waits for the run to end (60 s at most: the busy timeout is 5 s, the
 * undo a second); its exit status, the victim running by then. */
static int run_exit(pid_t pid, double *ret_ms) {
        double t0 = monotonic_ms();
        int code = demo_wait_exit(pid, 60000);
        *ret_ms = monotonic_ms() - t0;
        char *log = run_log();
        if (code < 0)
                fail_msg("the run did not end within 60 s:\n%s", log);
        if (proc_state_of(victim) == 'T')
                fail_msg("the run exited and the victim is still stopped:\n%s", log);
        if (strstr(log, "**status**: completed"))
                fail_msg("says completed:\n%s", log);
        if (!strstr(log, "[EVIDENCE]"))
                fail_msg("no [EVIDENCE] line:\n%s", log);
        free(log);
        return code;
}

/* A connection of ours holding the write lock, as another writer would.
 * The run writes every 200 ms: taking the lock waits out a write in flight,
 * as a writer with a busy timeout does. */
static sqlite3 *lock_store(void) {
        sqlite3 *h = NULL;
        assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
        assert_int_equal(sqlite3_busy_timeout(h, 5000), SQLITE_OK);
        assert_int_equal(sqlite3_exec(h, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
        return h;
}

static void test_locked_before_and_during(void **state) {
        (void)state;
        unlink(db);
        write_drill(30);
        struct cmd_result r = mayhem((const char *const[]){ "janitor", NULL }); /* creates it */
        cmd_result_done(&r);
        sqlite3 *h = lock_store();
        r = mayhem((const char *const[]){ "run", drill, "--execute", NULL });
        if (r.exit != 3 || !strstr(r.err, "is locked by another process"))
                fail_msg("run on a locked store: exit %d\n%s%s", r.exit, r.out, r.err);
        print_message("locked before the run: exit 3: %s", strstr(r.err, "error"));
        cmd_result_done(&r);
        sqlite3_close(h);

        pid_t run = spawn_run();
        wait_in_force(run);
        h = lock_store();
        double t0 = monotonic_ms(), ms;
        while (proc_state_of(victim) == 'T' && monotonic_ms() - t0 < 20000)
                sleep_ms(20);
        double resumed = monotonic_ms() - t0;
        sqlite3_close(h);
        assert_int_equal(run_exit(run, &ms), 7);
        print_message(
                "locked while held: the victim running again %.0f ms after the lock (the busy "
                "timeout is 5 s), exit 7\n",
                resumed);
        assert_consistent("after the lock");
}

static void test_full_store(void **state) {
        (void)state;
        char filler[160];
        snprintf(filler, sizeof(filler), "%s/tmpfs/filler", dir);
        write_drill(30);
        pid_t run = spawn_run();
        wait_in_force(run);
        int fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        static char block[1 << 16];
        while (write(fd, block, sizeof(block)) > 0)
                ;
        double ms;
        assert_int_equal(run_exit(run, &ms), 7);
        print_message("tmpfs full while held: the victim running again and exit 7 after %.0f ms\n", ms);
        close(fd);
        unlink(filler);
        assert_consistent("after the full tmpfs");
}

static void test_store_deleted_or_replaced(void **state) {
        (void)state;
        write_drill(30);
        for (int replace = 0; replace < 2; replace++) {
                char other[160];
                snprintf(other, sizeof(other), "%s/tmpfs/other.db", dir); /* rename(2) stays on one fs */
                pid_t run = spawn_run();
                wait_in_force(run);
                if (replace) {
                        struct cmd_result c =
                                run_command(NULL, (const char *const[]){ "cp", db, other, NULL });
                        cmd_result_done(&c);
                        assert_int_equal(rename(other, db), 0);
                } else
                        assert_int_equal(unlink(db), 0);
                double ms;
                assert_int_equal(run_exit(run, &ms), 7);
                char *log = run_log();
                if (!strstr(log,
                            replace ? "was replaced while it was open" : "was deleted while it was open"))
                        fail_msg("no reason:\n%s", log);
                free(log);
                print_message(
                        "store %s while held: the victim running again and exit 7 after %.0f ms\n",
                        replace ? "replaced" : "deleted", ms);
                assert_consistent(replace ? "after the replace" : "after the delete");
        }
}

static void test_read_only_store(void **state) {
        (void)state;
        char rodir[160];
        snprintf(rodir, sizeof(rodir), "%s/ro", dir);
        snprintf(db, sizeof(db), "%s/ro/mayhem.db", dir);
        mkdir(rodir, 0700);
        struct cmd_result r = mayhem((const char *const[]){ "janitor", NULL });
        cmd_result_done(&r);
        assert_int_equal(mount(rodir, rodir, NULL, MS_BIND, NULL), 0);
        assert_int_equal(mount(NULL, rodir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
        write_drill(1);
        r = mayhem((const char *const[]){ "run", drill, "--execute", NULL });
        umount2(rodir, MNT_DETACH);
        if (r.exit != 3 || !strstr(r.err, "mayhem.db"))
                fail_msg("run on a read-only store: exit %d\n%s%s", r.exit, r.out, r.err);
        assert_int_not_equal(proc_state_of(victim), 'T');
        print_message("read-only store: exit 3: %s", strstr(r.err, "error"));
        cmd_result_done(&r);
}

static int setup(void **state) {
        (void)state;
        if (geteuid() != 0 || !getenv("MAYHEM_FAULTY_JOURNAL") || !getenv("MAYHEM_AGENT_BIN"))
                return -1;
        setenv("MAYHEM_AGENT", getenv("MAYHEM_AGENT_BIN"), 1); /* the faulty CLI is not beside it */
        if (!mkdtemp(dir))
                return -1;
        char tmpfs[160];
        snprintf(tmpfs, sizeof(tmpfs), "%s/tmpfs", dir);
        mkdir(tmpfs, 0700);
        if (mount("mh-journal", tmpfs, "tmpfs", 0, "size=4m") < 0)
                return -1;
        snprintf(db, sizeof(db), "%s/mayhem.db", tmpfs);
        snprintf(drill, sizeof(drill), "%s/drill.yaml", dir);
        snprintf(log_path, sizeof(log_path), "%s/run.log", dir);
        victim = start_victim();
        return victim > 0 ? 0 : -1;
}

static int teardown(void **state) {
        (void)state;
        char tmpfs[160];
        if (victim > 0) {
                kill(victim, SIGKILL);
                waitpid(victim, NULL, 0);
        }
        snprintf(tmpfs, sizeof(tmpfs), "%s/tmpfs", dir);
        umount2(tmpfs, MNT_DETACH);
        struct cmd_result r = run_command(NULL, (const char *const[]){ "rm", "-rf", dir, NULL });
        cmd_result_done(&r);
        return 0;
}

int main(void) {
        if (geteuid() != 0)
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_write_fails), cmocka_unit_test(test_locked_before_and_during),
                cmocka_unit_test(test_full_store),        cmocka_unit_test(test_store_deleted_or_replaced),
                cmocka_unit_test(test_read_only_store),
        };
        if (getenv("MH_TEST_FILTER"))
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        return cmocka_run_group_tests(tests, setup, teardown);
}
