#include "fault.h"

const char *fault_param_str(const struct fault_exec *fx, const char *name, const char *def) {
        const char *s = json_string_value(json_object_get(fx->params, name));
        return s ? s : def;
}

double fault_param_num(const struct fault_exec *fx, const char *name, double def) {
        const json_t *v = json_object_get(fx->params, name);
        return json_is_number(v) ? json_number_value(v) : def;
}
