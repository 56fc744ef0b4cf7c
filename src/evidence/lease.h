#pragma once

/* The write-ahead lease journal (docs/internals/lease-journal.md). A lease is
 * the durable promise to undo one fault on one target: it is committed, with
 * its undo ops and verify probes, before anything is mutated, and it moves
 * through a small state machine by compare-and-set, so two actors (runner,
 * janitor, recovery, watchdog) can never both act on it. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"
#include "evidence/evidence.h"

enum lease_state {
        LEASE_PENDING,   /* journalled, not (yet) known to be applied */
        LEASE_ACTIVE,    /* the fault is in force */
        LEASE_RELEASING, /* undo in progress */
        LEASE_RELEASED,  /* undone and verified */
        LEASE_EXPIRED,   /* given up: never applied, undone by the watchdog, or surrendered */
        LEASE_ORPHANED,  /* active, but its owner is gone */
        LEASE_DIRTY,     /* undo or verify failed: a person must look */
        LEASE_KEPT, /* "kept_faulted": recovery: false left it in force on purpose; open until recovered */
        _LEASE_STATE_MAX,
};

const char *lease_state_to_string(enum lease_state s);
int lease_state_from_string(const char *s);

/* released and expired: nothing more will be done to the lease. */
bool lease_state_is_safe_terminal(enum lease_state s);

/* pending->{active, releasing, expired}; active->{releasing, expired, orphaned, kept_faulted};
 * orphaned->{releasing, expired}; releasing->{released, dirty}; dirty->{expired, releasing};
 * kept_faulted->{releasing, expired}. */
bool lease_transition_allowed(enum lease_state from, enum lease_state to);

/* How a lease was released (release_mechanism; also a recovery record's mechanism). */
enum lease_mechanism {
        LEASE_MECHANISM_NORMAL,
        LEASE_MECHANISM_WATCHDOG,
        LEASE_MECHANISM_JANITOR,
        LEASE_MECHANISM_MANUAL,
        LEASE_MECHANISM_KEPT_FAULTED, /* recovery: false — left in force on purpose */
        _LEASE_MECHANISM_MAX,
};

const char *lease_mechanism_to_string(enum lease_mechanism m);
int lease_mechanism_from_string(const char *s);

#define LEASE_ID_MAX        EVIDENCE_ID_MAX /* "l-" + 16 hex + NUL */
#define LEASE_TTL_DEFAULT_S 120             /* the reference's default, used for ttl_seconds 0 */
#define LEASE_TTL_MAX_S     (7U * 24 * 3600)

struct lease_new {
        const char *run_id, *fault_id, *owner_agent;
        const char *targets_json;          /* required */
        const char *undo_json;             /* required, non-empty: the ops that put the target back */
        const char *verify_json;           /* required, non-empty: the probes that prove it */
        const char *runtime_identity_json; /* optional here; required before active */
        const char *params_json;           /* the fault's typed params, as the agent binds them */
        const char *net_json;              /* a network fault's delivery and addresses; NULL otherwise */
        /* The target, as lease_target_key() spells it. When set, the lease is
         * refused (-EBUSY, exit 5) while an open lease on the same key holds a
         * fault of a conflicting class (catalog.h, conflict_class_stacks()). */
        const char *target_key;
        unsigned ttl_seconds; /* 0: LEASE_TTL_DEFAULT_S */
};

/* Journals a new lease in state pending, expires_at = now + ttl. It is
 * committed and fsync'd (synchronous=FULL) before this returns: this is the
 * write-ahead record, and nothing may be mutated before it exists. The run
 * must exist and not have ended. */
int lease_create(
        struct evidence *ev, const struct lease_new *l, char ret_id[LEASE_ID_MAX], struct mh_error *reterr);

/* Optional changes made together with a transition. NULL fields are left alone. */
struct lease_update {
        const char *runtime_identity_json;
        const char *undo_json;         /* replaces the ops, e.g. with live identity added; never emptied */
        const char *release_mechanism; /* normal watchdog janitor manual kept_faulted */
        const char *escalation_notes;
        bool set_injected_at, set_released_at; /* stamp now */
};

/* "container:<64 hex id>", or "process:<pid>:<start time>" for a host
 * process, from a runtime identity JSON (fault/identity.c); NULL when it
 * names neither. A new string. */
char *lease_target_key(const char *runtime_identity_json);

/* faults_conflict() (catalog.h) by id; an unknown id conflicts with all. */
bool lease_faults_conflict(const char *fault_a, const char *fault_b);
/* 0 when no open lease on target_key holds a fault that conflicts with
 * fault_id; -EBUSY (exit 5, naming the lease and run) when one does. A
 * preflight: lease_create() checks again in its own transaction. */
int lease_conflicts(
        struct evidence *ev, const char *target_key, const char *fault_id, struct mh_error *reterr);

/* Atomic compare-and-set (UPDATE ... WHERE id=? AND state=from), with a
 * lease.state_changed event in the same transaction. -EINVAL when from->to is
 * not an allowed transition (nothing is read or written), -ENOENT for an
 * unknown lease, -ESTALE when the lease is not in from (the message says
 * which state it is in). Invariants: entering active needs undo ops, verify
 * probes and a runtime identity; entering dirty needs escalation notes. */
int lease_transition(
        struct evidence *ev, const char *lease_id, enum lease_state from, enum lease_state to,
        const struct lease_update *upd, struct mh_error *reterr);

/* A person gives the lease up (`mayhem recover forget`): it cannot be
 * undone and verified, and they take it from here. Whatever open state it
 * is in becomes expired (releasing through dirty), with release mechanism
 * manual, the reason in its escalation notes and a recovery record that says
 * nothing was verified; later runs and the janitor no longer act on it.
 * -EALREADY for a lease that is released or expired already, -ENOENT for an
 * unknown one. *ret_from gets the state it left. */
int lease_forget(
        struct evidence *ev, const char *lease_id, const char *reason, enum lease_state *ret_from,
        struct mh_error *reterr);

/* Pushes expires_at to now + ttl_seconds (0: the default) for a lease that is
 * pending or active; -ESTALE otherwise. */
int lease_extend(struct evidence *ev, const char *lease_id, unsigned ttl_seconds, struct mh_error *reterr);

struct lease {
        char id[LEASE_ID_MAX];
        char *run_id, *fault_id, *owner_agent, *targets_json, *undo_json, *verify_json,
                *runtime_identity_json, *release_mechanism, *escalation_notes, *params_json,
                *net_json; /* NULL when not set */
        enum lease_state state;
        unsigned ttl_seconds;
        /* RFC 3339 UTC with milliseconds; "" when not set */
        char created_at[EVIDENCE_TIMESTAMP_MAX], expires_at[EVIDENCE_TIMESTAMP_MAX],
                injected_at[EVIDENCE_TIMESTAMP_MAX], released_at[EVIDENCE_TIMESTAMP_MAX];
};

/* Fills *ret (release with lease_done()); -ENOENT for an unknown lease. */
int lease_get(struct evidence *ev, const char *lease_id, struct lease *ret, struct mh_error *reterr);
/* Leases of a run (NULL: of every run), oldest first; only_open leaves out
 * released and expired ones. *ret is NULL when there are none. */
int lease_list(
        struct evidence *ev, const char *run_id, bool only_open, struct lease **ret, size_t *ret_n,
        struct mh_error *reterr);
void lease_done(struct lease *l);
void lease_array_free(struct lease *a, size_t n);

/* The same as JSON for `mayhem inspect leases`, oldest first: an array of
 * {id, run_id, fault_id, state, open (not released/expired), overdue (open and
 * past expires_at), owner_agent, targets, undo, verify, runtime_identity
 * (parsed JSON), params, net (parsed JSON, null when unset), ttl_seconds, created_at, expires_at,
 * injected_at, released_at, release_mechanism, escalation_notes (null when unset)}. -ENOENT when run_id
 * names no run. */
int evidence_leases_json(
        struct evidence *ev, const char *run_id, bool only_open, json_t **ret, struct mh_error *reterr);
