#include "fault-params.h"

#include "plan/plan.h"

json_t *fault_params_defaults(const struct fault_def *def, const char *overrides) {
        json_t *given = overrides ? json_loads(overrides, 0, NULL) : json_object(), *o = json_object();
        if (!json_is_object(given) || !o || !def) {
                json_decref(given);
                json_decref(o);
                return NULL;
        }
        for (size_t i = 0; i < def->n_params; i++)
                if (def->params[i].has_default)
                        json_object_set_new(o, def->params[i].name, plan_json_param(&def->params[i].def));
        json_object_update(o, given);
        json_decref(given);
        return o;
}
