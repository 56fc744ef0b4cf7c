#include "run.h"

#include "basic/strbuf.h"
#include "steady-state.h"

#define SUMMARY_MAX (256u * 1024u)

/* "**slo**: ALL PASS|FAILED" and a line per SLO. */
static void run_summary_slos(struct strbuf *b, const struct run_result *r) {
        size_t passed = 0;
        for (size_t i = 0; i < r->n_slos; i++)
                passed += r->slos[i].passed;
        if (r->n_slos)
                strbuf_printf(b, "**slo**: %s\n", passed == r->n_slos ? "ALL PASS" : "FAILED");
        for (size_t i = 0; i < r->n_slos; i++)
                strbuf_printf(
                        b, "- [%s] %s %s\n", r->slos[i].passed ? "PASS" : "FAIL", r->slos[i].slo->name,
                        r->slos[i].detail);
}

/* A failed assertion: FAIL when critical, WARN for a warning, INFO. */
static const char *ss_word(const struct ss_evaluation *e) {
        if (e->passed)
                return "PASS";
        return e->signal->severity == SEVERITY_CRITICAL  ? "FAIL"
               : e->signal->severity == SEVERITY_WARNING ? "WARN"
                                                         : "INFO";
}

/* "**steady state**: ALL PASS|FAILED" and a line per (phase, assertion, signal). */
static void run_summary_steady(struct strbuf *b, const struct run_result *r) {
        bool failed = false;
        for (size_t i = 0; i < r->n_ss; i++)
                failed = failed || (!r->ss[i].passed && r->ss[i].signal->severity == SEVERITY_CRITICAL);
        if (r->n_ss)
                strbuf_printf(b, "**steady state**: %s\n", failed ? "FAILED" : "ALL PASS");
        for (size_t i = 0; i < r->n_ss; i++) {
                const struct ss_evaluation *e = &r->ss[i];
                const char *v = ss_verdict_to_string(e->verdict);
                strbuf_printf(
                        b, "- [%s] %s %s %s: %s (%s; %zu samples)\n", ss_word(e),
                        ss_phase_to_string(e->phase), ss_assertion_to_string(e->assertion), e->signal->name,
                        v ? v : "insufficient", e->reason, e->samples);
        }
}

/* The reference's "A Run in One Screen" (mayhem-spec.md §2.7). */
char *run_summary_markdown(const struct plan *pl, const struct run_result *r) {
        struct strbuf b = STRBUF_INIT(SUMMARY_MAX);
        size_t passed = 0;
        for (size_t i = 0; i < r->n_criteria; i++)
                passed += r->criteria[i].satisfied;

        strbuf_printf(
                &b, "# Run %s\n**status**: %s\n**verdict**: %s\n", r->run_id,
                run_status_to_string(r->status), verdict_to_string(r->verdict));
        if (r->reason[0])
                strbuf_printf(&b, "**reason**: %s\n", r->reason);
        if (r->n_criteria)
                strbuf_printf(
                        &b, "**success criteria**: %s\n", passed == r->n_criteria ? "ALL PASS" : "FAILED");
        for (size_t i = 0; i < r->n_criteria; i++) {
                const struct criterion_result *c = &r->criteria[i];
                const char *word = c->satisfied ? "PASS" : "FAIL";
                strbuf_printf(
                        &b, "- [%s] %s:%s %s (%s)\n", word, criterion_type_to_string(c->criterion->type),
                        c->criterion->source_id, word, c->detail);
        }
        run_summary_slos(&b, r);
        run_summary_steady(&b, r);
        strbuf_printf(
                &b,
                "**faults**: %zu planned, %zu injected, %zu in force (%zu proven, %zu not observable), "
                "%zu undone and verified",
                pl->n_faults, r->faults_injected, r->faults_in_force, r->faults_proven, r->faults_unobserved,
                r->faults_released);
        if (r->faults_bypassed)
                strbuf_printf(
                        &b,
                        ", %zu bypassed (no way to deliver them on the agent's kernel: not injected, not "
                        "covered by the verdict; --skip-gate attempts them)",
                        r->faults_bypassed);
        if (r->faults_skipped)
                strbuf_printf(&b, ", %zu skipped (outside --ctr)", r->faults_skipped);
        if (r->leases_kept)
                strbuf_printf(
                        &b,
                        ", %zu kept faulted (in force at the run's end; `mayhem recover execute %s` undoes "
                        "them)",
                        r->leases_kept, r->run_id);
        if (r->leases_dirty)
                strbuf_printf(&b, ", %zu DIRTY (run `mayhem inspect leases`)", r->leases_dirty);
        if (r->leases_orphaned)
                strbuf_printf(
                        &b, ", %zu ORPHANED: the agent died (run `mayhem recover execute %s`)",
                        r->leases_orphaned, r->run_id);
        strbuf_printf(
                &b, "\n**observations**: %zu/%zu sources collected", r->sources_collected, r->sources_total);
        if (r->samples)
                strbuf_printf(
                        &b, ", %zu samples, %zu late, %zu skipped", r->samples, r->samples_late,
                        r->samples_skipped);
        if (r->resilience[0])
                strbuf_printf(&b, "\n**resilience**: %s", r->resilience);
        strbuf_printf(&b, "\n**wall**: %.1fs\n", r->wall_s);
        return strbuf_steal(&b);
}
