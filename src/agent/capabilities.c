#include "capabilities.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/suggest.h"

static const char *const agent_capability_table[_AGENT_CAPABILITY_MAX] = {
        [CAP_FAULT_INJECT] = "fault_inject",     [CAP_FAULT_UNDO] = "fault_undo",
        [CAP_PROBE_RUN] = "probe_run",           [CAP_RESOURCE_ACCESS] = "resource_access",
        [CAP_NETWORK_ACCESS] = "network_access", [CAP_SHELL_EXEC] = "shell_exec",
};
DEFINE_STRING_TABLE_LOOKUP(agent_capability, enum agent_capability)

#define CAP_BIT(c) (1u << (c))
#define ROLE_CAPS  (CAP_BIT(CAP_FAULT_INJECT) | CAP_BIT(CAP_FAULT_UNDO) | CAP_BIT(CAP_PROBE_RUN))

struct role {
        const char *names[2];
        const char *faults[6];
        const char *resources[1];
        unsigned caps; /* beyond ROLE_CAPS */
};

static const struct role roles[] = {
        { { "proc", "process" }, { "proc.", "process." }, { "process" }, 0 },
        { { "container", "node" }, { "container.", "node.", "process.crash_loop" }, { "container" }, 0 },
        { { "cpu" }, { "cpu." }, { "cgroup" }, 0 },
        { { "memory", "mem" }, { "mem." }, { "cgroup" }, 0 },
        { { "fs", "storage" }, { "fs.", "fd." }, { "mount" }, 0 },
        { { "network", "net" },
          { "net.", "dependency.", "dns.", "tls.", "http.", "db." },
          { "netns" },
          CAP_BIT(CAP_NETWORK_ACCESS) },
        { { "load" }, { "load.", "net.load" }, { NULL }, 0 },
        { { "fuzz" }, { "fuzz." }, { NULL }, 0 },
};

#define ROLE_NAMES_MAX (ELEMENTSOF(roles) * ELEMENTSOF(roles[0].names))

static size_t role_names(const char **v) {
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(roles); i++)
                for (size_t j = 0; j < ELEMENTSOF(roles[i].names) && roles[i].names[j]; j++)
                        v[n++] = roles[i].names[j];
        return n;
}

static const struct role *role_find(const char *name, size_t len, const char **ret_name) {
        for (size_t i = 0; i < ELEMENTSOF(roles); i++)
                for (size_t j = 0; j < ELEMENTSOF(roles[i].names) && roles[i].names[j]; j++)
                        if (strlen(roles[i].names[j]) == len && memcmp(roles[i].names[j], name, len) == 0) {
                                *ret_name = roles[i].names[j];
                                return &roles[i];
                        }
        return NULL;
}

/* Appends s unless present; the tables are small and fixed, so the bound
 * is a programmer error. */
static void add_unique(const char **v, size_t *n, size_t max, const char *s) {
        for (size_t i = 0; i < *n; i++)
                if (streq(v[i], s))
                        return;
        assert(*n < max);
        v[(*n)++] = s;
}

_printf_(3, 4) static int fail(char *msg, size_t size, const char *fmt, ...) {
        va_list ap;

        if (msg && size > 0) {
                va_start(ap, fmt);
                (void)vsnprintf(msg, size, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static int unknown_role(const char *name, size_t len, char *msg, size_t msg_size) {
        const char *names[ROLE_NAMES_MAX];
        char known[512], word[64];
        size_t n = role_names(names);
        const char *hint = NULL;

        strv_join(known, sizeof(known), names, n, 0);
        if (len < sizeof(word)) {
                memcpy(word, name, len);
                word[len] = '\0';
                hint = suggest_closest(word, names, n);
        }
        /* The name comes from the command line: shown bounded, and only up
         * to a control character, so the message stays one line. */
        int shown = 0;
        while ((size_t)shown < MIN(len, (size_t)64) && (unsigned char)name[shown] >= 0x20 &&
               name[shown] != 0x7f)
                shown++;
        if (hint)
                return fail(
                        msg, msg_size, "unknown role '%.*s%s', did you mean '%s'? (known roles: %s)", shown,
                        name, (size_t)shown < len ? "..." : "", hint, known);
        return fail(
                msg, msg_size, "unknown role '%.*s%s' (known roles: %s)", shown, name,
                (size_t)shown < len ? "..." : "", known);
}

int agent_capabilities_from_roles(
        const char *roles_csv, struct agent_capabilities *ret, char *msg, size_t msg_size) {
        struct agent_capabilities c = { 0 };
        const char *p = roles_csv ? roles_csv : AGENT_ROLES_DEFAULT;

        assert(ret);
        for (;;) {
                const char *comma = strchr(p, ',');
                const char *e = comma ? comma : p + strlen(p);
                const char *name;
                const struct role *role;

                while (p < e && (*p == ' ' || *p == '\t'))
                        p++;
                while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
                        e--;
                if (e > p) {
                        role = role_find(p, (size_t)(e - p), &name);
                        if (!role)
                                return unknown_role(p, (size_t)(e - p), msg, msg_size);
                        add_unique(c.roles, &c.n_roles, ELEMENTSOF(c.roles), name);
                        c.caps |= ROLE_CAPS | role->caps;
                        for (size_t i = 0; i < ELEMENTSOF(role->faults) && role->faults[i]; i++)
                                add_unique(
                                        c.allowed_faults, &c.n_allowed_faults, ELEMENTSOF(c.allowed_faults),
                                        role->faults[i]);
                        for (size_t i = 0; i < ELEMENTSOF(role->resources) && role->resources[i]; i++)
                                add_unique(
                                        c.allowed_resources, &c.n_allowed_resources,
                                        ELEMENTSOF(c.allowed_resources), role->resources[i]);
                }
                if (!comma)
                        break;
                p = comma + 1;
        }
        if (c.n_roles == 0) {
                const char *names[ROLE_NAMES_MAX];
                char known[512];

                strv_join(known, sizeof(known), names, role_names(names), 0);
                return fail(msg, msg_size, "no role given (known roles: %s)", known);
        }
        if (c.n_allowed_resources > 0)
                c.caps |= CAP_BIT(CAP_RESOURCE_ACCESS);
        *ret = c;
        return 0;
}

bool agent_capabilities_has(const struct agent_capabilities *c, enum agent_capability cap) {
        return c && (unsigned)cap < _AGENT_CAPABILITY_MAX && (c->caps & CAP_BIT(cap));
}

static bool fault_allowed(const struct agent_capabilities *c, const char *fault_id) {
        if (c->n_allowed_faults == 0)
                return true;
        for (size_t i = 0; i < c->n_allowed_faults; i++) {
                const char *a = c->allowed_faults[i];
                size_t n = strlen(a);

                if (n > 0 && a[n - 1] == '.' ? strncmp(fault_id, a, n) == 0 : streq(fault_id, a))
                        return true;
        }
        return false;
}

bool agent_can_inject(const struct agent_capabilities *c, const char *fault_id) {
        return fault_id && agent_capabilities_has(c, CAP_FAULT_INJECT) && fault_allowed(c, fault_id);
}

bool agent_can_undo(const struct agent_capabilities *c, const char *fault_id) {
        return fault_id && agent_capabilities_has(c, CAP_FAULT_UNDO) && fault_allowed(c, fault_id);
}

bool agent_can_access(const struct agent_capabilities *c, const char *resource_kind) {
        if (!resource_kind || !agent_capabilities_has(c, CAP_RESOURCE_ACCESS))
                return false;
        if (c->n_allowed_resources == 0)
                return true;
        for (size_t i = 0; i < c->n_allowed_resources; i++)
                if (streq(resource_kind, c->allowed_resources[i]))
                        return true;
        return false;
}

static json_t *string_array(const char *const *v, size_t n) {
        _cleanup_(json_decrefp) json_t *a = json_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (json_array_append_new(a, json_string(v[i])) < 0)
                        return NULL;
        return TAKE_PTR(a);
}

json_t *agent_capabilities_json(const struct agent_capabilities *c) {
        const char *caps[_AGENT_CAPABILITY_MAX];
        size_t n = 0;
        _cleanup_(json_decrefp) json_t *o = json_object();

        assert(c);
        for (enum agent_capability i = 0; i < _AGENT_CAPABILITY_MAX; i++)
                if (agent_capabilities_has(c, i))
                        caps[n++] = agent_capability_to_string(i);
        if (!o || json_object_set_new(o, "capabilities", string_array(caps, n)) < 0 ||
            json_object_set_new(o, "allowed_faults", string_array(c->allowed_faults, c->n_allowed_faults)) <
                    0 ||
            json_object_set_new(
                    o, "allowed_resources", string_array(c->allowed_resources, c->n_allowed_resources)) < 0)
                return NULL;
        return TAKE_PTR(o);
}
