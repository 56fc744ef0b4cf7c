#include "sys/cgroup-memory.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/parse-number.h"
#include "sys/cgroup.h"

#define KNOB_TEXT_MAX 4096 /* memory.events, memory.oom_control: a few short lines */
#define MEMINFO_MAX   16384

static int number_parse(const char *s, size_t len, uint64_t *ret) {
        return len == 0 ? -EINVAL : parse_decimal_scaled(s, len, 1, ret);
}

/* The start of the value of the line "key ..." in text, or NULL. */
static const char *value_of(const char *text, const char *key, char sep) {
        size_t klen = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
                if (strncmp(l, key, klen) == 0 && l[klen] == sep)
                        return l + klen + 1;
        return NULL;
}

int cgroup_keyed_value_parse(const char *text, const char *key, uint64_t *ret) {
        const char *v = value_of(text, key, ' ');
        if (!v)
                return -ENOENT;
        return number_parse(v, strcspn(v, "\n"), ret);
}

int meminfo_value_parse(const char *text, const char *key, uint64_t *ret) {
        const char *v = value_of(text, key, ':');
        uint64_t kb;
        if (!v)
                return -ENOENT;
        v += strspn(v, " \t");
        size_t len = strcspn(v, " \n");
        if (number_parse(v, len, &kb) < 0 || strncmp(v + len, " kB", 3) != 0 || kb > UINT64_MAX / 1024)
                return -EINVAL;
        *ret = kb * 1024;
        return 0;
}

int cgroup_memory_limit_parse(const char *text, bool *ret_limited, uint64_t *ret) {
        uint64_t v;
        if (strcmp(text, "max") == 0) {
                *ret_limited = false;
                *ret = 0;
                return 0;
        }
        if (number_parse(text, strlen(text), &v) < 0)
                return -EINVAL;
        *ret_limited = v < CGROUP_MEMORY_UNLIMITED_FROM;
        *ret = *ret_limited ? v : 0;
        return 0;
}

int cgroup_memory_open(
        const struct proc_identity *target, int *ret_fd, bool *ret_v2, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        char path[CGROUP_PATH_MAX];
        bool v2 = false;
        int r = cgroup_controller_dir_open(target, "memory", &fd, &v2, path, sizeof(path), reterr);
        if (r < 0)
                return r;
        if (v2 && faccessat(fd, "memory.current", F_OK, 0) < 0)
                return mh_error_fail(
                        reterr, -ENOENT, "cgroup",
                        "process %d: its cgroup %s has no memory controller (no memory.current)",
                        (int)target->pid, path);
        *ret_fd = TAKE_FD(fd);
        *ret_v2 = v2;
        return 0;
}

int cgroup_memory_usage_at(int dirfd, bool v2, uint64_t *ret) {
        char buf[64];
        int r = cgroup_knob_read(dirfd, v2 ? "memory.current" : "memory.usage_in_bytes", buf, sizeof(buf));
        return r < 0 ? r : number_parse(buf, strlen(buf), ret);
}

int cgroup_memory_limit_at(int dirfd, bool v2, bool *ret_limited, uint64_t *ret) {
        char buf[64];
        int r = cgroup_knob_read(dirfd, v2 ? "memory.max" : "memory.limit_in_bytes", buf, sizeof(buf));
        return r < 0 ? r : cgroup_memory_limit_parse(buf, ret_limited, ret);
}

int cgroup_memory_oom_kills_at(int dirfd, bool v2, uint64_t *ret) {
        char text[KNOB_TEXT_MAX];
        int r = read_text_at(dirfd, v2 ? "memory.events" : "memory.oom_control", text, sizeof(text));
        return r < 0 ? r : cgroup_keyed_value_parse(text, "oom_kill", ret);
}

int cgroup_memory_read(
        const struct proc_identity *target, struct cgroup_memory *ret, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        struct cgroup_memory m = { 0 };
        int r = cgroup_memory_open(target, &fd, &m.v2, reterr);
        if (r < 0)
                return r;
        if ((r = cgroup_memory_usage_at(fd, m.v2, &m.usage)) < 0 ||
            (r = cgroup_memory_limit_at(fd, m.v2, &m.limited, &m.limit)) < 0 ||
            (r = cgroup_memory_oom_kills_at(fd, m.v2, &m.oom_kills)) < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "process %d: cannot read its memory cgroup: %s",
                        (int)target->pid, strerror(-r));
        *ret = m;
        return 0;
}

int host_memory_read(uint64_t *ret_total, uint64_t *ret_available) {
        char text[MEMINFO_MAX];
        uint64_t total, avail;
        _cleanup_close_ int dir = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r = dir < 0 ? negative_errno() : read_text_at(dir, "meminfo", text, sizeof(text));
        if (r < 0)
                return r;
        if ((r = meminfo_value_parse(text, "MemTotal", &total)) < 0 ||
            (r = meminfo_value_parse(text, "MemAvailable", &avail)) < 0)
                return r;
        *ret_total = total;
        *ret_available = avail;
        return 0;
}
