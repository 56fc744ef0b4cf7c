#include "fault.h"

#include <signal.h>

/* Signals the container's main process from the host through a pidfd taken
 * with a start-time check (src/sys/process.c): a recycled pid is never hit. */
static int signal_main(struct fault_exec *fx, int sig, struct mh_error *reterr) {
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "container '%s' has no running main process",
                        fx->target.container_name);
        return proc_signal(&fx->target.main, sig, reterr);
}

int fault_apply_proc_pause(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGSTOP, reterr);
}

int fault_apply_process_stop(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGTERM, reterr);
}

int fault_apply_process_kill(struct fault_exec *fx, struct mh_error *reterr) {
        return signal_main(fx, SIGKILL, reterr);
}
