#include "fault-params.h"

static json_t *value_json(const struct param_value *v) {
        switch (v->type) {
        case PARAM_INTEGER:
        case PARAM_DURATION: return json_integer(v->i);
        case PARAM_BYTES:
        case PARAM_RATE: return json_integer((json_int_t)v->u);
        case PARAM_FLOAT:
        case PARAM_PERCENT: return json_real(v->f);
        default: return json_string(v->s);
        }
}

json_t *fault_params_defaults(const struct fault_def *def, const char *overrides) {
        json_t *given = overrides ? json_loads(overrides, 0, NULL) : json_object(), *o = json_object();
        if (!json_is_object(given) || !o || !def) {
                json_decref(given);
                json_decref(o);
                return NULL;
        }
        for (size_t i = 0; i < def->n_params; i++)
                if (def->params[i].has_default)
                        json_object_set_new(o, def->params[i].name, value_json(&def->params[i].def));
        json_object_update(o, given);
        json_decref(given);
        return o;
}
