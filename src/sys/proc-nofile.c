#include "proc-nofile.h"

#include <dirent.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/parse-number.h"

static int fail(struct mh_error *reterr, int r, const char *what, pid_t pid) {
        if (r == -ESRCH || r == -ENOENT)
                return mh_error_fail(reterr, -ESRCH, "process_gone", "no process %d", (int)pid);
        return mh_error_fail(reterr, r, "rlimit", "%s of process %d: %s", what, (int)pid, strerror(-r));
}

int proc_nofile_get(pid_t pid, struct rlimit *ret, struct mh_error *reterr) {
        struct rlimit cur;
        if (prlimit(pid, RLIMIT_NOFILE, NULL, &cur) < 0)
                return fail(reterr, negative_errno(), "RLIMIT_NOFILE", pid);
        *ret = cur;
        return 0;
}

int proc_nofile_set(pid_t pid, const struct rlimit *lim, struct mh_error *reterr) {
        if (prlimit(pid, RLIMIT_NOFILE, lim, NULL) < 0)
                return fail(reterr, negative_errno(), "setting RLIMIT_NOFILE", pid);
        return 0;
}

bool nofile_can_raise_hard(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = { 0 };
        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_SYS_RESOURCE / 32].effective & (1u << (CAP_SYS_RESOURCE % 32));
}

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *)a, y = *(const int *)b;
        return (x > y) - (x < y);
}

static int fds_append(int **fds, size_t *n, size_t *cap, int fd) {
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 64;
                int *p = reallocarray(*fds, c, sizeof(int));
                if (!p)
                        return -ENOMEM;
                *fds = p;
                *cap = c;
        }
        (*fds)[(*n)++] = fd;
        return 0;
}

int proc_fd_list(pid_t pid, int **ret_fds, size_t *ret_n, struct mh_error *reterr) {
        _cleanup_free_ int *fds = NULL;
        size_t n = 0, cap = 0;
        char path[64];
        int r = 0;
        snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
        DIR *d = opendir(path);
        if (!d)
                return fail(reterr, negative_errno(), "/proc/PID/fd", pid);
        for (struct dirent *de; r >= 0 && (de = readdir(d));) {
                int64_t v;
                if (de->d_name[0] == '.' || parse_int64(de->d_name, &v) < 0 || v < 0 || v > INT32_MAX ||
                    (pid == getpid() && v == dirfd(d)))
                        continue; /* our own listing's descriptor is not one we hold */
                r = n >= PROC_FDS_MAX ? -E2BIG : fds_append(&fds, &n, &cap, (int)v);
        }
        closedir(d);
        if (r == -E2BIG)
                return mh_error_fail(
                        reterr, r, "rlimit", "process %d has more than %u descriptors open", (int)pid,
                        PROC_FDS_MAX);
        if (r < 0)
                return mh_error_fail(reterr, r, "oom", "out of memory");
        if (n)
                qsort(fds, n, sizeof(int), cmp_int);
        *ret_fds = TAKE_PTR(fds);
        *ret_n = n;
        return 0;
}

uint64_t nofile_soft_for(const int *fds, size_t n, uint64_t headroom) {
        uint64_t soft = headroom;
        for (size_t i = 0; i < n; i++)
                if ((uint64_t)fds[i] < soft)
                        soft++; /* that number is taken: one more below the limit */
        return soft;
}

uint64_t nofile_headroom(const int *fds, size_t n, uint64_t soft) {
        uint64_t below = 0;
        for (size_t i = 0; i < n; i++)
                below += (uint64_t)fds[i] < soft;
        return soft > below ? soft - below : 0;
}
