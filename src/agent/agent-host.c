#include "agent-host.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static json_t *words_json(const char *text) {
        json_t *a = json_array();
        for (const char *p = text; a && *p;) {
                size_t n = strcspn(p, " \t");
                if (n > 0)
                        json_array_append_new(a, json_stringn(p, n));
                p += n;
                p += strspn(p, " \t");
        }
        return a;
}

static json_t *v1_json(unsigned mounted) {
        static const char *const names[] = {
#define AS_NAME(c) #c,
                HOST_CGROUP_CONTROLLERS(AS_NAME)
#undef AS_NAME
        };
        json_t *a = json_array();
        for (size_t i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
                if (mounted & (1u << i))
                        json_array_append_new(a, json_string(names[i]));
        return a;
}

json_t *agent_host_facts_json(const struct host_facts *h) {
        char caps[24];
        snprintf(caps, sizeof(caps), "%016" PRIx64, h->cap_eff);
        return json_pack(
                "{s:I, s:b, s:s, s:{s:b, s:o, s:o}, s:b, s:o}", "euid", (json_int_t)h->euid, "caps_known",
                h->caps_known, "cap_eff", caps, "cgroup", "v2", h->cgroup_v2, "v2_controllers",
                words_json(h->v2_controllers), "v1", v1_json(h->v1_mounted), "time_ns", h->time_ns, "htb",
                h->htb < 0 ? json_null() : json_boolean(h->htb == 1));
}
