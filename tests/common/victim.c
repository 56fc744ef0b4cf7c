#include "common/victim.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agent-lease.h"
#include "common/run-command.h"

bool victim_run(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "%s %s: %s", argv[0], argv[1], r.err ? r.err : "");
        cmd_result_done(&r);
        return ok;
}

pid_t victim_main_pid(struct engine *e, const char *name) {
        struct engine_container c;
        return engine_container_inspect(e, name, &c, NULL) >= 0 && c.running ? c.pid : 0;
}

struct agent_client *victim_agent(const char *roles, const char *run_id) {
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = roles,
                                          .run_id = run_id };
        struct agent_client *c = NULL;
        struct mh_error e = { 0 };
        if (agent_client_start(&o, &c, &e) < 0)
                fail_msg("agent: %s", e.msg);
        return c;
}

json_t *victim_lease(
        struct agent_client *a, const char *container, const char *fault, const char *lease_id,
        const char *params) {
        json_t *ident = NULL;
        struct mh_error e = { 0 };
        if (agent_lease_resolve(a, "docker", container, &ident, &e) < 0)
                fail_msg("target.resolve %s: %s", container, e.msg);
        json_t *l = agent_lease_new(lease_id, fault, ident, params, NULL);
        json_decref(ident);
        if (!l)
                fail_msg("no lease of %s with params %s", fault, params ? params : "{}");
        return l;
}

void victim_call(struct agent_client *a, const json_t *lease, const char *phase, json_t **ret) {
        struct mh_error e = { 0 };
        if (agent_lease_call(a, lease, phase, ret, &e) < 0)
                fail_msg("%s: %s", phase, e.msg);
}

size_t victim_payloads(const char *pattern, pid_t *ret, size_t max) {
        char full[256];
        snprintf(full, sizeof(full), "mayhem-agent payload %s", pattern);
        struct cmd_result r = run_command(NULL, (const char *const[]){ "pgrep", "-f", full, NULL });
        size_t n = 0;
        for (char *save = NULL, *l = strtok_r(r.out ? r.out : "", "\n", &save); l && n < max;
             l = strtok_r(NULL, "\n", &save))
                ret[n++] = (pid_t)strtol(l, NULL, 10);
        cmd_result_done(&r);
        return n;
}
