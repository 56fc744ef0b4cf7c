#include "fault.h"

#include <arpa/inet.h>
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int bad(struct mh_error *e, const struct fault_def *def, const char *name, const char *why) {
        return mh_error_fail(e, -EINVAL, "invalid_params", "%s: parameter '%.64s' %s", def->id, name, why);
}

static bool in_range(const struct param_spec *p, double v) {
        return (!p->has_min || v >= p->min) && (!p->has_max || v <= p->max);
}

static bool is_choice(const struct param_spec *p, const char *s) {
        for (size_t i = 0; p->choices && p->choices[i]; i++)
                if (strcmp(p->choices[i], s) == 0)
                        return true;
        return false;
}

/* JSON as the plan writes it (plan_json_param): integers for integer,
 * duration (ms), bytes and rate (bit/s), numbers for float and percent,
 * strings for string and enum. */
static int bind_one(
        const struct fault_def *def, const struct param_spec *p, const json_t *j, struct param_value *ret,
        struct mh_error *e) {
        struct param_value v = { .type = p->type };
        double n = json_number_value(j);
        char why[128];
        switch (p->type) {
        case PARAM_INTEGER:
        case PARAM_DURATION:
                if (!json_is_integer(j))
                        return bad(e, def, p->name, "must be an integer");
                v.i = json_integer_value(j);
                break;
        case PARAM_BYTES:
        case PARAM_RATE:
                if (!json_is_integer(j) || json_integer_value(j) < 0)
                        return bad(e, def, p->name, "must be a non-negative integer");
                v.u = (uint64_t)json_integer_value(j);
                break;
        case PARAM_FLOAT:
        case PARAM_PERCENT:
                if (!json_is_number(j) || !isfinite(n))
                        return bad(e, def, p->name, "must be a number");
                v.f = n;
                break;
        default:
                if (!json_is_string(j))
                        return bad(e, def, p->name, "must be a string");
                v.s = json_string_value(j);
                if (p->type == PARAM_ENUM && !is_choice(p, v.s))
                        return bad(e, def, p->name, "is not one of its choices");
                if (param_text_check(p, v.s, why, sizeof(why)) < 0)
                        return bad(e, def, p->name, why);
                break;
        }
        if (json_is_number(j) && !in_range(p, json_number_value(j)))
                return bad(e, def, p->name, "is out of range");
        *ret = v;
        return 0;
}

static int bind_params(
        const struct fault_def *def, const json_t *j, struct fault_params *ret, struct mh_error *e) {
        struct fault_params fp = { .def = def };
        const char *key;
        const json_t *v;
        if (j && !json_is_object(j))
                return mh_error_fail(e, -EINVAL, "invalid_params", "%s: params must be an object", def->id);
        assert(def->n_params <= FAULT_PARAMS_MAX);
        json_object_foreach((json_t *)j, key, v) {
                size_t i = 0;
                while (i < def->n_params && strcmp(def->params[i].name, key) != 0)
                        i++;
                if (i == def->n_params)
                        return bad(e, def, key, "is not a parameter of this fault");
                int r = bind_one(def, &def->params[i], v, &fp.v[i], e);
                if (r < 0)
                        return r;
                fp.set[i] = true;
        }
        for (size_t i = 0; i < def->n_params; i++)
                if (!fp.set[i] && (def->params[i].required || def->params[i].has_default))
                        return bad(e, def, def->params[i].name, "is missing");
        *ret = fp;
        return 0;
}

static int bind_addrs(
        const json_t *a, const char *what, char (*ret)[INET6_ADDRSTRLEN], size_t *ret_n,
        struct mh_error *e) {
        size_t i;
        const json_t *v;
        unsigned char buf[16];
        if (!a)
                return 0;
        if (!json_is_array(a) || json_array_size(a) > FAULT_ADDRS_MAX)
                return mh_error_fail(
                        e, -EINVAL, "invalid_params", "net.%s: at most %d addresses", what, FAULT_ADDRS_MAX);
        json_array_foreach(a, i, v) {
                const char *s = json_string_value(v);
                if (!s || (inet_pton(AF_INET, s, buf) != 1 && inet_pton(AF_INET6, s, buf) != 1))
                        return mh_error_fail(
                                e, -EINVAL, "invalid_params", "net.%s[%zu] is not an IP address", what, i);
                snprintf(ret[i], INET6_ADDRSTRLEN, "%s", s);
        }
        *ret_n = json_array_size(a);
        return 0;
}

static int bind_net(const json_t *j, struct fault_net *ret, struct mh_error *e) {
        struct fault_net n = { 0 };
        const char *delivery = json_string_value(json_object_get(j, "delivery"));
        int d = delivery ? net_delivery_from_string(delivery) : 0;
        int r;
        if (!j) {
                *ret = n;
                return 0;
        }
        if (!json_is_object(j) || d < 0)
                return mh_error_fail(
                        e, -EINVAL, "invalid_params",
                        "net: must be an object naming a known "
                        "delivery");
        n.has_delivery = delivery != NULL;
        n.delivery = (enum net_delivery)d;
        if ((r = bind_addrs(json_object_get(j, "peers"), "peers", n.peers, &n.n_peers, e)) < 0 ||
            (r = bind_addrs(json_object_get(j, "self"), "self", n.self, &n.n_self, e)) < 0)
                return r;
        *ret = n;
        return 0;
}

int fault_exec_bind(
        struct fault_exec *fx, const struct fault_def *def, const json_t *params, const json_t *net,
        struct mh_error *reterr) {
        struct fault_params p;
        struct fault_net n;
        int r;
        if ((r = bind_params(def, params, &p, reterr)) < 0 || (r = bind_net(net, &n, reterr)) < 0)
                return r;
        fx->def = def;
        fx->mech = fault_mechanism_of(def);
        fx->params = p;
        fx->net = n;
        return 0;
}

static int index_of(const struct fault_exec *fx, const char *name) {
        const struct fault_def *def = fx->params.def;
        for (size_t i = 0; def && i < def->n_params; i++)
                if (strcmp(def->params[i].name, name) == 0)
                        return (int)i;
        return -1;
}

const struct param_value *fault_param(const struct fault_exec *fx, const char *name) {
        static const struct param_value none = { .type = _PARAM_TYPE_MAX };
        int i = index_of(fx, name);
        assert(i >= 0 && fx->params.set[i]);
        return i >= 0 && fx->params.set[i] ? &fx->params.v[i] : &none;
}

const struct param_value *fault_param_opt(const struct fault_exec *fx, const char *name) {
        int i = index_of(fx, name);
        return i >= 0 && fx->params.set[i] ? &fx->params.v[i] : NULL;
}

/* The params as bound, back to the JSON the plan writes. */
json_t *fault_params_json(const struct fault_params *p) {
        json_t *o = json_object();
        for (size_t i = 0; o && p->def && i < p->def->n_params; i++) {
                const struct param_value *v = &p->v[i];
                if (!p->set[i])
                        continue;
                json_t *x = v->type == PARAM_INTEGER || v->type == PARAM_DURATION ? json_integer(v->i)
                            : v->type == PARAM_BYTES || v->type == PARAM_RATE
                                    ? json_integer((json_int_t)v->u)
                            : v->type == PARAM_FLOAT || v->type == PARAM_PERCENT ? json_real(v->f)
                                                                                 : json_string(v->s);
                json_object_set_new(o, p->def->params[i].name, x);
        }
        return o;
}
