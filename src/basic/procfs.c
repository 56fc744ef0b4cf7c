#include "procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/parse-number.h"

#define STAT_MAX 1024

/* Reads /proc/PID/stat. The command name (field 2) may hold spaces and ')',
 * so fields are counted from the last ')'. */
static int read_stat(pid_t pid, char *state, uint64_t *start_time) {
        char path[64], buf[STAT_MAX];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return n == 0 ? -ESRCH : negative_errno();
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        if (!p || p[1] != ' ' || !p[2])
                return -EPROTO;
        *state = p[2];
        /* After ") " come fields 3.. ; start time is field 22: skip 19 more. */
        p += 2;
        for (int field = 3; field < 22; field++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EPROTO;
                p++;
        }
        char num[32];
        size_t len = strcspn(p, " ");
        if (len == 0 || len >= sizeof(num))
                return -EPROTO;
        memcpy(num, p, len);
        num[len] = '\0';
        int64_t v;
        if (parse_int64(num, &v) < 0 || v < 0)
                return -EPROTO;
        *start_time = (uint64_t)v;
        return 0;
}

int proc_gone(struct mh_error *reterr, const struct proc_identity *id) {
        return mh_error_fail(
                reterr, -ESRCH, "process_gone", "process %d (start time %" PRIu64 ") is gone", (int)id->pid,
                id->start_time);
}

int proc_identity_read(pid_t pid, struct proc_identity *ret, struct mh_error *reterr) {
        char state;
        uint64_t start;
        if (pid <= 0)
                return mh_error_fail(reterr, -EINVAL, "invalid_pid", "invalid pid %d", (int)pid);
        int r = read_stat(pid, &state, &start);
        if (r == -ESRCH)
                return mh_error_fail(reterr, r, "process_gone", "no process %d", (int)pid);
        if (r < 0)
                return mh_error_fail(reterr, r, "proc", "/proc/%d/stat: %s", (int)pid, strerror(-r));
        *ret = (struct proc_identity){ .pid = pid, .start_time = start };
        return 0;
}

/* The process behind id now, or -ESRCH when the pid is free or reused. */
int proc_same(const struct proc_identity *id, char *ret_state) {
        char state;
        uint64_t start;
        int r = read_stat(id->pid, &state, &start);
        if (r < 0)
                return r;
        if (start != id->start_time || state == 'Z' || state == 'X')
                return -ESRCH;
        if (ret_state)
                *ret_state = state;
        return 0;
}

int proc_state(const struct proc_identity *id, char *ret_state, struct mh_error *reterr) {
        int r = proc_same(id, ret_state);
        if (r == -ESRCH)
                return proc_gone(reterr, id);
        if (r < 0)
                return mh_error_fail(reterr, r, "proc", "/proc/%d/stat: %s", (int)id->pid, strerror(-r));
        return 0;
}

static bool comm_is(const char *pid_dir, const char *name) {
        char path[300], comm[32];
        snprintf(path, sizeof(path), "/proc/%s/comm", pid_dir);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, comm, sizeof(comm) - 1);
        if (n <= 0)
                return false;
        comm[n] = '\0';
        comm[strcspn(comm, "\n")] = '\0';
        return strcmp(comm, name) == 0;
}

int proc_find_by_name(const char *name, struct proc_identity *ret, struct mh_error *reterr) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        struct proc_identity found = { 0 };
        char pids[128] = "";
        size_t n = 0, len = 0;
        while (d && (de = readdir(d))) {
                int64_t pid;
                struct proc_identity id;
                char state;
                if (parse_int64(de->d_name, &pid) < 0 || pid <= 0 || !comm_is(de->d_name, name) ||
                    read_stat((pid_t)pid, &state, &id.start_time) < 0 || state == 'Z')
                        continue;
                id.pid = (pid_t)pid;
                if (n++ == 0)
                        found = id;
                int w = snprintf(pids + len, sizeof(pids) - len, "%s%d", len ? ", " : "", (int)pid);
                len = w > 0 ? MIN(len + (size_t)w, sizeof(pids) - 1) : len;
        }
        if (d)
                closedir(d);
        if (n == 0)
                return mh_error_fail(reterr, -ESRCH, "process_gone", "no process named '%s' runs", name);
        if (n > 1)
                return mh_error_fail(
                        reterr, -ENOTUNIQ, "process_ambiguous",
                        "%zu processes are named '%s' (pids %s); name one by pid", n, name, pids);
        *ret = found;
        return 0;
}
