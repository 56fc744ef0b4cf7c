#include "procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/parse-number.h"
#include "basic/proc-scope.h"

#define STAT_MAX 1024

/* Reads /proc/PID/stat. The command name (field 2) may hold spaces and ')',
 * so fields are counted from the last ')'. */
static int read_stat(pid_t pid, struct proc_info *ret) {
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
        struct proc_info info = { .pid = pid, .state = p[2] };
        int64_t v;
        /* After ") " come fields 3.. : 4 is the parent, 9 the PF_* flags, 22 the start time. */
        p += 2;
        for (int field = 3; field <= 22; field++) {
                char num[32];
                size_t len = strcspn(p, " ");
                if (len == 0 || len >= sizeof(num))
                        return -EPROTO;
                memcpy(num, p, len);
                num[len] = '\0';
                if ((field == 4 || field == 9 || field == 22) && (parse_int64(num, &v) < 0 || v < 0))
                        return -EPROTO;
                if (field == 4)
                        info.ppid = (pid_t)MIN(v, (int64_t)INT32_MAX);
                else if (field == 9)
                        info.flags = (unsigned)MIN(v, (int64_t)UINT32_MAX);
                else if (field == 22)
                        info.start_time = (uint64_t)v;
                p += len;
                if (field < 22 && *p++ != ' ')
                        return -EPROTO;
        }
        *ret = info;
        return 0;
}

int proc_info_read(pid_t pid, struct proc_info *ret) {
        return pid > 0 ? read_stat(pid, ret) : -EINVAL;
}

int proc_tgid(pid_t pid, pid_t *ret) {
        char path[64], buf[STAT_MAX];
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        _cleanup_close_ int fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -EBADF;
        if (fd < 0)
                return pid <= 0 ? -EINVAL : errno == ENOENT ? -ESRCH : negative_errno();
        ssize_t n = read(fd, buf, sizeof(buf) - 1); /* Tgid is the fourth line, well within it */
        if (n <= 0)
                return n == 0 ? -ESRCH : negative_errno();
        buf[n] = '\0';
        const char *t = strstr(buf, "\nTgid:");
        int64_t v;
        char num[32];
        if (!t)
                return -EPROTO;
        t += strlen("\nTgid:");
        t += strspn(t, " \t");
        size_t len = strcspn(t, "\n");
        if (len == 0 || len >= sizeof(num))
                return -EPROTO;
        memcpy(num, t, len);
        num[len] = '\0';
        if (parse_int64(num, &v) < 0 || v <= 0 || v > INT32_MAX)
                return -EPROTO;
        *ret = (pid_t)v;
        return 0;
}

void proc_comm(pid_t pid, char *buf, size_t size) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 || size < 2 ? -1 : read(fd, buf, size - 1);
        if (n <= 0) {
                snprintf(buf, size, "?");
                return;
        }
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
}

int proc_gone(struct mh_error *reterr, const struct proc_identity *id) {
        return mh_error_fail(
                reterr, -ESRCH, "process_gone", "process %d (start time %" PRIu64 ") is gone", (int)id->pid,
                id->start_time);
}

int proc_identity_read(pid_t pid, struct proc_identity *ret, struct mh_error *reterr) {
        struct proc_info info;
        if (pid <= 0)
                return mh_error_fail(reterr, -EINVAL, "invalid_pid", "invalid pid %d", (int)pid);
        int r = read_stat(pid, &info);
        if (r == -ESRCH)
                return mh_error_fail(reterr, r, "process_gone", "no process %d", (int)pid);
        if (r < 0)
                return mh_error_fail(reterr, r, "proc", "/proc/%d/stat: %s", (int)pid, strerror(-r));
        *ret = (struct proc_identity){ .pid = pid, .start_time = info.start_time };
        return 0;
}

/* The process behind id now, or -ESRCH when the pid is free or reused. */
int proc_same(const struct proc_identity *id, char *ret_state) {
        struct proc_info info;
        int r = read_stat(id->pid, &info);
        if (r < 0)
                return r;
        if (info.start_time != id->start_time || info.state == 'Z' || info.state == 'X')
                return -ESRCH;
        if (ret_state)
                *ret_state = info.state;
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

int proc_each_named(const char *name, int (*fn)(const struct proc_info *p, void *userdata), void *userdata) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int r = 0;
        if (!d)
                return negative_errno();
        while (r == 0 && (de = readdir(d))) {
                int64_t pid;
                struct proc_info info;
                if (parse_int64(de->d_name, &pid) < 0 || pid <= 0 || pid > INT32_MAX ||
                    !comm_is(de->d_name, name) || read_stat((pid_t)pid, &info) < 0 || info.state == 'Z')
                        continue;
                r = fn(&info, userdata);
        }
        closedir(d);
        return r;
}

/* "1, 2, 3" as far as it fits. */
static void pid_list_add(char *buf, size_t size, pid_t pid) {
        size_t len = strlen(buf);
        if (len + 1 < size)
                snprintf(buf + len, size - len, "%s%d", len ? ", " : "", (int)pid);
}

struct by_name {
        bool host_only;
        size_t n, n_contained;
        struct proc_identity first;
        char pids[128], contained[128];
};

static int count_named(const struct proc_info *p, void *userdata) {
        struct by_name *b = userdata;
        if (b->host_only && proc_in_container(p->pid) != 0) { /* in one, or not shown to be on the host */
                b->n_contained++;
                pid_list_add(b->contained, sizeof(b->contained), p->pid);
                return 0;
        }
        if (b->n++ == 0)
                b->first = (struct proc_identity){ .pid = p->pid, .start_time = p->start_time };
        pid_list_add(b->pids, sizeof(b->pids), p->pid);
        return 0;
}

int proc_find_by_name(
        const char *name, enum proc_scope scope, struct proc_identity *ret, struct mh_error *reterr) {
        struct by_name b = { .host_only = scope == PROC_SCOPE_HOST };
        int r = proc_each_named(name, count_named, &b);
        if (r < 0)
                return mh_error_fail(reterr, r, "proc", "/proc: %s", strerror(-r));
        if (b.n == 0 && b.n_contained > 0)
                return mh_error_fail(
                        reterr, -ESRCH, "process_gone",
                        "no host process named '%s' runs: %s %s of that name %s (or cannot be read as on "
                        "the host); include_containers: true matches %s",
                        name, b.n_contained > 1 ? "pids" : "pid", b.contained,
                        b.n_contained > 1 ? "are in containers" : "is in a container",
                        b.n_contained > 1 ? "them" : "it");
        if (b.n == 0)
                return mh_error_fail(reterr, -ESRCH, "process_gone", "no process named '%s' runs", name);
        if (b.n > 1)
                return mh_error_fail(
                        reterr, -ENOTUNIQ, "process_ambiguous",
                        "%zu processes are named '%s' (pids %s); name one by pid", b.n, name, b.pids);
        *ret = b.first;
        return 0;
}
