/* The resilience score itself: pure functions over counts (resilience.h). */

#include "resilience.h"

#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

#define W_FIDELITY   0.35
#define W_RECOVERY   0.35
#define W_REDUNDANCY 0.30

char resilience_grade(int score, const char **ret_label) {
        static const struct {
                int min;
                char grade;
                const char *label;
        } grades[] = {
                { 90, 'A', "resilient" }, { 75, 'B', "solid" },          { 60, 'C', "acceptable" },
                { 45, 'D', "fragile" },   { 0, 'F', "needs attention" },
        };
        for (size_t i = 0; i < ELEMENTSOF(grades) - 1; i++)
                if (score >= grades[i].min) {
                        *ret_label = grades[i].label;
                        return grades[i].grade;
                }
        *ret_label = grades[ELEMENTSOF(grades) - 1].label;
        return 'F';
}

static void note(struct resilience_score *s, const char *what) {
        size_t n = strlen(s->omitted);
        snprintf(s->omitted + n, sizeof(s->omitted) - n, "%s%s", n ? "; " : "", what);
}

static void recovery(const struct resilience_input *in, struct resilience_score *s) {
        if (!in->end_state_known) {
                note(s, "recovery omitted: the run recorded no end state of its targets");
                return;
        }
        double v = 1.0;
        if (in->leases_dirty)
                v -= 0.5;
        if (in->targeted)
                v -= 0.5 * (double)in->dead / (double)in->targeted;
        s->has_recovery = true;
        s->recovery = v < 0 ? 0 : v;
        if (in->unknown)
                note(s, "recovery: the end state of some targets could not be read; they are not counted");
}

static void redundancy(const struct resilience_input *in, struct resilience_score *s) {
        if (!in->end_state_known || in->groups_faulted == 0) {
                note(s, in->end_state_known ? "redundancy omitted: no faulted container belongs to a "
                                              "compose service"
                                            : "redundancy omitted: no end state recorded");
                return;
        }
        s->has_redundancy = true;
        s->redundancy = (double)in->groups_with_survivor / (double)in->groups_faulted;
}

void resilience_score(const struct resilience_input *in, struct resilience_score *ret) {
        struct resilience_score s = { .grade = '-', .label = "not measurable" };
        double sum = 0, weights = 0;
        if (in->steps_executed) {
                s.has_fidelity = true;
                s.fidelity = (double)MIN(in->steps_ok, in->steps_executed) / (double)in->steps_executed;
                sum += W_FIDELITY * s.fidelity;
                weights += W_FIDELITY;
        } else
                note(&s, "fidelity omitted: no step was executed");
        recovery(in, &s);
        if (s.has_recovery) {
                sum += W_RECOVERY * s.recovery;
                weights += W_RECOVERY;
        }
        redundancy(in, &s);
        if (s.has_redundancy) {
                sum += W_REDUNDANCY * s.redundancy;
                weights += W_REDUNDANCY;
        }
        if (weights > 0) {
                s.has_score = true;
                s.score = (int)(100.0 * sum / weights + 0.5); /* round half up: the sum is never negative */
                s.grade = resilience_grade(s.score, &s.label);
        }
        *ret = s;
}

static json_t *component(bool has, double value, double weight) {
        return has ? json_pack("{s:f, s:f}", "value", value, "weight", weight) : json_null();
}

json_t *resilience_score_json(const struct resilience_input *in, const struct resilience_score *s) {
        char grade[2] = { s->grade, '\0' };
        return json_pack(
                "{s:o, s:s, s:s, s:{s:o, s:o, s:o}, s:o, s:{s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, "
                "s:I}}",
                "score", s->has_score ? json_integer(s->score) : json_null(), "grade", grade, "label",
                s->label, "components", "fidelity", component(s->has_fidelity, s->fidelity, W_FIDELITY),
                "recovery", component(s->has_recovery, s->recovery, W_RECOVERY), "redundancy",
                component(s->has_redundancy, s->redundancy, W_REDUNDANCY), "omitted",
                s->omitted[0] ? json_string(s->omitted) : json_null(), "measured", "steps_ok",
                (json_int_t)in->steps_ok, "steps_executed", (json_int_t)in->steps_executed, "leases_dirty",
                (json_int_t)in->leases_dirty, "end_state_known", in->end_state_known, "targeted",
                (json_int_t)in->targeted, "dead", (json_int_t)in->dead, "unknown", (json_int_t)in->unknown,
                "groups_faulted", (json_int_t)in->groups_faulted, "groups_with_survivor",
                (json_int_t)in->groups_with_survivor, "groups_single", (json_int_t)in->groups_single);
}

void resilience_line(const struct resilience_score *s, char *buf, size_t size) {
        char parts[3][32] = { "fidelity omitted", "recovery omitted", "redundancy omitted" };
        if (s->has_fidelity)
                snprintf(parts[0], sizeof(parts[0]), "fidelity %.2f", s->fidelity);
        if (s->has_recovery)
                snprintf(parts[1], sizeof(parts[1]), "recovery %.2f", s->recovery);
        if (s->has_redundancy)
                snprintf(parts[2], sizeof(parts[2]), "redundancy %.2f", s->redundancy);
        if (s->has_score)
                snprintf(
                        buf, size, "%d (%c, %s): %s, %s, %s%s%s%s", s->score, s->grade, s->label, parts[0],
                        parts[1], parts[2], s->omitted[0] ? " (" : "", s->omitted, s->omitted[0] ? ")" : "");
        else
                snprintf(buf, size, "not measurable (%s)", s->omitted);
}
