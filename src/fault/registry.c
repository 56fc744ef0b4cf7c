#include "fault.h"

#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

/* Every mechanism of this version, one line each (the vtables live in their
 * files). A catalog fault whose .mechanism names none of these is planned
 * but refused before anything is touched. */
#define FAULT_MECHANISMS(X)                                                                                 \
        X(fault_signal_stop)                                                                                \
        X(fault_signal_term)                                                                                \
        X(fault_signal_kill)                                                                                \
        X(fault_engine_pause)                                                                               \
        X(fault_engine_kill)                                                                                \
        X(fault_engine_restart)                                                                             \
        X(fault_engine_stop)                                                                                \
        X(fault_crash_loop)                                                                                 \
        X(fault_cgroup_cpu)                                                                                 \
        X(fault_net)                                                                                        \
        X(fault_link_mtu)                                                                                   \
        X(fault_link_down)                                                                                  \
        X(fault_rlimit_nofile)                                                                              \
        X(fault_mount)                                                                                      \
        X(fault_payload_cpu)                                                                                \
        X(fault_payload_fill)                                                                               \
        X(fault_payload_inodes)                                                                             \
        X(fault_payload_mem)                                                                                \
        X(fault_payload_leak)                                                                               \
        X(fault_payload_threads)                                                                            \
        X(fault_payload_children)                                                                           \
        X(fault_payload_io)                                                                                 \
        /* one line each, above this one */

#define AS_DECLARATION(m) extern const struct fault_mechanism m;
FAULT_MECHANISMS(AS_DECLARATION)
#define AS_ENTRY(m) &m,
static const struct fault_mechanism *const mechanisms[] = { FAULT_MECHANISMS(AS_ENTRY) };

const struct fault_mechanism *fault_mechanism_find(const char *name) {
        for (size_t i = 0; name && i < ELEMENTSOF(mechanisms); i++)
                if (strcmp(mechanisms[i]->name, name) == 0)
                        return mechanisms[i];
        return NULL;
}

const struct fault_mechanism *fault_mechanism_of(const struct fault_def *f) {
        return f ? fault_mechanism_find(f->mechanism) : NULL;
}

size_t fault_mechanism_count(void) {
        return ELEMENTSOF(mechanisms);
}

const struct fault_mechanism *fault_mechanism_at(size_t i) {
        return i < ELEMENTSOF(mechanisms) ? mechanisms[i] : NULL;
}

static const struct fault_undo_op *undo_find(const struct fault_mechanism *m, const char *name) {
        for (size_t i = 0; m && name && i < FAULT_STEPS_MAX && m->undo[i].name; i++)
                if (strcmp(m->undo[i].name, name) == 0)
                        return &m->undo[i];
        return NULL;
}

static const struct fault_look *look_find(const struct fault_look *looks, const char *name) {
        for (size_t i = 0; name && i < FAULT_STEPS_MAX && looks[i].name; i++)
                if (strcmp(looks[i].name, name) == 0)
                        return &looks[i];
        return NULL;
}

bool fault_mechanism_has_undo(const struct fault_mechanism *m, const char *name) {
        return undo_find(m, name) != NULL;
}

bool fault_mechanism_has_verify(const struct fault_mechanism *m, const char *name) {
        return m && look_find(m->verify, name) != NULL;
}

bool fault_mechanism_has_effect(const struct fault_mechanism *m, const char *name) {
        return m && look_find(m->effect, name) != NULL;
}

int fault_undo_run(const struct fault_exec *fx, const char *const *ops, size_t n, struct mh_error *reterr) {
        for (size_t i = 0; i < n; i++) {
                const struct fault_undo_op *op = undo_find(fx->mech, ops[i]);
                int r = op ? op->run(fx, reterr)
                           : mh_error_fail(
                                     reterr, -EOPNOTSUPP, "not_implemented",
                                     "%s: no undo op %s in this version", fx->def ? fx->def->id : "?",
                                     ops[i]);
                if (r < 0) {
                        mh_error_prefix(reterr, "%s: ", ops[i]);
                        return r;
                }
        }
        return 0;
}

static int look_run(
        const struct fault_look *l, const char *what, const struct fault_exec *fx, bool *ret, char *detail,
        size_t size) {
        *ret = false;
        if (!l) {
                snprintf(detail, size, "%s: no such %s in this version", fx->def ? fx->def->id : "?", what);
                return -EOPNOTSUPP;
        }
        return l->run(fx, ret, detail, size);
}

int fault_verify_run(
        const struct fault_exec *fx, const char *name, bool *ret_ok, char *detail, size_t size) {
        return look_run(
                fx->mech ? look_find(fx->mech->verify, name) : NULL, "verify probe", fx, ret_ok, detail,
                size);
}

int fault_effect_run(
        const struct fault_exec *fx, const char *name, bool *ret_in_force, char *detail, size_t size) {
        return look_run(
                fx->mech ? look_find(fx->mech->effect, name) : NULL, "effect check", fx, ret_in_force,
                detail, size);
}

int fault_record(const struct fault_exec *fx, struct mh_error *reterr) {
        return fx->record ? fx->record(fx, fx->record_userdata, reterr) : 0;
}
