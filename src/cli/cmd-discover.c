#include "cli-internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/suggest.h"
#include "catalog/catalog.h"
#include "plan/plan.h"
#include "topology/topology.h"

static const struct cli_opt faults_opts[] = {
        { "explain", 'e', "FAULT_ID", "explain one fault: parameters, effect, undo, verify" },
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static json_t *names_json(const char *const *names, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_string(names[i]));
        return a;
}

static json_t *param_spec_json(const struct param_spec *p) {
        json_t *o = json_pack(
                "{s:s, s:s, s:b, s:s}", "name", p->name, "type", param_type_to_string(p->type), "required",
                p->required, "help", p->help ? p->help : "");
        if (!o)
                return NULL;
        if (p->has_default)
                json_object_set_new(o, "default", plan_json_param(&p->def));
        if (p->has_min)
                json_object_set_new(o, "min", json_real(p->min));
        if (p->has_max)
                json_object_set_new(o, "max", json_real(p->max));
        if (p->alias)
                json_object_set_new(o, "alias", json_string(p->alias));
        if (p->choices) {
                json_t *c = json_array();
                for (size_t i = 0; c && p->choices[i]; i++)
                        json_array_append_new(c, json_string(p->choices[i]));
                json_object_set_new(o, "choices", c);
        }
        return o;
}

static json_t *fault_json(const struct fault_def *f) {
        const char *kinds[_NODE_KIND_MAX], *needs[_FAULT_NEED_MAX];
        size_t n_kinds = node_kind_names(f->node_kinds, kinds), n_needs = fault_need_names(f->needs, needs);
        json_t *params = json_array();
        for (size_t i = 0; params && i < f->n_params; i++)
                json_array_append_new(params, param_spec_json(&f->params[i]));
        json_t *o = json_pack(
                "{s:s, s:s, s:s, s:i, s:o, s:o, s:s, s:s, s:o, s:b}", "id", f->id, "category",
                fault_category_to_string(f->category), "risk", risk_to_string(f->risk), "max_duration_s",
                (int)f->max_duration_s, "node_kinds", names_json(kinds, n_kinds), "needs",
                names_json(needs, n_needs), "reversibility", reversibility_to_string(f->reversibility),
                "mechanism", f->mechanism ? f->mechanism : "none", "params", params, "catalog_only",
                f->refusal != NULL);
        if (!o)
                return NULL;
        json_object_set_new(o, "status", json_string(fault_status_to_string(fault_status_of(f))));
        json_object_set_new(o, "role", json_string(agent_role_to_string(f->role)));
        json_object_set_new(o, "resource", json_string(resource_kind_to_string(f->resource)));
        json_object_set_new(o, "conflict_class", json_string(conflict_class_to_string(f->conflict)));
        json_object_set_new(o, "effect", json_string(f->effect ? f->effect : ""));
        json_object_set_new(o, "undo", json_string(f->undo ? f->undo : ""));
        json_object_set_new(o, "verify", json_string(f->verify ? f->verify : ""));
        if (f->refusal) {
                json_object_set_new(o, "refusal", json_string(f->refusal));
                json_object_set_new(o, "alternative", json_string(f->alternative));
        }
        return o;
}

static void params_summary(const struct fault_def *f, char *buf, size_t size) {
        size_t len = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < f->n_params && len < size; i++) {
                const struct param_spec *p = &f->params[i];
                char v[48] = "REQUIRED";
                if (p->has_default)
                        param_value_format(&p->def, v, sizeof(v));
                else if (!p->required)
                        snprintf(v, sizeof(v), "-");
                int w = snprintf(buf + len, size - len, "%s%s=%s", i ? " " : "", p->name, v);
                len = w > 0 ? MIN(len + (size_t)w, size - 1) : len;
        }
}

static int list_faults(struct cli_ctx *ctx, bool json, struct mh_error *reterr) {
        if (json) {
                json_t *a = json_array();
                for (size_t i = 0; a && i < catalog_size(); i++)
                        json_array_append_new(a, fault_json(catalog_at(i)));
                return cli_print_json(ctx, a, reterr);
        }
        fprintf(ctx->out, "%-30s %-11s %-8s %5s  %-12s %-14s %s\n", "FAULT", "CATEGORY", "RISK", "MAX",
                "STATUS", "MECHANISM", "PARAMETERS (default)");
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                enum fault_status st = fault_status_of(f);
                char params[512];
                params_summary(f, params, sizeof(params));
                fprintf(ctx->out, "%-30s %-11s %-8s %4us  %-12s %-14s %s\n", f->id,
                        fault_category_to_string(f->category), risk_to_string(f->risk), f->max_duration_s,
                        fault_status_to_string(st),
                        f->refusal     ? "refused"
                        : f->mechanism ? f->mechanism
                                       : "none",
                        f->refusal ? "(catalog only)" : params);
        }
        fprintf(ctx->out,
                "%zu faults: %zu runnable, %zu planned-only (validation refuses them until this build has "
                "their mechanism), %zu catalog-only (refused with a reason). Explain one with -e "
                "FAULT_ID.\n",
                catalog_size(), catalog_count_status(FAULT_STATUS_RUNNABLE),
                catalog_count_status(FAULT_STATUS_PLANNED_ONLY),
                catalog_count_status(FAULT_STATUS_CATALOG_ONLY));
        return 0;
}

static void explain_param(FILE *f, const struct param_spec *p) {
        char def[48] = "required", lo[48] = "", hi[48] = "";
        struct param_value b = { .type = p->type };
        if (p->has_default)
                param_value_format(&p->def, def, sizeof(def));
        else if (!p->required)
                snprintf(def, sizeof(def), "optional");
        fprintf(f, "  %-18s %-9s %-10s", p->name, param_type_to_string(p->type), def);
        if (p->has_min && p->has_max) {
                bool whole = p->type == PARAM_INTEGER || p->type == PARAM_DURATION;
                if (whole)
                        b.i = (int64_t)p->min;
                else if (p->type == PARAM_BYTES || p->type == PARAM_RATE)
                        b.u = (uint64_t)p->min;
                else
                        b.f = p->min;
                param_value_format(&b, lo, sizeof(lo));
                if (whole)
                        b.i = (int64_t)p->max;
                else if (p->type == PARAM_BYTES || p->type == PARAM_RATE)
                        b.u = (uint64_t)p->max;
                else
                        b.f = p->max;
                param_value_format(&b, hi, sizeof(hi));
                fprintf(f, " %s..%s", lo, hi);
        }
        for (size_t i = 0; p->choices && p->choices[i]; i++)
                fprintf(f, "%s%s", i ? "|" : " ", p->choices[i]);
        fprintf(f, "  %s", p->help ? p->help : "");
        if (p->alias)
                fprintf(f, " (also accepted as '%s', a duration)", p->alias);
        fputc('\n', f);
}

static void explain_compensation(FILE *out, const struct fault_comp *c) {
        char undo[256], verify[256];
        if (!c->effect) {
                fprintf(out, "compensation:  none; the planner refuses this fault\n");
                return;
        }
        strv_join(undo, sizeof(undo), c->undo, fault_comp_n_undo(c), 0);
        strv_join(verify, sizeof(verify), c->verify, fault_comp_n_verify(c), 0);
        fprintf(out, "undo ops:      %s\nverify probes: %s\neffect check:  %s\n", undo, verify, c->effect);
}

static void explain_host_compensation(FILE *out, const struct fault_comp *c) {
        char undo[256], verify[256];
        strv_join(undo, sizeof(undo), c->undo, fault_comp_n_undo(c), 0);
        strv_join(verify, sizeof(verify), c->verify, fault_comp_n_verify(c), 0);
        fprintf(out, "on a host process: undo %s, verify %s, effect %s\n", undo, verify, c->effect);
}

static int explain_fault(struct cli_ctx *ctx, const char *id, bool json, struct mh_error *reterr) {
        const struct fault_def *f = catalog_find(id);
        const char *ids[256], *kind_names[_NODE_KIND_MAX], *need_names[_FAULT_NEED_MAX];
        char kinds[256], needs[256];
        if (!f) {
                const char *near = suggest_closest(id, ids, catalog_ids(ids, ELEMENTSOF(ids)));
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "validation", "unknown fault '%s'%s%s%s",
                        id, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        }
        if (json)
                return cli_print_json(ctx, fault_json(f), reterr);
        FILE *out = ctx->out;
        strv_join(kinds, sizeof(kinds), kind_names, node_kind_names(f->node_kinds, kind_names), 0);
        strv_join(needs, sizeof(needs), need_names, fault_need_names(f->needs, need_names), 0);
        fprintf(out, "%s: %s fault, risk %s, at most %us, %s\n", f->id,
                fault_category_to_string(f->category), risk_to_string(f->risk), f->max_duration_s,
                reversibility_to_string(f->reversibility));
        fprintf(out, "status:        %s\n", fault_status_to_string(fault_status_of(f)));
        fprintf(out, "applies to:    %s\nneeds:         %s\n", kinds, needs[0] ? needs : "-");
        if (f->refusal) {
                fprintf(out, "refused:       catalog.unsupported: %s; alternative: %s\n", f->refusal,
                        f->alternative);
                return 0;
        }
        fprintf(out, "mechanism:     %s%s\nagent role:    %s (touches its %s; conflict class %s%s)\n",
                f->mechanism ? f->mechanism : "none in this version",
                f->mechanism && fault_status_of(f) == FAULT_STATUS_PLANNED_ONLY ? " (not in this build yet)"
                                                                                : "",
                agent_role_to_string(f->role), resource_kind_to_string(f->resource),
                conflict_class_to_string(f->conflict), conflict_class_stacks(f->conflict) ? ", stacks" : "");
        fprintf(out, "parameters:%s\n", f->n_params ? "" : "    none");
        for (size_t i = 0; i < f->n_params; i++)
                explain_param(out, &f->params[i]);
        fprintf(out, "effect:        %s\nundo:          %s\nverify:        %s\n", f->effect, f->undo,
                f->verify);
        explain_compensation(out, &f->comp);
        if (f->host_comp)
                explain_host_compensation(out, f->host_comp);
        return 0;
}

static int run_faults(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        bool json = ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
        const char *id = cli_arg(ctx, args, "explain");
        return id ? explain_fault(ctx, id, json, reterr) : list_faults(ctx, json, reterr);
}

static const struct cli_opt topology_opts[] = {
        { "compose", 'c', "COMPOSE", "compose file (default: compose.yaml & co. in the working directory)" },
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static void print_topology(FILE *out, const struct topology *t) {
        fprintf(out, "project %s (%s): %zu service(s), %zu container(s)\n", t->project, t->source_path,
                t->n_services, t->n_containers);
        for (size_t i = 0; i < t->n_services; i++) {
                const struct topo_service *s = &t->services[i];
                fprintf(out, "  %s", s->name);
                for (size_t c = 0; c < s->replicas; c++)
                        fprintf(out, "%s%s", c ? ", " : " -> ", t->containers[s->first_container + c].name);
                for (size_t d = 0; d < s->n_depends_on; d++)
                        fprintf(out, "%s%s", d ? ", " : "; depends on ", s->depends_on[d]);
                fputc('\n', out);
        }
}

static int run_topology(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(topology_freep) struct topology *t = NULL;
        _cleanup_free_ char *found = NULL;
        const char *path = cli_arg(ctx, args, "compose");
        int r;
        if (!path && (r = compose_find_default(".", &found, reterr)) < 0)
                return r;
        if ((r = compose_load(path ? path : found, &t, reterr)) < 0)
                return r;
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json")) { /* the JSON has the warnings */
                json_t *j = NULL;
                if (topology_to_json(t, &j) < 0)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                return cli_print_json(ctx, j, reterr);
        }
        for (size_t i = 0; i < t->n_warnings; i++)
                cli_print_warning(ctx, t->warnings[i]);
        print_topology(ctx->out, t);
        return 0;
}

static const struct cli_command discover_faults = {
        .name = "faults",
        .summary = "list the fault catalog, or explain one fault",
        .usage = "[-e FAULT_ID] [--json]",
        .opts = faults_opts,
        .run = run_faults,
};

static const struct cli_command discover_topology = {
        .name = "topology",
        .summary = "show the services and containers of a compose file",
        .usage = "[-c COMPOSE] [--json]",
        .opts = topology_opts,
        .run = run_topology,
};

static const struct cli_command *const discover_subcommands[] = { &discover_faults, &discover_topology,
                                                                  NULL };

const struct cli_command cli_discover = {
        .name = "discover",
        .summary = "what mayhem can do and what it sees: fault catalog, topology",
        .usage = "COMMAND ...",
        .subcommands = discover_subcommands,
};
