#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/live.h"
#include "fault/payload.h"
#include "sys/cgroup.h"

/* The ops every payload mechanism shares (payload.h). */

#define PAYLOAD_PIDS_MAX 4096
#define KILL_WAIT_MS     1000

int fault_payload_apply(struct fault_exec *fx, struct mh_error *reterr) {
        struct payload *p = NULL;
        char ready[PAYLOAD_LINE_MAX];
        int r = payload_start(fx, &p, ready, sizeof(ready), reterr);
        if (r < 0)
                return r;
        if ((r = fault_live_put(fx->lives, fx->lease_id, fx->mech, p)) < 0) {
                payload_stop(p);
                return mh_error_fail(reterr, r, "live", "cannot hold the payload of %s", fx->lease_id);
        }
        return 0;
}

void fault_payload_release(void *live) {
        payload_stop(live);
}

/* The argv of /proc/PID/cmdline says: a payload of lease_id. */
static bool argv_of_lease(pid_t pid, const char *lease_id) {
        char path[64], buf[4096];
        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        const char *arg = buf, *end = buf + n;
        bool payload = false, lease_next = false;
        for (int i = 0; arg < end; i++, arg += strlen(arg) + 1) {
                if (i == 1)
                        payload = strcmp(arg, "payload") == 0;
                else if (payload && lease_next)
                        return strcmp(arg, lease_id) == 0;
                lease_next = strcmp(arg, "--lease") == 0;
        }
        return false;
}

/* The program of pid is ours (a process in the target claiming to be a
 * payload is not one). */
static bool runs_our_exe(pid_t pid) {
        char path[64];
        struct stat self, other;
        snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
        return stat("/proc/self/exe", &self) == 0 && stat(path, &other) == 0 &&
               self.st_dev == other.st_dev && self.st_ino == other.st_ino;
}

int payload_pids_of_lease(
        const struct target_identity *t, const char *lease_id, pid_t *ret, size_t max, size_t *ret_n,
        struct mh_error *reterr) {
        static pid_t pids[PAYLOAD_PIDS_MAX];
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        size_t n = 0, found = 0;
        *ret_n = 0;
        if (t->main.pid <= 0)
                return 0;
        pthread_mutex_lock(&lock);
        int r = cgroup_procs(&t->main, pids, PAYLOAD_PIDS_MAX, &n, reterr);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (argv_of_lease(pids[i], lease_id) && runs_our_exe(pids[i]) && found < max)
                        ret[found++] = pids[i];
        pthread_mutex_unlock(&lock);
        *ret_n = found;
        return r == -ESRCH ? 0 : r; /* the target is gone, and its cgroup with it */
}

int fault_payload_kill(const struct fault_exec *fx, struct mh_error *reterr) {
        payload_stop(fault_live_take(fx->lives, fx->lease_id));
        pid_t left[16];
        size_t n = 0;
        for (double until = monotonic_ms() + KILL_WAIT_MS;;) {
                int r = payload_pids_of_lease(&fx->target, fx->lease_id, left, ELEMENTSOF(left), &n, reterr);
                if (r < 0)
                        return r;
                if (n == 0)
                        return 0;
                if (monotonic_ms() > until)
                        return mh_error_fail(
                                reterr, -EBUSY, "payload_left",
                                "payload pid %d of %s is still in the target's cgroup", (int)left[0],
                                fx->lease_id);
                for (size_t i = 0; i < n; i++)
                        kill(left[i], SIGKILL);
                sleep_ms(10);
        }
}

int fault_payload_gone(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mh_error e = { 0 };
        pid_t left[1];
        size_t n = 0;
        *ret = false;
        if (payload_pids_of_lease(&fx->target, fx->lease_id, left, 1, &n, &e) < 0) {
                snprintf(detail, size, "%s", e.msg);
                return e.code;
        }
        *ret = n == 0;
        if (n)
                snprintf(detail, size, "payload pid %d is still in the target's cgroup", (int)left[0]);
        else
                snprintf(detail, size, "no payload of ours in the target's cgroup");
        return 0;
}

static void last_of(void *live, void *arg) {
        char **out = arg;
        if (!payload_last(live, out[1], PAYLOAD_LINE_MAX))
                out[0] = NULL;
}

int fault_payload_running(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        char line[PAYLOAD_LINE_MAX] = "";
        char *out[2] = { line, line };
        *ret = fault_live_with(fx->lives, fx->lease_id, last_of, out) && out[0];
        if (!*ret) {
                snprintf(detail, size, "the payload is not running");
                return 0;
        }
        /* It runs, and says so: not a measured effect. */
        snprintf(detail, size, "the payload runs (%s); its effect is not measured", line);
        return FAULT_EFFECT_UNOBSERVED;
}
