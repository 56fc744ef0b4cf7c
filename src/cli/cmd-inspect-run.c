/* `mayhem inspect run RUN_ID`: one run's whole story from the evidence,
 * read-only (run-record.h). */

#include "cli-internal.h"

#include <jansson.h>
#include <string.h>

#include "evidence/evidence.h"
#include "evidence/run-record.h"

static const struct cli_opt inspect_run_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "-";
}

static void print_number(FILE *out, const json_t *v) {
        if (json_is_number(v))
                fprintf(out, "%g", json_number_value(v));
        else
                fputs("-", out);
}

static void print_run(FILE *out, const json_t *run) {
        fprintf(out, "run %s (%s)\n  status %s, verdict %s, kind %s, seed ", str(run, "id"),
                str(run, "experiment_name"), str(run, "status"), str(run, "verdict"), str(run, "kind"));
        print_number(out, json_object_get(run, "seed"));
        fprintf(out, "\n  plan %s\n  engine %s, execution intent %s\n  %s .. %s\n",
                str(run, "plan_fingerprint"), str(run, "engine"),
                json_is_string(json_object_get(run, "execution_intent")) ? str(run, "execution_intent")
                                                                         : "implicit",
                str(run, "started_at"), str(run, "ended_at"));
}

static void print_leases(FILE *out, const json_t *leases) {
        size_t i;
        json_t *l;
        fprintf(out, "leases: %zu\n", json_array_size(leases));
        json_array_foreach(leases, i, l) {
                const json_t *eff = json_object_get(l, "effect"), *rec = json_object_get(l, "recovery");
                fprintf(out, "  %s %-18s %-12s effect: %s%s%s\n", str(l, "id"), str(l, "fault_id"),
                        str(l, "state"),
                        !json_is_object(eff)                             ? "not recorded"
                        : json_is_true(json_object_get(eff, "in_force")) ? "in force"
                                                                         : "NOT in force",
                        json_is_object(eff) ? ": " : "", json_is_object(eff) ? str(eff, "detail") : "");
                fprintf(out, "    undo %zu op(s), verify %zu probe(s): %s\n",
                        json_array_size(json_object_get(l, "undo")),
                        json_array_size(json_object_get(l, "verify")),
                        !json_is_object(rec)                             ? "no recovery recorded"
                        : json_is_true(json_object_get(rec, "verified")) ? "undone and verified"
                                                                         : "undo NOT verified");
        }
}

static void print_observations(FILE *out, const json_t *obs) {
        size_t i;
        json_t *o;
        fprintf(out, "observations: %zu source(s)\n", json_array_size(obs));
        json_array_foreach(obs, i, o) {
                fprintf(out, "  %-24s %4" JSON_INTEGER_FORMAT " sample(s) %s .. %s, min ", str(o, "source"),
                        json_integer_value(json_object_get(o, "count")), str(o, "first"), str(o, "last"));
                print_number(out, json_object_get(o, "min"));
                fputs(" max ", out);
                print_number(out, json_object_get(o, "max"));
                fputc('\n', out);
        }
}

static void print_rows(FILE *out, const char *title, const json_t *rows, const char *name_key) {
        size_t i;
        json_t *x;
        fprintf(out, "%s: %zu\n", title, json_array_size(rows));
        json_array_foreach(rows, i, x) fprintf(
                out, "  [%s] %s %s\n", json_integer_value(json_object_get(x, "passed")) ? "PASS" : "FAIL",
                str(x, "phase")[0] != '-' ? str(x, "phase") : "", str(x, name_key));
}

static void print_resilience(FILE *out, const json_t *res) {
        const json_t *c = json_object_get(res, "components");
        const char *names[] = { "fidelity", "recovery", "redundancy" };
        if (!json_is_object(res)) {
                fputs("resilience: not recorded\n", out);
                return;
        }
        fputs("resilience: ", out);
        print_number(out, json_object_get(res, "score"));
        fprintf(out, " (%s, %s)", str(res, "grade"), str(res, "label"));
        for (size_t i = 0; i < 3; i++) {
                const json_t *v = json_object_get(json_object_get(c, names[i]), "value");
                fprintf(out, "%s %s ", i ? "," : ":", names[i]);
                if (json_is_number(v))
                        fprintf(out, "%.2f", json_number_value(v));
                else
                        fputs("omitted", out);
        }
        if (json_is_string(json_object_get(res, "omitted")))
                fprintf(out, " (%s)", str(res, "omitted"));
        fputc('\n', out);
}

static void print_story(FILE *out, const json_t *s) {
        size_t i;
        json_t *x;
        const char *kind;
        print_run(out, json_object_get(s, "run"));
        fprintf(out, "steps: %zu\n", json_array_size(json_object_get(s, "steps")));
        json_array_foreach(json_object_get(s, "steps"), i, x) fprintf(
                out, "  %" JSON_INTEGER_FORMAT " %-10s %-10s %s\n",
                json_integer_value(json_object_get(x, "seq")), str(x, "action_type"), str(x, "status"),
                json_is_string(json_object_get(x, "error")) ? str(x, "error") : "");
        print_leases(out, json_object_get(s, "leases"));
        fprintf(out, "criteria: %zu\n", json_array_size(json_object_get(s, "criteria")));
        json_array_foreach(json_object_get(s, "criteria"), i, x) fprintf(
                out, "  [%s] %s:%s %s\n", json_is_true(json_object_get(x, "satisfied")) ? "PASS" : "FAIL",
                str(x, "type"), str(x, "source_id"), str(x, "detail"));
        print_observations(out, json_object_get(s, "observations"));
        print_rows(out, "slo outcomes", json_object_get(s, "slo_outcomes"), "name");
        print_rows(
                out, "steady-state evaluations", json_object_get(s, "steady_state_evaluations"), "signal");
        print_resilience(out, json_object_get(s, "resilience"));
        fputs("events:", out);
        json_object_foreach(json_object_get(s, "events_by_kind"), kind, x)
                fprintf(out, " %s %" JSON_INTEGER_FORMAT, kind, json_integer_value(x));
        fputc('\n', out);
}

static int run_inspect_run(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *record = NULL;
        int r;
        if ((r = evidence_open_read(ctx->db_path, &ev, reterr)) < 0 ||
            (r = evidence_run_record_json(ev, args->positional[0], &record, reterr)) < 0)
                return r;
        json_t *story = run_story_json(record);
        json_decref(record);
        if (!story)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"))
                return cli_print_json(ctx, story, reterr);
        print_story(ctx->out, story);
        json_decref(story);
        return 0;
}

const struct cli_command cli_inspect_run = {
        .name = "run",
        .summary = "one run's whole story: row, steps, leases, criteria, observations, score",
        .usage = "RUN_ID [--json]",
        .help = "Reads the evidence database without writing to it. An unknown run exits 4, as\n"
                "`inspect runs --run` does.",
        .opts = inspect_run_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_inspect_run,
};
