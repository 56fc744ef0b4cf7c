#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/units.h"
#include "catalog/catalog.h"

/* The ids that must be executable (shared/DESIGN.md "Fault catalog"). */
static const char *const executable_ids[] = {
        "proc.pause",
        "process.stop",
        "process.kill",
        "process.crash_loop",
        "container.kill",
        "container.restart",
        "container.pause",
        "node.service_stop",
        "cpu.throttle",
        "cpu.saturate",
        "mem.exhaust",
        "mem.leak",
        "fs.fill",
        "fs.inode_exhaust",
        "fs.io_stress",
        "fs.read_only",
        "fd.exhaust",
        "process.thread_exhaust",
        "process.child_exhaust",
        "load.spike",
        "net.load",
        "fuzz.protocol_abuse",
        "net.latency",
        "net.packet_loss",
        "net.bandwidth",
        "net.partition",
        "net.reorder",
        "net.duplicate",
        "net.corrupt",
        "net.connection_reset",
        "net.connection_refuse",
        "net.mtu_mismatch",
        "net.interface_down",
        "http.latency",
        "http.error_injection",
        "dependency.rate_limit",
        "dependency.block",
        "dependency.timeout",
        "dependency.flap",
        "dependency.connection_refuse",
        "db.connection_exhaust",
        "db.query_error",
        "db.slow_query",
        "dns.nxdomain",
        "dns.servfail",
        "dns.timeout",
        "dns.resolve_delay",
        "tls.handshake_failure",
        "tls.certificate_expired",
        "clock.skew",
};

/* Top-level keys of a drill step; a parameter may not shadow them. */
static const char *const reserved_keys[] = {
        "fault", "duration", "on_failure", "targets", "network_path", "recovery", "params",
};

/* Executable faults without a mechanism: the planner gates them itself. */
static const char *const gated_by_planner[] = { "clock.skew" };

/* Fails with the fault (and parameter) named, so a bad entry is easy to find. */
static void check_failed(const struct fault_def *f, const struct param_spec *p, const char *expr) {
        fail_msg("%s%s%s: %s", f->id, p ? "." : "", p ? p->name : "", expr);
}

#define CHECK(cond, f, p)                                                                                   \
        do {                                                                                                \
                if (!(cond))                                                                                \
                        check_failed(f, p, #cond);                                                          \
        } while (0)
#define CHECK_FAULT(cond, f) CHECK(cond, f, NULL)

static bool nonempty(const char *s) {
        return s && *s;
}

static bool in_list(const char *const *list, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(list[i], s) == 0)
                        return true;
        return false;
}

static bool is_catalog_only(const struct fault_def *f) {
        return f->refusal != NULL;
}

static bool is_planner_gated(const struct fault_def *f) {
        return in_list(gated_by_planner, ELEMENTSOF(gated_by_planner), f->id);
}

static void for_each_fault(void (*fn)(const struct fault_def *f)) {
        assert_true(catalog_size() > 0);
        for (size_t i = 0; i < catalog_size(); i++)
                fn(catalog_at(i));
}

static void for_each_param(void (*fn)(const struct fault_def *f, const struct param_spec *p)) {
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                for (size_t j = 0; j < f->n_params; j++)
                        fn(f, &f->params[j]);
        }
}

static void test_ids_sorted_unique(void **state) {
        for (size_t i = 1; i < catalog_size(); i++)
                CHECK_FAULT(strcmp(catalog_at(i - 1)->id, catalog_at(i)->id) < 0, catalog_at(i));
}

static void test_executable_ids_present(void **state) {
        size_t n_executable = 0;

        assert_int_equal(ELEMENTSOF(executable_ids), 50);
        for (size_t i = 0; i < ELEMENTSOF(executable_ids); i++) {
                const struct fault_def *f = catalog_find(executable_ids[i]);
                if (!f)
                        fail_msg("%s: missing from the catalog", executable_ids[i]);
                CHECK_FAULT(!is_catalog_only(f), f);
        }
        for (size_t i = 0; i < catalog_size(); i++)
                n_executable += !is_catalog_only(catalog_at(i));
        assert_int_equal(n_executable, ELEMENTSOF(executable_ids));
}

static void check_enums(const struct fault_def *f) {
        CHECK_FAULT(fault_category_to_string(f->category), f);
        CHECK_FAULT(risk_to_string(f->risk), f);
        CHECK_FAULT(reversibility_to_string(f->reversibility), f);
        CHECK_FAULT(agent_role_to_string(f->role), f);
        CHECK_FAULT(resource_kind_to_string(f->resource), f);
        CHECK_FAULT(conflict_class_to_string(f->conflict), f);
        CHECK_FAULT(net_action_to_string(f->net.action), f);
        CHECK_FAULT(f->max_duration_s > 0, f);
        CHECK_FAULT(f->node_kinds != 0, f);
        CHECK_FAULT(f->node_kinds >> _NODE_KIND_MAX == 0, f);
        CHECK_FAULT(f->needs >> _FAULT_NEED_MAX == 0, f);
        CHECK_FAULT((f->params == NULL) == (f->n_params == 0), f);
}

static void test_enums_valid(void **state) {
        for_each_fault(check_enums);
}

static void check_alternative_names_executable(const struct fault_def *f) {
        char id[64];
        const char *start = f->alternative + strlen("use ");
        size_t n = strcspn(start, " ");
        const struct fault_def *alt;

        CHECK_FAULT(strncmp(f->alternative, "use ", 4) == 0, f);
        CHECK_FAULT(n < sizeof(id), f);
        memcpy(id, start, n);
        id[n] = '\0';
        alt = catalog_find(id);
        CHECK_FAULT(alt && !is_catalog_only(alt), f);
}

static void check_texts(const struct fault_def *f) {
        if (is_catalog_only(f)) {
                CHECK_FAULT(nonempty(f->refusal) && nonempty(f->alternative), f);
                CHECK_FAULT(f->mechanism == NULL && f->comp.effect == NULL, f);
                check_alternative_names_executable(f);
                return;
        }
        CHECK_FAULT(nonempty(f->effect) && nonempty(f->undo) && nonempty(f->verify), f);
        CHECK_FAULT(f->alternative == NULL, f);
        CHECK_FAULT(f->mechanism != NULL || is_planner_gated(f), f);
}

static void test_texts(void **state) {
        for_each_fault(check_texts);
}

/* What each mechanism needs of the agent, whatever the reference listed:
 * mechanisms by the first part of their name. */
static unsigned mechanism_needs(const char *m) {
        static const struct {
                const char *prefix;
                unsigned needs;
        } table[] = {
                { "signal.", NEED_PROCESS }, { "engine.", NEED_ENGINE }, { "crash-loop", NEED_ENGINE },
                { "cgroup.", NEED_CGROUP },  { "net", NEED_NET_ADMIN },  { "link.", NEED_NET_ADMIN },
                { "proxy", NEED_NET_ADMIN }, { "dns", NEED_NET_ADMIN },  { "mount", NEED_FS },
        };
        for (size_t i = 0; m && i < ELEMENTSOF(table); i++)
                if (strncmp(m, table[i].prefix, strlen(table[i].prefix)) == 0)
                        return table[i].needs;
        return 0;
}

static void check_needs(const struct fault_def *f) {
        unsigned need = mechanism_needs(f->mechanism);
        CHECK_FAULT((f->needs & need) == need, f);
}

static void test_mechanism_needs_declared(void **state) {
        for_each_fault(check_needs);
}

/* A fault with a mechanism has a whole compensation: undo ops, verify
 * probes, an effect check; host_comp likewise where there is one. */
static void check_comp(const struct fault_def *f) {
        const struct fault_comp *c[] = { &f->comp, f->host_comp };
        for (size_t i = 0; i < ELEMENTSOF(c); i++) {
                if (!c[i] || (i == 0 && !f->mechanism))
                        continue;
                CHECK_FAULT(fault_comp_n_undo(c[i]) > 0 && fault_comp_n_verify(c[i]) > 0 && c[i]->effect, f);
        }
        CHECK_FAULT(f->mechanism || !f->host_comp, f);
        CHECK_FAULT(fault_comp_for(f, false) == &f->comp, f);
        CHECK_FAULT(fault_comp_for(f, true) == (f->host_comp ? f->host_comp : &f->comp), f);
}

static void test_compensation(void **state) {
        for_each_fault(check_comp);
}

/* The network facts name params the fault has, with the right types. */
static void check_net_facts(const struct fault_def *f) {
        const struct net_facts *nf = &f->net;
        const struct param_spec *p;
        if (nf->action == NET_ACTION_NONE) {
                CHECK_FAULT(!nf->side && !nf->fixed_port && !nf->protocol && !nf->share, f);
                CHECK_FAULT(!f->mechanism || strcmp(f->mechanism, "net") != 0, f);
                return;
        }
        CHECK_FAULT(f->mechanism && strcmp(f->mechanism, "net") == 0, f);
        CHECK_FAULT(f->role == AGENT_ROLE_NETWORK && f->resource == RESOURCE_NETNS, f);
        CHECK_FAULT(nf->side == 0 || nf->side == NET_SIDE_EGRESS || nf->side == NET_SIDE_INGRESS, f);
        if (nf->side == 0) /* where the direction param says */
                CHECK_FAULT(
                        (p = fault_param_find(f, "direction")) && p->type == PARAM_ENUM && p->has_default,
                        f);
        if (nf->side && !nf->fixed_port) /* port-bound: it has a port */
                CHECK_FAULT((p = fault_param_find(f, "port")) && p->type == PARAM_INTEGER, f);
        if (!nf->protocol)
                CHECK_FAULT(
                        (p = fault_param_find(f, "protocol")) && p->type == PARAM_ENUM && p->has_default, f);
        if (nf->share)
                CHECK_FAULT(
                        (p = fault_param_find(f, nf->share)) && p->type == PARAM_PERCENT && p->has_default,
                        f);
}

static void test_net_facts(void **state) {
        for_each_fault(check_net_facts);
}

/* The agent's roles and the controller's role request come from here. */
static void test_roles(void **state) {
        const char *ids[] = { "net.latency", "proc.pause", "fd.exhaust", "container.kill",
                              "process.crash_loop" };
        const char *names[2 * _AGENT_ROLE_MAX];
        char roles[128];
        agent_roles_for(ids, ELEMENTSOF(ids), false, roles, sizeof(roles));
        assert_string_equal(roles, "proc,container,fs,network");
        agent_roles_for(ids, 0, false, roles, sizeof(roles));
        assert_string_equal(roles, "");
        /* Plain host processes add the host role, which no fault has of its own. */
        agent_roles_for(ids + 1, 1, true, roles, sizeof(roles));
        assert_string_equal(roles, "proc,host");
        agent_roles_for(ids, 0, true, roles, sizeof(roles));
        assert_string_equal(roles, "");
        assert_int_equal(agent_role_from_string("host"), AGENT_ROLE_HOST);
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                CHECK_FAULT(f->role != AGENT_ROLE_HOST, f);
                CHECK_FAULT(fault_roles_on(f, false) == ROLE_BIT(f->role), f);
                CHECK_FAULT(fault_roles_on(f, true) == (ROLE_BIT(f->role) | ROLE_BIT(AGENT_ROLE_HOST)), f);
        }
        assert_int_equal(agent_role_from_string("storage"), AGENT_ROLE_FS);
        assert_int_equal(agent_role_from_string("node"), AGENT_ROLE_CONTAINER);
        assert_int_equal(agent_role_from_string("clock"), -EINVAL);
        assert_int_equal(agent_role_names(names, ELEMENTSOF(names)), _AGENT_ROLE_MAX + 5);
        assert_true(conflict_class_stacks(CONFLICT_NETNS_SHAPING));
        assert_false(conflict_class_stacks(CONFLICT_CPU_QUOTA));
        assert_false(conflict_class_stacks(_CONFLICT_CLASS_MAX));
}

static void check_param_names(const struct fault_def *f, const struct param_spec *p) {
        CHECK(nonempty(p->name) && nonempty(p->help), f, p);
        CHECK(!in_list(reserved_keys, ELEMENTSOF(reserved_keys), p->name), f, p);
        CHECK(!p->alias || !in_list(reserved_keys, ELEMENTSOF(reserved_keys), p->alias), f, p);
        CHECK(fault_param_find(f, p->name) == p, f, p);
        CHECK(!p->alias || fault_param_find(f, p->alias) == p, f, p);
        CHECK(!p->alias || strcmp(p->alias, p->name) != 0, f, p);
}

static void test_param_names(void **state) {
        /* fault_param_find returns the first match, so a duplicate name or an
         * alias that repeats another parameter's name finds the wrong spec. */
        for_each_param(check_param_names);
}

static double value_as_double(const struct param_value *v) {
        switch (v->type) {
        case PARAM_INTEGER:
        case PARAM_DURATION: return (double)v->i;
        case PARAM_BYTES:
        case PARAM_RATE: return (double)v->u;
        case PARAM_FLOAT:
        case PARAM_PERCENT: return v->f;
        default: return NAN;
        }
}

static bool is_numeric(enum param_type t) {
        return !param_type_is_text(t);
}

static bool choices_contain(const char *const *choices, const char *s) {
        for (; choices && *choices; choices++)
                if (strcmp(*choices, s) == 0)
                        return true;
        return false;
}

static void check_default(const struct fault_def *f, const struct param_spec *p) {
        double d;

        CHECK(p->def.type == p->type, f, p);
        if (param_type_is_text(p->type))
                CHECK(p->def.s != NULL && param_text_check(p, p->def.s, NULL, 0) == 0, f, p);
        if (p->type == PARAM_ENUM)
                CHECK(choices_contain(p->choices, p->def.s), f, p);
        if (!is_numeric(p->type))
                return;
        d = value_as_double(&p->def);
        CHECK(!p->has_min || d >= p->min, f, p);
        CHECK(!p->has_max || d <= p->max, f, p);
}

static void check_param_schema(const struct fault_def *f, const struct param_spec *p) {
        CHECK(param_type_to_string(p->type), f, p);
        CHECK(!(p->required && p->has_default), f, p);
        CHECK(!p->alias || p->type == PARAM_INTEGER, f, p);
        CHECK((p->type == PARAM_ENUM) == (p->choices != NULL), f, p);
        CHECK(p->type != PARAM_ENUM || p->choices[0] != NULL, f, p);
        CHECK(!(p->has_min && p->has_max) || p->min <= p->max, f, p);
        CHECK(!is_numeric(p->type) || (p->has_min && p->has_max), f, p);
        if (p->has_default)
                check_default(f, p);
}

static void test_param_schemas(void **state) {
        for_each_param(check_param_schema);
}

static void test_find(void **state) {
        const struct fault_def *f = catalog_find("net.latency");
        const char *ids[4];

        assert_non_null(f);
        assert_string_equal(f->id, "net.latency");
        assert_null(catalog_find("net.latencyy"));
        assert_null(catalog_find(""));
        assert_null(catalog_at(catalog_size()));
        assert_ptr_equal(fault_param_find(f, "seconds"), fault_param_find(f, "delay_ms"));
        assert_string_equal(fault_param_find(f, "seconds")->name, "delay_ms");
        assert_null(fault_param_find(f, "delay"));
        assert_int_equal(catalog_ids(ids, ELEMENTSOF(ids)), ELEMENTSOF(ids));
        assert_string_equal(ids[0], catalog_at(0)->id);
}

static void test_enum_string_tables(void **state) {
        for (int i = 0; i < _RESOURCE_KIND_MAX; i++)
                assert_int_equal(resource_kind_from_string(resource_kind_to_string(i)), i);
        for (int i = 0; i < _CONFLICT_CLASS_MAX; i++)
                assert_int_equal(conflict_class_from_string(conflict_class_to_string(i)), i);
        for (int i = 0; i < _AGENT_ROLE_MAX; i++)
                assert_int_equal(agent_role_from_string(agent_role_to_string(i)), i);
        for (int i = 0; i < _PARAM_TYPE_MAX; i++)
                assert_int_equal(param_type_from_string(param_type_to_string(i)), i);
        for (int i = 0; i < _NODE_KIND_MAX; i++)
                assert_int_equal(node_kind_from_string(node_kind_to_string(i)), i);
        for (int i = 0; i < _FAULT_STATUS_MAX; i++)
                assert_int_equal(fault_status_from_string(fault_status_to_string(i)), i);
        assert_null(risk_to_string(_RISK_MAX));
        assert_int_equal(risk_from_string("extreme"), -EINVAL);
}

/* Formats v as a drill would spell it and parses it back with basic/units.h. */
static bool round_trips(const struct param_value *v) {
        char buf[64];
        uint64_t u;
        int64_t ms;
        double pct;

        param_value_format(v, buf, sizeof(buf));
        switch (v->type) {
        case PARAM_DURATION: return parse_duration_ms(buf, &ms) == 0 && ms == v->i;
        case PARAM_BYTES: return parse_bytes(buf, &u) == 0 && u == v->u;
        case PARAM_RATE: return parse_rate_bps(buf, &u) == 0 && u == v->u;
        case PARAM_PERCENT: return parse_percent(buf, &pct) == 0 && pct == v->f;
        default: return true;
        }
}

static struct param_value value_of(enum param_type t, double d) {
        struct param_value v = { .type = t };
        if (t == PARAM_DURATION)
                v.i = (int64_t)d;
        else if (t == PARAM_PERCENT)
                v.f = d;
        else
                v.u = (uint64_t)d;
        return v;
}

static void check_round_trip(const struct fault_def *f, const struct param_spec *p) {
        struct param_value lo = value_of(p->type, p->min), hi = value_of(p->type, p->max);

        if (p->type != PARAM_DURATION && p->type != PARAM_BYTES && p->type != PARAM_RATE &&
            p->type != PARAM_PERCENT)
                return;
        CHECK(!p->has_default || round_trips(&p->def), f, p);
        CHECK(round_trips(&lo) && round_trips(&hi), f, p);
}

static void test_format_round_trips(void **state) {
        struct param_value rate = { .type = PARAM_RATE, .u = 10000000 };
        char buf[64];

        for_each_param(check_round_trip);
        param_value_format(&rate, buf, sizeof(buf));
        assert_string_equal(buf, "10mbit");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ids_sorted_unique),
                cmocka_unit_test(test_executable_ids_present),
                cmocka_unit_test(test_enums_valid),
                cmocka_unit_test(test_texts),
                cmocka_unit_test(test_mechanism_needs_declared),
                cmocka_unit_test(test_compensation),
                cmocka_unit_test(test_net_facts),
                cmocka_unit_test(test_roles),
                cmocka_unit_test(test_param_names),
                cmocka_unit_test(test_param_schemas),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_enum_string_tables),
                cmocka_unit_test(test_format_round_trips),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
