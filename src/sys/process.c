#include "process.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "pidfd-syscall.h"

int proc_pidfd_open(const struct proc_identity *id, int *ret_fd, struct mh_error *reterr) {
        _cleanup_close_ int fd = (int)syscall(SYS_pidfd_open, id->pid, 0);
        if (fd < 0) {
                int r = negative_errno();
                if (r == -ESRCH)
                        return proc_gone(reterr, id);
                return mh_error_fail(
                        reterr, r, "pidfd", "pidfd_open(%d): %s (needs Linux 5.3 or newer)", (int)id->pid,
                        strerror(-r));
        }
        /* Checked after opening: if the start time still matches, the fd holds
         * the process we meant; a later reuse of the pid cannot redirect it. */
        int r = proc_same(id, NULL);
        if (r == -ESRCH)
                return proc_gone(reterr, id);
        if (r < 0)
                return mh_error_fail(reterr, r, "proc", "/proc/%d/stat: %s", (int)id->pid, strerror(-r));
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int proc_signal(const struct proc_identity *id, int sig, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        int r = proc_pidfd_open(id, &fd, reterr);
        if (r < 0)
                return r;
        if (syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0) {
                r = negative_errno();
                if (r == -ESRCH)
                        return proc_gone(reterr, id);
                return mh_error_fail(
                        reterr, r, "signal", "signal %d to process %d: %s", sig, (int)id->pid, strerror(-r));
        }
        return 0;
}

int proc_pidfd_wait_exit(int pidfd, int timeout_ms) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int r = poll(&p, 1, timeout_ms);
        if (r < 0)
                return negative_errno();
        return r > 0 ? 1 : 0;
}

void proc_child_end(pid_t pid, int wait_ms) {
        for (double until = monotonic_ms() + wait_ms; pid > 0;) {
                pid_t r = waitpid(pid, NULL, WNOHANG);
                if (r == pid || (r < 0 && errno != EINTR))
                        return;
                if (monotonic_ms() > until) {
                        kill(pid, SIGKILL);
                        waitpid(pid, NULL, 0);
                        return;
                }
                sleep_ms(2);
        }
}
