#pragma once

/* Undo ops and looks that several mechanisms name (catalog compensation):
 * each is implemented once, in the file of the mechanism that owns it, and
 * listed in the vtables of the others that need it. */

#include "fault/fault.h"

/* fault-engine.c: start the container if it is not running (unpause first). */
int fault_engine_start(const struct fault_exec *fx, struct mh_error *reterr);
/* fault-engine.c: the engine reports the container running, not paused. */
int fault_container_running(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
/* fault-engine.c: the container runs again, started after target.started_at. */
int fault_container_restarted(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
/* fault-signal.c: the process the lease names is gone. */
int fault_process_gone(const struct fault_exec *fx, bool *ret, char *detail, size_t size);
