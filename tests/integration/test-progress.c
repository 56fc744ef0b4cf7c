/* The run's progress as a person sees it (issue 15, item 2): `mayhem run`
 * on a pseudo-terminal draws a live line per fault in flight (its target,
 * phase and the seconds left in its hold) and the last probe's result,
 * erased and redrawn with cursor moves; with stderr on a pipe the same run
 * prints the plain time-stamped lines and no escape sequence; with --json
 * it prints no step line at all. The target is a sleep process of the
 * test's own, paused 3 s (proc.pause). Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/run-command.h"

/* /tmp/pg15-progress-PID.{yaml,db}: two checkouts' runs never share them. */
static char drill[64], db[64];
static pid_t sleeper;

static void remove_files(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        char path[80];
        unlink(drill);
        for (size_t i = 0; i < 3; i++) {
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
}

static void write_drill(void) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: pg15-progress\ntargets:\n  w:\n    runtime: process\n"
                "    process: {pid: %d}\n    faults: [{fault: proc.pause, duration: 3s}]\n"
                "execution:\n  - sequential: [w]\n"
                "observability:\n  sources:\n    - kind: probe\n      source_id: poll\n"
                "      probe: {type: tcp, host: 127.0.0.1, port: 1, timeout: 1s}\n      cadence: 500ms\n",
                (int)sleeper);
        assert_int_equal(fclose(f), 0);
}

/* mayhem run with its stdout and stderr on a new pseudo-terminal: all it
 * wrote there (malloc()ed), within 60 s. */
static char *run_on_pty(void) {
        int master = -1;
        pid_t pid = forkpty(&master, NULL, NULL, NULL);
        assert_true(pid >= 0);
        if (pid == 0) {
                setenv("TERM", "xterm", 1);
                execl(getenv("MAYHEM_BIN"), "mayhem", "--db", db, "run", drill, "--execute", (char *)NULL);
                _exit(127);
        }
        size_t len = 0, cap = 1 << 16;
        char *out = malloc(cap);
        assert_non_null(out);
        double deadline = monotonic_ms() + 60000;
        for (;;) {
                struct pollfd p = { .fd = master, .events = POLLIN };
                if (monotonic_ms() > deadline || poll(&p, 1, 1000) < 0)
                        break;
                if (!(p.revents & (POLLIN | POLLHUP)))
                        continue;
                if (len + 4096 > cap && !(out = realloc(out, cap *= 2)))
                        fail_msg("out of memory");
                ssize_t n = read(master, out + len, 4096);
                if (n <= 0)
                        break; /* EIO: the child closed the terminal */
                len += (size_t)n;
        }
        out[len] = '\0';
        close(master);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return out;
}

static void test_live_block_on_a_terminal(void **state) {
        (void)state;
        write_drill();
        char *out = run_on_pty();
        const char *hold = strstr(out, "proc.pause on pid");
        print_message(
                "%zu bytes on the terminal; first live line: %.80s\n", strlen(out), hold ? hold : "none");
        assert_non_null(strstr(out, "~ f-0001 proc.pause on pid"));
        assert_non_null(strstr(out, "in force, 3s left of the hold"));
        assert_non_null(strstr(out, "in force, 1s left of the hold"));
        assert_non_null(strstr(out, "undoing and verifying"));
        assert_non_null(strstr(out, "last probe: poll FAIL"));
        assert_non_null(strstr(out, "\033[1A\033[2K")); /* the block is erased before a plain line */
        assert_non_null(strstr(out, "undone and verified"));
        free(out);
}

static void test_plain_lines_on_a_pipe(void **state) {
        (void)state;
        write_drill();
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute", NULL });
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.err, "-> step 0: sequential w"));
        assert_null(strstr(r.err, "\033["));
        assert_null(strstr(r.err, "left of the hold"));
        cmd_result_done(&r);
        r = run_command(
                NULL, (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute",
                                             "--json", NULL });
        assert_int_equal(r.exit, 0);
        assert_null(strstr(r.err, "-> step"));
        assert_non_null(strstr(r.out, "\"run_id\""));
        cmd_result_done(&r);
}

int main(void) {
        if (geteuid() != 0)
                return 77;
        snprintf(drill, sizeof(drill), "/tmp/pg15-progress-%d.yaml", (int)getpid());
        snprintf(db, sizeof(db), "/tmp/pg15-progress-%d.db", (int)getpid());
        remove_files();
        sleeper = fork();
        if (sleeper == 0) {
                execl("/bin/sleep", "sleep", "600", (char *)NULL);
                _exit(127);
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_live_block_on_a_terminal),
                cmocka_unit_test(test_plain_lines_on_a_pipe),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        kill(sleeper, SIGKILL);
        waitpid(sleeper, NULL, 0);
        remove_files();
        return failed;
}
