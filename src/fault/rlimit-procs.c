#include "rlimit-procs.h"

#include <dirent.h>
#include <string.h>

#include "basic/parse-number.h"
#include "basic/procfs.h"
#include "sys/cgroup.h"

#define ANCESTRY_MAX 64

/* Every process in /proc: pids and their parents. */
static int all_procs(pid_t *pids, pid_t *ppids, size_t max, size_t *ret_n, struct mh_error *reterr) {
        DIR *d = opendir("/proc");
        size_t n = 0;
        if (!d)
                return mh_error_fail(reterr, negative_errno(), "proc", "/proc: %s", strerror(errno));
        for (struct dirent *de; (de = readdir(d));) {
                struct proc_info pi;
                int64_t v;
                if (parse_int64(de->d_name, &v) < 0 || v <= 0 || v > INT32_MAX ||
                    proc_info_read((pid_t)v, &pi) < 0)
                        continue;
                if (n == max) {
                        closedir(d);
                        return mh_error_fail(
                                reterr, -E2BIG, "proc", "more than %zu processes on the host", max);
                }
                pids[n] = pi.pid;
                if (ppids)
                        ppids[n] = pi.ppid;
                n++;
        }
        closedir(d);
        *ret_n = n;
        return 0;
}

#define HOST_PROCS_MAX RLIMIT_CANDIDATES_MAX

static int host_tree(pid_t root, pid_t *ret, size_t *ret_n, struct mh_error *reterr) {
        _cleanup_free_ pid_t *pids = calloc(HOST_PROCS_MAX, sizeof(pid_t)),
                             *ppids = calloc(HOST_PROCS_MAX, sizeof(pid_t));
        size_t n, got = 0;
        int r;
        if (!pids || !ppids)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        if ((r = all_procs(pids, ppids, HOST_PROCS_MAX, &n, reterr)) < 0)
                return r;
        ret[got++] = root;
        /* Breadth first: ret[0..got) are in; add the children of each in turn. */
        for (size_t k = 0; k < got; k++)
                for (size_t i = 0; i < n; i++) {
                        if (ppids[i] != ret[k] || pids[i] == ret[k])
                                continue;
                        if (got == RLIMIT_PIDS_MAX)
                                return mh_error_fail(
                                        reterr, -E2BIG, "rlimit", "process %d has more than %d descendants",
                                        (int)root, RLIMIT_PIDS_MAX);
                        ret[got++] = pids[i];
                }
        *ret_n = got;
        return 0;
}

int rlimit_target_pids(const struct target_identity *t, pid_t *ret, size_t *ret_n, struct mh_error *reterr) {
        if (target_is_host_process(t))
                return host_tree(t->main.pid, ret, ret_n, reterr);
        return cgroup_procs(&t->main, ret, RLIMIT_PIDS_MAX, ret_n, reterr);
}

int rlimit_candidate_pids(
        const struct target_identity *t, pid_t *ret, size_t *ret_n, struct mh_error *reterr) {
        if (target_is_host_process(t))
                return all_procs(ret, NULL, HOST_PROCS_MAX, ret_n, reterr);
        return cgroup_procs(&t->main, ret, RLIMIT_PIDS_MAX, ret_n, reterr);
}

bool rlimit_ancestor_of(pid_t pid, const struct proc_identity *ids, size_t n, size_t *ret_index) {
        struct proc_info pi;
        for (int depth = 0; depth < ANCESTRY_MAX && proc_info_read(pid, &pi) >= 0 && pi.ppid > 1; depth++) {
                pid = pi.ppid;
                struct proc_info up;
                if (proc_info_read(pid, &up) < 0)
                        return false;
                for (size_t i = 0; i < n; i++)
                        if (ids[i].pid == up.pid && ids[i].start_time == up.start_time) {
                                *ret_index = i;
                                return true;
                        }
        }
        return false;
}
