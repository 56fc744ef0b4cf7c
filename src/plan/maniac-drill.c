/* The draws as a drill: written as JSON (which is YAML) and read back by the
 * drill parser, so a draw passes every validation an authored fault does. */

#include "maniac.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define TIMEOUT_MAX_MS   (7LL * 24 * 3600 * 1000) /* config.timeout's upper bound */
#define TIMEOUT_SLACK_MS 60000                    /* for the agent, the janitor, the checks */
#define STEP_SLACK_MS    10000                    /* per draw: inject, effect check, undo, verify */

static json_t *ms_text(int64_t ms) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%" PRId64 "ms", ms);
        return json_string(buf);
}

static json_t *config_json(const struct drill_config *base, const struct maniac_draw *draws, size_t n) {
        int64_t need = TIMEOUT_SLACK_MS + (int64_t)n * STEP_SLACK_MS;
        need += draws[n - 1].at_ms + draws[n - 1].duration_ms;
        int64_t timeout = base && base->timeout_ms > need ? base->timeout_ms : need;
        if (timeout > TIMEOUT_MAX_MS)
                timeout = TIMEOUT_MAX_MS; /* validation then says which draw does not fit */
        json_t *c = json_pack(
                "{s:o, s:{s:I, s:I, s:I}}", "timeout", ms_text(timeout), "maniac", "level",
                (json_int_t)draws[0].level, "run_level", (json_int_t)n, "seed", (json_int_t)draws[0].seed);
        if (c && base) {
                json_object_set_new(c, "risk_ceiling", json_string(risk_to_string(base->risk_ceiling)));
                json_object_set_new(c, "on_failure", json_string(on_failure_to_string(base->on_failure)));
                json_object_set_new(c, "log_level", json_string(log_level_to_string(base->log_level)));
        }
        return c;
}

static json_t *fault_entry(const struct maniac_draw *d) {
        json_t *e = json_loads(d->params_json ? d->params_json : "{}", 0, NULL);
        if (!json_is_object(e)) {
                json_decref(e);
                return NULL;
        }
        json_object_set_new(e, "fault", json_string(d->def->id));
        json_object_set_new(e, "duration", ms_text(d->duration_ms));
        return e;
}

/* Targets keyed "m<seq>-<container>", and the steps that run them in order. */
static int add_draws(json_t *targets, json_t *steps, const struct maniac_draw *draws, size_t n) {
        char name[DRILL_NAME_MAX + 16];
        int64_t end = 0;
        for (size_t i = 0; i < n; i++) {
                const struct maniac_draw *d = &draws[i];
                json_t *entry = fault_entry(d);
                if (!entry)
                        return -EINVAL;
                snprintf(name, sizeof(name), "m%u-%s", d->seq, d->container);
                json_t *t = json_pack(
                        "{s:s, s:{s:s}, s:[o]}", "runtime", "docker", "docker", "container_name",
                        d->container, "faults", entry);
                if (!t || json_object_set_new(targets, name, t) < 0)
                        return -ENOMEM;
                if (d->at_ms > end &&
                    json_array_append_new(steps, json_pack("{s:o}", "wait", ms_text(d->at_ms - end))) < 0)
                        return -ENOMEM;
                if (json_array_append_new(steps, json_pack("{s:[s]}", "sequential", name)) < 0)
                        return -ENOMEM;
                end = (d->at_ms > end ? d->at_ms : end) + d->duration_ms;
        }
        return 0;
}

int maniac_drill_text(
        const char *name, const struct drill_config *base, const struct maniac_draw *draws, size_t n,
        char **ret, struct mh_error *reterr) {
        if (n == 0)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "maniac_empty_pool", "no draws to run");
        _cleanup_(json_decrefp) json_t *doc = json_pack(
                "{s:s, s:s, s:s, s:o, s:{}, s:[]}", "kind", "drill", "name", name, "hypothesis",
                "random faults drawn by mayhem maniac", "config", config_json(base, draws, n), "targets",
                "execution");
        if (!doc)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        int r = add_draws(json_object_get(doc, "targets"), json_object_get(doc, "execution"), draws, n);
        if (r == -EINVAL)
                return mh_error_set(
                        reterr, r, MH_EXIT_VALIDATION_ERROR, "maniac_draw",
                        "a draw's parameters are not a JSON object");
        char *text = r < 0 ? NULL : json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!text)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        *ret = text;
        return 0;
}
