#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "run/run.h"

/* docs/drill-format.md "Status, verdict and exit code", read as the test's
 * table: every row's cause is made to hold, alone, on a run result; the
 * settled status, verdict and exit code must be the row's. */

struct cause {
        const char *name; /* the cause column, up to its ':' */
        struct run_result r;
};

static const struct cause causes[] = {
        { "dirty", { .status = RUN_STATUS_FAILED, .leases_dirty = 1, .faults_attempted = 1 } },
        { "orphaned", { .status = RUN_STATUS_FAILED, .leases_orphaned = 1, .faults_attempted = 1 } },
        { "evidence lost after inject",
          { .status = RUN_STATUS_FAILED, .evidence_lost = true, .faults_attempted = 1 } },
        { "evidence lost before inject", { .status = RUN_STATUS_FAILED, .evidence_lost = true } },
        { "refused", { .status = RUN_STATUS_FAILED, .refused = true } },
        { "error", { .status = RUN_STATUS_FAILED, .verdict = VERDICT_PASS } },
        { "interrupted", { .status = RUN_STATUS_ABORTED, .verdict = VERDICT_PASS } },
        { "criteria failed", { .status = RUN_STATUS_COMPLETED, .verdict = VERDICT_FAIL } },
        { "criteria held", { .status = RUN_STATUS_COMPLETED, .verdict = VERDICT_PASS } },
        { "no criteria", { .status = RUN_STATUS_COMPLETED, .verdict = VERDICT_UNDECIDED } },
};

static const struct cause *cause_named(const char *name, size_t len) {
        for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
                if (strlen(causes[i].name) == len && strncmp(causes[i].name, name, len) == 0)
                        return &causes[i];
        return NULL;
}

/* "| `failed` | `undecided` | dirty: ... | 7 |" -> its four cells. */
static int row_cells(const char *line, char cells[4][160]) {
        int n = 0;
        const char *p = line + 1;
        while (n < 4 && *p) {
                const char *end = strchr(p, '|');
                if (!end)
                        return -1;
                while (*p == ' ' || *p == '`')
                        p++;
                size_t len = (size_t)(end - p);
                while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '`'))
                        len--;
                snprintf(cells[n++], 160, "%.*s", (int)len, p);
                p = end + 1;
        }
        return n == 4 ? 0 : -1;
}

static void test_table_holds(void **state) {
        char path[4096], *doc = NULL;
        size_t size;
        struct mh_error e = { 0 };
        (void)state;
        snprintf(path, sizeof(path), "%s/docs/drill-format.md", getenv("MAYHEM_SOURCE_ROOT"));
        assert_int_equal(read_file_bounded(path, 1 << 20, &doc, &size, &e), 0);
        const char *table = strstr(doc, "| status | verdict | cause | exit |");
        assert_non_null(table);
        size_t rows = 0;
        for (const char *line = strchr(table, '\n') + 1; *line == '|'; line = strchr(line, '\n') + 1) {
                char cells[4][160];
                if (strncmp(line, "|---", 4) == 0)
                        continue;
                assert_int_equal(row_cells(line, cells), 0);
                const char *colon = strchr(cells[2], ':');
                const struct cause *c =
                        cause_named(cells[2], colon ? (size_t)(colon - cells[2]) : strlen(cells[2]));
                if (!c)
                        fail_msg("no such cause in the test: %s", cells[2]);
                struct run_result r = c->r;
                run_outcome_settle(&r);
                assert_string_equal(run_status_to_string(r.status), cells[0]);
                assert_string_equal(verdict_to_string(r.verdict), cells[1]);
                assert_int_equal(run_exit_code(&r), strtol(cells[3], NULL, 10));
                rows++;
        }
        assert_int_equal(rows, sizeof(causes) / sizeof(causes[0])); /* every cause has its row */
        free(doc);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_holds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
