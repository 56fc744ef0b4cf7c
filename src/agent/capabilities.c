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

#define CAP_BIT(c)      (1u << (c))
#define RESOURCE_BIT(k) (1u << (k))
#define ROLE_CAPS       (CAP_BIT(CAP_FAULT_INJECT) | CAP_BIT(CAP_FAULT_UNDO) | CAP_BIT(CAP_PROBE_RUN))
#define ROLE_NAMES_MAX  (2 * _AGENT_ROLE_MAX)

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
        size_t n = agent_role_names(names, ELEMENTSOF(names));
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

static int role_of(const char *name, size_t len) {
        char word[32];
        if (len >= sizeof(word))
                return -EINVAL;
        memcpy(word, name, len);
        word[len] = '\0';
        return agent_role_from_string(word);
}

/* The resources the faults of the given roles touch, from the catalog. */
static unsigned resources_of(unsigned roles) {
        unsigned bits = 0;
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                if ((roles & ROLE_BIT(f->role)) && f->resource != RESOURCE_NONE)
                        bits |= RESOURCE_BIT(f->resource);
        }
        return bits;
}

int agent_capabilities_from_roles(
        const char *roles_csv, struct agent_capabilities *ret, char *msg, size_t msg_size) {
        struct agent_capabilities c = { 0 };
        const char *p = roles_csv ? roles_csv : AGENT_ROLES_DEFAULT;

        assert(ret);
        for (;;) {
                const char *comma = strchr(p, ',');
                const char *e = comma ? comma : p + strlen(p);
                while (p < e && (*p == ' ' || *p == '\t'))
                        p++;
                while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
                        e--;
                if (e > p) {
                        int role = role_of(p, (size_t)(e - p));
                        if (role < 0)
                                return unknown_role(p, (size_t)(e - p), msg, msg_size);
                        c.roles |= ROLE_BIT(role);
                        c.caps |= ROLE_CAPS;
                        if (role == AGENT_ROLE_NETWORK)
                                c.caps |= CAP_BIT(CAP_NETWORK_ACCESS);
                }
                if (!comma)
                        break;
                p = comma + 1;
        }
        if (c.roles == 0) {
                const char *names[ROLE_NAMES_MAX];
                char known[512];

                strv_join(known, sizeof(known), names, agent_role_names(names, ELEMENTSOF(names)), 0);
                return fail(msg, msg_size, "no role given (known roles: %s)", known);
        }
        c.resources = resources_of(c.roles);
        if (c.resources)
                c.caps |= CAP_BIT(CAP_RESOURCE_ACCESS);
        *ret = c;
        return 0;
}

bool agent_capabilities_has(const struct agent_capabilities *c, enum agent_capability cap) {
        return c && (unsigned)cap < _AGENT_CAPABILITY_MAX && (c->caps & CAP_BIT(cap));
}

bool agent_can_access(const struct agent_capabilities *c, enum resource_kind k) {
        if (k == RESOURCE_NONE)
                return c != NULL;
        return agent_capabilities_has(c, CAP_RESOURCE_ACCESS) && (unsigned)k < _RESOURCE_KIND_MAX &&
               (c->resources & RESOURCE_BIT(k));
}

static bool can(
        const struct agent_capabilities *c, enum agent_capability cap, const struct fault_def *f,
        bool host_process) {
        unsigned need = f ? fault_roles_on(f, host_process) : 0;
        return f && agent_capabilities_has(c, cap) && (c->roles & need) == need &&
               agent_can_access(c, f->resource);
}

bool agent_can_inject(const struct agent_capabilities *c, const struct fault_def *f) {
        return can(c, CAP_FAULT_INJECT, f, false);
}

bool agent_can_undo(const struct agent_capabilities *c, const struct fault_def *f) {
        return can(c, CAP_FAULT_UNDO, f, false);
}

bool agent_can_inject_on(const struct agent_capabilities *c, const struct fault_def *f, bool host_process) {
        return can(c, CAP_FAULT_INJECT, f, host_process);
}

bool agent_can_undo_on(const struct agent_capabilities *c, const struct fault_def *f, bool host_process) {
        return can(c, CAP_FAULT_UNDO, f, host_process);
}

bool agent_can_reach_host(const struct agent_capabilities *c) {
        return c && (c->roles & ROLES_HOST_TARGET) == ROLES_HOST_TARGET;
}

static int append(json_t *a, const char *s) {
        return json_array_append_new(a, json_string(s));
}

json_t *agent_capabilities_json(const struct agent_capabilities *c) {
        _cleanup_(json_decrefp) json_t *o = json_object();
        json_t *roles = json_array(), *caps = json_array(), *faults = json_array(), *res = json_array();
        int r = 0;

        assert(c);
        if (!o || json_object_set_new(o, "host_targets", json_boolean(agent_can_reach_host(c))) < 0 ||
            json_object_set_new(o, "roles", roles) < 0 || json_object_set_new(o, "capabilities", caps) < 0 ||
            json_object_set_new(o, "allowed_faults", faults) < 0 ||
            json_object_set_new(o, "allowed_resources", res) < 0)
                return NULL;
        for (int i = 0; i < _AGENT_ROLE_MAX && r >= 0; i++)
                if (c->roles & ROLE_BIT(i))
                        r = append(roles, agent_role_to_string(i));
        for (int i = 0; i < _AGENT_CAPABILITY_MAX && r >= 0; i++)
                if (agent_capabilities_has(c, i))
                        r = append(caps, agent_capability_to_string(i));
        for (size_t i = 0; i < catalog_size() && r >= 0; i++)
                if (catalog_at(i)->mechanism && agent_can_inject(c, catalog_at(i)))
                        r = append(faults, catalog_at(i)->id);
        for (int i = 0; i < _RESOURCE_KIND_MAX && r >= 0; i++)
                if (i != RESOURCE_NONE && (c->resources & RESOURCE_BIT(i)))
                        r = append(res, resource_kind_to_string(i));
        return r < 0 ? NULL : TAKE_PTR(o);
}
