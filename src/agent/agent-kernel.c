#include "agent-kernel.h"

#include "plan/impact.h"

json_t *agent_kernel_features_json(const struct kernel_features *k) {
        json_t *j = json_pack("{s:b}", "known", k->known);
#define AS_SET(f) json_object_set_new(j, #f, json_boolean(k->f));
        if (j && k->known) {
                KERNEL_FEATURES(AS_SET)
        }
#undef AS_SET
        return j;
}
