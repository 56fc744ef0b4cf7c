/* Feeds arbitrary JSON to what reads a run's record back out of the
 * evidence database (src/evidence/run-record.h, resilience.h): `verify`'s
 * checks, `inspect run`'s story, and the end-state payload the resilience
 * score counts. The database is a file anyone with write access may edit.
 *
 * Checks: the score stays in 0..100 with a grade that matches it; the
 * counts never exceed what they count; verify fails at most every check it
 * made; the line of the score prints without overflow. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "evidence/resilience.h"
#include "evidence/run-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void score(const json_t *payload) {
        struct resilience_input in = { .steps_ok = 1, .steps_executed = 1 };
        struct resilience_score s;
        char line[512];
        const char *label = NULL;
        resilience_count_end_state(payload, &in);
        assert(in.dead <= in.targeted);
        assert(in.groups_with_survivor + in.groups_single <= in.groups_faulted);
        resilience_score(&in, &s);
        assert(!s.has_score || (s.score >= 0 && s.score <= 100));
        assert(!s.has_score || resilience_grade(s.score, &label) == s.grade);
        resilience_line(&s, line, sizeof(line));
        assert(strlen(line) < sizeof(line));
        json_decref(resilience_score_json(&in, &s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        json_t *record = json_loadb((const char *)data, size, 0, NULL);
        size_t failed = 0;
        if (!record)
                return 0;
        score(record);
        json_t *checks = run_verify_json(record, &failed);
        assert(!checks || failed <= json_array_size(checks));
        json_decref(checks);
        json_decref(run_story_json(record));
        json_decref(record);
        return 0;
}
