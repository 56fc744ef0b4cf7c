/* Checks with execution container or service: the agent runs their probe
 * from the target's network namespace (probe.run, docs/internals/agent-rpc.md). */
#include "run-internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROBE_CALL_MARGIN_MS 5000 /* resolution, namespace entry and the round trip */

/* The container the plan resolved for check c, or NULL for a host check. */
static const char *check_container(const struct plan *pl, const struct drill_check *c) {
        for (size_t i = 0; i < pl->n_steps; i++) {
                const struct plan_step *ps = &pl->steps[i];
                for (size_t j = 0; ps->check_containers && j < ps->src->n_checks; j++)
                        if (&ps->src->checks[j] == c)
                                return ps->check_containers[j];
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

static void remote_probe(
        struct runner *r, const char *container, const struct drill_probe *p, struct probe_result *ret) {
        struct mh_error e = { 0 };
        json_t *res = NULL;
        json_t *params = json_pack(
                "{s:{s:s, s:s}, s:o}", "target", "engine", r->engine_kind ? r->engine_kind : "docker",
                "container", container, "probe", probe_json(p));
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

void runner_check_probe(struct runner *r, const struct drill_check *c, struct probe_result *ret) {
        const char *container = c->execution == CHECK_LOCUS_HOST ? NULL : check_container(r->plan, c);
        *ret = (struct probe_result){ 0 };
        if (c->execution == CHECK_LOCUS_HOST) {
                probe_run(&c->probe, ret);
                return;
        }
        if (!container || !r->agent) {
                snprintf(
                        ret->detail, sizeof(ret->detail),
                        "check %.100s: no container resolved or no agent to probe from", c->id);
                return;
        }
        remote_probe(r, container, &c->probe, ret);
}
