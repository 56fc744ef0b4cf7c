/* Checks with execution container or service: the agent runs their probe
 * from the target's network namespace (probe.run, docs/internals/agent-rpc.md). */
#include "run-internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROBE_CALL_MARGIN_MS 5000 /* resolution, namespace entry and the round trip */

/* Where the plan resolved check c to run from; NULL for a host check. */
static const struct plan_check_locus *check_locus(const struct plan *pl, const struct drill_check *c) {
        for (size_t i = 0; i < pl->n_steps; i++) {
                const struct plan_step *ps = &pl->steps[i];
                for (size_t j = 0; ps->check_loci && j < ps->src->n_checks; j++)
                        if (&ps->src->checks[j] == c)
                                return &ps->check_loci[j];
        }
        return NULL;
}

static json_t *probe_json(const struct drill_probe *p) {
        json_int_t timeout = (json_int_t)p->timeout_ms;
        if (p->type == PROBE_FILE)
                return p->contains ? json_pack(
                                             "{s:s, s:I, s:s, s:s}", "type", "file", "timeout_ms", timeout,
                                             "path", p->path, "contains", p->contains)
                                   : json_pack(
                                             "{s:s, s:I, s:s}", "type", "file", "timeout_ms", timeout,
                                             "path", p->path);
        if (p->type == PROBE_EXEC) {
                json_t *cmd = json_array();
                for (size_t i = 0; cmd && i < p->n_cmd; i++)
                        json_array_append_new(cmd, json_string(p->cmd[i]));
                return json_pack(
                        "{s:s, s:I, s:o, s:I}", "type", "exec", "timeout_ms", timeout, "cmd", cmd,
                        "expected_exit_code", (json_int_t)p->expected_exit_code);
        }
        if (p->type == PROBE_PROCESS)
                return p->process_name ? json_pack(
                                                 "{s:s, s:I, s:s}", "type", "process", "timeout_ms", timeout,
                                                 "name", p->process_name)
                                       : json_pack(
                                                 "{s:s, s:I, s:I}", "type", "process", "timeout_ms", timeout,
                                                 "pid", (json_int_t)p->pid);
        if (p->type == PROBE_TCP)
                return json_pack(
                        "{s:s, s:I, s:s, s:I}", "type", "tcp", "timeout_ms", (json_int_t)p->timeout_ms,
                        "host", p->host ? p->host : "", "port", (json_int_t)p->port);
        return json_pack(
                "{s:s, s:I, s:s, s:s, s:I}", "type", probe_type_to_string(p->type), "timeout_ms",
                (json_int_t)p->timeout_ms, "url", p->url ? p->url : "", "method",
                p->method ? p->method : "GET", "expected_status", (json_int_t)p->expected_status);
}

/* container: the label of the place probed from (a container's name, a process target's). */
static void remote_probe(
        struct runner *r, json_t *target, const char *container, const struct drill_probe *p,
        struct probe_result *ret) {
        struct mh_error e = { 0 };
        json_t *res = NULL;
        json_t *params = json_pack("{s:o, s:o}", "target", target, "probe", probe_json(p));
        double began = monotonic_ms();
        int x = agent_client_call(
                r->agent, "probe.run", params, (int)p->timeout_ms + PROBE_CALL_MARGIN_MS, &res, &e);
        if (x < 0) {
                ret->latency_ms = monotonic_ms() - began;
                snprintf(
                        ret->detail, sizeof(ret->detail), "from %.60s: the agent could not probe: %.150s",
                        container, e.msg);
                json_decref(res);
                return;
        }
        ret->ok = json_is_true(json_object_get(res, "ok"));
        /* the agent's numbers, bounded: a reply can be no longer than the call took */
        double latency = json_number_value(json_object_get(res, "latency_ms"));
        double took = monotonic_ms() - began;
        ret->latency_ms = isfinite(latency) && latency >= 0 && latency <= took ? latency : took;
        json_int_t status = json_integer_value(json_object_get(res, "status"));
        ret->status = status >= 100 && status <= 999 ? (long)status : 0;
        const char *detail = json_string_value(json_object_get(res, "detail"));
        snprintf(
                ret->detail, sizeof(ret->detail), "from %.60s: %.150s", container,
                detail ? detail : "(no detail)");
        json_decref(res);
}

/* execution: service: the first container of the service that runs and is
 * not paused, as the engine says now; NULL, with why in ret, when none is. */
static const char *running_replica(
        struct runner *r, const struct plan_check_locus *l, struct probe_result *ret) {
        size_t len = (size_t)snprintf(ret->detail, sizeof(ret->detail), "no container of the service runs:");
        if (l->n_containers == 1 || !r->opt->engine)
                return l->containers[0]; /* the agent says whether it runs */
        for (size_t i = 0; i < l->n_containers; i++) {
                struct engine_container c;
                struct mh_error e = { 0 };
                bool ok = engine_container_inspect(r->opt->engine, l->containers[i], &c, &e) >= 0;
                if (ok && c.running && !c.paused) {
                        ret->detail[0] = '\0';
                        return l->containers[i];
                }
                if (len < sizeof(ret->detail))
                        len += (size_t)snprintf(
                                ret->detail + len, sizeof(ret->detail) - len, "%s %.60s %s", i ? "," : "",
                                l->containers[i], ok ? c.status : "not found");
        }
        return NULL;
}

void runner_check_probe(struct runner *r, const struct drill_check *c, struct probe_result *ret) {
        const struct plan_check_locus *l = c->execution == CHECK_LOCUS_HOST ? NULL : check_locus(r->plan, c);
        *ret = (struct probe_result){ 0 };
        if (c->execution == CHECK_LOCUS_HOST) {
                probe_run(&c->probe, ret);
                return;
        }
        if (!l || (!l->n_containers && !l->process) || !r->agent) {
                snprintf(
                        ret->detail, sizeof(ret->detail),
                        "check %.100s: no target resolved or no agent to probe from", c->id);
                return;
        }
        if (l->process) {
                remote_probe(r, runner_target_request(r, l->process), l->process->label, &c->probe, ret);
                return;
        }
        const char *container = running_replica(r, l, ret);
        if (container)
                remote_probe(
                        r,
                        json_pack(
                                "{s:s, s:s}", "engine", r->engine_kind ? r->engine_kind : "docker",
                                "container", container),
                        container, &c->probe, ret);
}
