/* mayhem whose journal fails on purpose (test-journal): the real CLI,
 * linked with -Wl,--wrap=sqlite3_step, so the Nth statement the evidence
 * layer steps that writes (INSERT, UPDATE, DELETE) fails as SQLite fails
 * one, without running: MAYHEM_FAIL_WRITE=N[:full|ioerr|busy] (default
 * ioerr). The evidence code above it is the production code, unchanged.
 * MAYHEM_COUNT_WRITES=FILE: the number of writes stepped, written to FILE
 * at exit (how a test learns how many points it has to try). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int __real_sqlite3_step(sqlite3_stmt *st);
int __wrap_sqlite3_step(sqlite3_stmt *st);

static unsigned long writes, fail_at;
static int fail_rc = SQLITE_IOERR;

int __wrap_sqlite3_step(sqlite3_stmt *st) {
        if (!sqlite3_stmt_readonly(st) && ++writes == fail_at)
                return fail_rc;
        return __real_sqlite3_step(st);
}

static void count_writes(void) {
        FILE *f = fopen(getenv("MAYHEM_COUNT_WRITES"), "w");
        if (f) {
                fprintf(f, "%lu\n", writes);
                fclose(f);
        }
}

int main(int argc, char **argv) {
        const char *spec = getenv("MAYHEM_FAIL_WRITE");
        if (spec) {
                char *end;
                fail_at = strtoul(spec, &end, 10);
                fail_rc = strcmp(end, ":full") == 0   ? SQLITE_FULL
                          : strcmp(end, ":busy") == 0 ? SQLITE_BUSY
                                                      : SQLITE_IOERR;
        }
        if (getenv("MAYHEM_COUNT_WRITES"))
                atexit(count_writes);
        return cli_main(argc, argv);
}
