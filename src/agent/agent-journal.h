#pragma once

/* What the agent changed, kept on its own host: one file per lease under a
 * state directory (default /var/lib/mayhem-agent), written before the
 * fault changes anything and on disk when the write returns (written to a
 * temporary file, fsynced, renamed into place, the directory fsynced).
 *
 * A record holds the lease's fault, its target as the agent read it, and
 * what apply recorded to put back (the quota, the device before the fault).
 * Only faults whose undo needs that (struct fault_mechanism.records) write
 * one: the others are undone from the fault and the target, which the
 * agent derives and reads itself. An undo or verify of a lease the agent
 * does not hold (a fresh agent after a crash: `mayhem recover`) uses the
 * record, never a restore a request carries; the record goes once the
 * lease verifies back. */

#include <jansson.h>

#include "basic/procfs.h"
#include "fault/fault.h"

struct agent_journal;

/* Opens (creating, mode 0700) the directory. -errno with msg. */
int agent_journal_open(const char *dir, struct agent_journal **ret, char *msg, size_t size);
struct agent_journal *agent_journal_close(struct agent_journal *j);
const char *agent_journal_dir(const struct agent_journal *j);

/* Replaces lease_id's record: fault, target and restore, on disk on return.
 * -EINVAL for a lease id that cannot name a file (only [A-Za-z0-9_-]). */
int agent_journal_put(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        const struct target_identity *target, const json_t *restore, struct mh_error *reterr);

/* lease_id's record: its target into *ret_target, its restore (a new
 * reference) into *ret_restore, and into *ret_settled whether it was put
 * back and verified already (agent_journal_settle()). -ENOENT when there is
 * none; -EINVAL (with reterr) for one that is not for def, or out of shape. */
int agent_journal_get(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        struct target_identity *ret_target, json_t **ret_restore, bool *ret_settled,
        struct mh_error *reterr);

/* The lease verified back: its record stays, marked settled, so a later
 * recovery of a lease the controller never heard was undone (it died first)
 * is answered "put back already" instead of refused. Settled records older
 * than AGENT_JOURNAL_KEEP_DAYS go when the journal is opened. */
#define AGENT_JOURNAL_KEEP_DAYS 30
int agent_journal_settle(struct agent_journal *j, const char *lease_id);

/* Removes lease_id's record (none: 0): the fault stays on purpose (lease.forget). A lease whose apply
 * failed keeps its record, settled (agent-exec.c), unless that cannot be written. */
int agent_journal_drop(struct agent_journal *j, const char *lease_id);

/* recovery: false (lease.keep): the lease's record says it is kept in force
 * on purpose and, when a process must stay to hold it (keeper: the agent
 * itself, after its run), which one (pid and start time), so a fresh agent
 * can stop that process before it undoes the lease (agent-keep.c). The
 * record is written first when the fault kept none. */
int agent_journal_keep(
        struct agent_journal *j, const char *lease_id, const struct fault_def *def,
        const struct target_identity *target, const json_t *restore, const struct proc_identity *keeper,
        struct mh_error *reterr);

/* The keeper lease_id's record names, into *ret: 1, or 0 when it names none
 * (no record, a record without one, or settled already). */
int agent_journal_keeper(struct agent_journal *j, const char *lease_id, struct proc_identity *ret);
