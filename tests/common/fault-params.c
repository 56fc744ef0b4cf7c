#include "fault-params.h"

#include <errno.h>
#include <stdlib.h>

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

int fault_case_split(const struct fault_def *def, const char *text, json_t **ret_params, json_t **ret_net) {
        static const char *const net_keys[] = { "delivery", "peers", "self" };
        json_t *all = json_loads(text, 0, NULL), *net = json_object();
        for (size_t i = 0; json_is_object(all) && i < 3; i++)
                if (json_object_get(all, net_keys[i])) {
                        json_object_set(net, net_keys[i], json_object_get(all, net_keys[i]));
                        json_object_del(all, net_keys[i]);
                }
        char *rest = json_is_object(all) ? json_dumps(all, JSON_COMPACT) : NULL;
        json_t *params = rest ? fault_params_defaults(def, rest) : NULL;
        free(rest);
        json_decref(all);
        if (!params || !net) {
                json_decref(params);
                json_decref(net);
                return -EINVAL;
        }
        *ret_params = params;
        *ret_net = net;
        return 0;
}
