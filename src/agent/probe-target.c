#include "probe-target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/procfs.h"
#include "sys/in-root.h"

#define FILE_READ_MAX   (1u << 20) /* bytes of a file searched for contains */
#define PROC_SCAN_MAX   65536      /* /proc entries looked at */
#define PROC_STATUS_MAX 4096

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

static int root_of(const struct proc_identity *id) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/root", (int)id->pid);
        int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root >= 0 && proc_same(id, NULL) < 0) {
                close(root);
                return -ESRCH;
        }
        return root < 0 ? -ESRCH : root;
}

/* Whether fd's first FILE_READ_MAX bytes hold text; -errno on a read error. */
static int holds(int fd, const char *text, bool *ret) {
        _cleanup_free_ char *buf = malloc(FILE_READ_MAX);
        size_t n = 0;
        if (!buf)
                return -ENOMEM;
        while (n < FILE_READ_MAX) {
                ssize_t k = read(fd, buf + n, FILE_READ_MAX - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t)k;
        }
        *ret = memmem(buf, n, text, strlen(text)) != NULL;
        return 0;
}

void probe_target_file(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out) {
        double start = monotonic_ms();
        _cleanup_close_ int root = root_of(id);
        *out = (struct probe_outcome){ 0 };
        if (root < 0) {
                snprintf(out->detail, sizeof(out->detail), "the target (pid %d) is gone", (int)id->pid);
                return;
        }
        _cleanup_close_ int fd = open_in_root(root, req->file_path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                snprintf(
                        out->detail, sizeof(out->detail), "%.200s in the target: %s", req->file_path,
                        strerror(fd < 0 ? -fd : errno));
                return;
        }
        bool found = true;
        int r = 0;
        if (req->contains[0] && !S_ISREG(st.st_mode))
                r = -EINVAL;
        else if (req->contains[0])
                r = holds(fd, req->contains, &found);
        out->latency_ms = monotonic_ms() - start;
        if (r < 0) {
                snprintf(
                        out->detail, sizeof(out->detail), "%.200s in the target: %s", req->file_path,
                        r == -EINVAL ? "not a regular file" : strerror(-r));
                return;
        }
        out->ok = found;
        snprintf(
                out->detail, sizeof(out->detail), "%.200s in the target %s", req->file_path,
                !req->contains[0] ? "exists"
                : found           ? "contains the text"
                                  : "lacks the text (first 1 MiB searched)");
}

static int pidns_of(int pid, uint64_t *ret) {
        char path[64];
        struct stat st;
        snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
        if (stat(path, &st) < 0)
                return -errno;
        *ret = (uint64_t)st.st_ino;
        return 0;
}

/* The last NSpid field of /proc/N/status: N as its innermost namespace numbers it. */
static long inner_pid(int pid) {
        char path[64], buf[PROC_STATUS_MAX];
        snprintf(path, sizeof(path), "/proc/%d/status", pid);
        if (read_text_at(AT_FDCWD, path, buf, sizeof(buf)) < 0)
                return -1;
        const char *line = strstr(buf, "\nNSpid:");
        if (!line)
                return -1;
        const char *end = strchr(line + 1, '\n'), *last = NULL;
        for (const char *p = line + 7; p && *p && p != end; p++)
                if ((*p >= '0' && *p <= '9') && (p[-1] == ' ' || p[-1] == '\t'))
                        last = p;
        return last ? strtol(last, NULL, 10) : -1;
}

static bool comm_is(int pid, const char *name) {
        char path[64], comm[64];
        snprintf(path, sizeof(path), "/proc/%d/comm", pid);
        if (read_text_at(AT_FDCWD, path, comm, sizeof(comm)) < 0)
                return false;
        comm[strcspn(comm, "\n")] = '\0';
        return strcmp(comm, name) == 0;
}

void probe_target_process(
        const struct proc_identity *id, const struct agent_probe_req *req, struct probe_outcome *out) {
        double start = monotonic_ms();
        uint64_t ns = 0, other = 0;
        size_t seen = 0, matched = 0;
        *out = (struct probe_outcome){ 0 };
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        if (pidns_of((int)id->pid, &ns) < 0 || proc_same(id, NULL) < 0 || !d) {
                snprintf(out->detail, sizeof(out->detail), "the target (pid %d) is gone", (int)id->pid);
                return;
        }
        for (struct dirent *e; (e = readdir(d)) && seen < PROC_SCAN_MAX && !matched; seen++) {
                char *end = NULL;
                long pid = strtol(e->d_name, &end, 10);
                if (pid <= 0 || *end || pidns_of((int)pid, &other) < 0 || other != ns)
                        continue;
                matched += req->name[0] ? comm_is((int)pid, req->name) : inner_pid((int)pid) == req->pid;
        }
        out->latency_ms = monotonic_ms() - start;
        out->ok = matched > 0;
        if (req->name[0])
                snprintf(
                        out->detail, sizeof(out->detail), "process '%s' %s in the target's pid namespace",
                        req->name, out->ok ? "is running" : "not found");
        else
                snprintf(
                        out->detail, sizeof(out->detail), "pid %lld %s in the target's pid namespace",
                        (long long)req->pid, out->ok ? "is running" : "not found");
}

void probe_target_exec(
        struct engine *e, const struct target_identity *t, const struct agent_probe_req *req,
        struct probe_outcome *out) {
        double start = monotonic_ms();
        struct mh_error err = { 0 };
        int code = -1;
        *out = (struct probe_outcome){ 0 };
        if (req->cmd[0][0] == '/') { /* say plainly what the image lacks, not a bare 127 */
                _cleanup_close_ int root = root_of(&t->main);
                _cleanup_close_ int fd = root < 0 ? -EBADF : open_in_root(root, req->cmd[0], O_PATH);
                if (root >= 0 && fd == -ENOENT) {
                        snprintf(out->detail, sizeof(out->detail), "the image has no %.200s", req->cmd[0]);
                        return;
                }
        }
        int r = engine_container_exec(
                e, t->container_id, req->cmd, req->n_cmd, req->timeout_ms, &code, &err);
        out->latency_ms = monotonic_ms() - start;
        if (r < 0) {
                snprintf(
                        out->detail, sizeof(out->detail), "%.60s in the target: %.170s", req->cmd[0],
                        err.msg);
                return;
        }
        out->ok = code == req->expected_exit_code;
        snprintf(
                out->detail, sizeof(out->detail), "%.100s exited %d in the target, expected %lld%s",
                req->cmd[0], code, (long long)req->expected_exit_code,
                code == 127 ? " (127: the image has no such command in its PATH)" : "");
}
