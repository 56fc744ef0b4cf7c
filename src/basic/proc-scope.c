#include "proc-scope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"

#define CGROUP_TEXT_MAX 8192

static bool segment_is(const char *seg, size_t len, const char *word) {
        return len == strlen(word) && memcmp(seg, word, len) == 0;
}

static bool has_prefix(const char *seg, size_t len, const char *prefix) {
        return len >= strlen(prefix) && memcmp(seg, prefix, strlen(prefix)) == 0;
}

/* Segments a container engine gives its containers' cgroups (systemd and
 * cgroupfs drivers, cgroup v1 and v2); "docker" and "lxc" are the cgroupfs
 * drivers' parents, so they count only with a container below them. */
static bool segment_is_container(const char *seg, size_t len, bool below) {
        static const char *const parents[] = { "docker", "lxc" };
        static const char *const prefixes[] = { "docker-", "libpod-",  "cri-containerd-",
                                                "crio-",   "kubepods", "lxc.payload" };
        for (size_t i = 0; i < ELEMENTSOF(parents); i++)
                if (below && segment_is(seg, len, parents[i]))
                        return true;
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (has_prefix(seg, len, prefixes[i]))
                        return true;
        return false;
}

static bool path_is_container(const char *path, size_t len) {
        const char *p = path, *end = path + len;
        while (p < end) {
                while (p < end && *p == '/')
                        p++;
                const char *seg = p;
                while (p < end && *p != '/')
                        p++;
                const char *next = p;
                while (next < end && *next == '/')
                        next++;
                if (p > seg && segment_is_container(seg, (size_t)(p - seg), next < end))
                        return true;
        }
        return false;
}

bool proc_cgroup_is_container(const char *text) {
        for (const char *line = text; line && *line;) {
                const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
                /* hierarchy-ID:controllers:path */
                const char *c1 = memchr(line, ':', (size_t)(end - line));
                const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
                if (c2 && path_is_container(c2 + 1, (size_t)(end - c2 - 1)))
                        return true;
                line = nl ? nl + 1 : NULL;
        }
        return false;
}

static int ns_of(const char *pid_dir, struct stat *ret) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%s/ns/pid", pid_dir);
        if (stat(path, ret) < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        return 0;
}

int proc_cgroup_text(pid_t pid, char *buf, size_t size) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : negative_errno();
        ssize_t n = read(fd, buf, size - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';
        return 0;
}

static int cgroup_says(pid_t pid) {
        char buf[CGROUP_TEXT_MAX];
        int r = proc_cgroup_text(pid, buf, sizeof(buf));
        return r < 0 ? r : proc_cgroup_is_container(buf);
}

int proc_in_container(pid_t pid) {
        struct stat ref, st;
        char dir[16];
        if (pid <= 0)
                return -EINVAL;
        snprintf(dir, sizeof(dir), "%d", (int)pid);
        if (ns_of("1", &ref) < 0 && ns_of("self", &ref) < 0)
                return -EACCES;
        int r = ns_of(dir, &st);
        if (r < 0)
                return r;
        if (st.st_dev != ref.st_dev || st.st_ino != ref.st_ino)
                return 1;
        return cgroup_says(pid);
}
