/* What this build does with each fault: a fact of the catalog, so the
 * controller (which links no src/fault/) can tell runnable faults from
 * planned-only ones at validation, and `discover faults` says the same. */
#include "catalog.h"

#include <string.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/text-kind.h"
#include "catalog-internal.h"

/* One name per vtable in src/fault/registry.c (tests/unit/test-fault.c
 * fails when the two differ). A fault whose mechanism is not here is
 * planned-only: payload, proxy, dns and loadgen are not built yet. */
static const char *const runnable_mechanisms[] = {
        "signal.stop",      "signal.term",    "signal.kill",   "engine.pause", "engine.kill",
        "engine.restart",   "engine.stop",    "crash-loop",    "cgroup.cpu",   "net",
        "link.mtu",         "link.down",      "rlimit.nofile", "mount",        "payload.cpu",
        "payload.fill",     "payload.inodes", "payload.mem",   "payload.leak", "payload.threads",
        "payload.children", "payload.io",
};

static const char *const fault_status_table[_FAULT_STATUS_MAX] = {
        [FAULT_STATUS_RUNNABLE] = "runnable",
        [FAULT_STATUS_PLANNED_ONLY] = "planned-only",
        [FAULT_STATUS_CATALOG_ONLY] = "catalog-only",
};
DEFINE_STRING_TABLE_LOOKUP(fault_status, enum fault_status)

bool catalog_mechanism_runnable(const char *name) {
        for (size_t i = 0; name && i < ELEMENTSOF(runnable_mechanisms); i++)
                if (strcmp(runnable_mechanisms[i], name) == 0)
                        return true;
        return false;
}

enum fault_status fault_status_of(const struct fault_def *f) {
        if (f->refusal)
                return FAULT_STATUS_CATALOG_ONLY;
        return catalog_mechanism_runnable(f->mechanism) ? FAULT_STATUS_RUNNABLE : FAULT_STATUS_PLANNED_ONLY;
}

const struct fault_def *fault_alternative_of(const struct fault_def *f) {
        char id[64];
        if (!f->alternative || strncmp(f->alternative, "use ", 4) != 0)
                return NULL;
        size_t n = strcspn(f->alternative + 4, " ");
        if (n >= sizeof(id))
                return NULL;
        memcpy(id, f->alternative + 4, n);
        id[n] = '\0';
        return catalog_find(id);
}

size_t catalog_count_status(enum fault_status s) {
        size_t n = 0;
        for (size_t i = 0; i < catalog_size(); i++)
                n += fault_status_of(catalog_at(i)) == s;
        return n;
}

int param_text_check(const struct param_spec *p, const char *text, char *why, size_t size) {
        switch (p->type) {
        case PARAM_DNS_NAME: return dns_name_check(text, why, size);
        case PARAM_PATH: return path_check_absolute(text, why, size);
        case PARAM_URL: return url_check_http(text, why, size);
        default: return 0;
        }
}
