#include "fs-target.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "basic/macro.h"
#include "fault/live.h"
#include "fault/payload.h"
#include "sys/in-root.h"
#include "sys/ns.h"

#define CHILD_TIMEOUT_MS 5000

int fs_dir_open(const char *path) {
        return open_in_own_root(path, O_RDONLY | O_DIRECTORY | O_NOCTTY);
}

int fs_usage_of(int fd, struct fs_usage *ret) {
        struct statvfs v;
        struct statfs f;
        if (fstatvfs(fd, &v) < 0 || fstatfs(fd, &f) < 0)
                return negative_errno();
        *ret = (struct fs_usage){
                .size = (uint64_t)v.f_blocks * v.f_frsize,
                .avail = (uint64_t)v.f_bavail * v.f_frsize,
                .files = v.f_files,
                .ffree = v.f_ffree,
                .block = v.f_frsize,
                .type = (long)f.f_type,
        };
        return 0;
}

/* In the child, inside the target's mount namespace. */
static int usage_in_target(void *arg, char *out, size_t *out_len) {
        struct fs_usage u;
        size_t room = *out_len;
        *out_len = 0;
        _cleanup_close_ int fd = fs_dir_open(arg);
        if (fd < 0)
                return fd;
        int r = fs_usage_of(fd, &u);
        if (r < 0)
                return r;
        *out_len =
                MIN(room, (size_t)snprintf(
                                  out, room, "%llu %llu %llu %llu %llu %ld", (unsigned long long)u.size,
                                  (unsigned long long)u.avail, (unsigned long long)u.files,
                                  (unsigned long long)u.ffree, (unsigned long long)u.block, u.type));
        return 0;
}

int fs_target_usage(
        const struct proc_identity *t, const char *path, struct fs_usage *ret, struct mh_error *reterr) {
        char buf[NS_RESULT_MAX];
        size_t len = 0;
        int res = 0;
        int r = ns_run(
                t, NS_BIT(NS_MNT), usage_in_target, (void *)path, CHILD_TIMEOUT_MS, buf, &len, &res, reterr);
        if (r < 0)
                return r;
        if (res < 0)
                return mh_error_fail(
                        reterr, res, "fs", "statvfs of %s in the mount namespace of pid %d: %s", path,
                        (int)t->pid, strerror(-res));
        buf[MIN(len, sizeof(buf) - 1)] = '\0';
        unsigned long long v[5];
        struct fs_usage u;
        if (sscanf(buf, "%llu %llu %llu %llu %llu %ld", &v[0], &v[1], &v[2], &v[3], &v[4], &u.type) != 6)
                return mh_error_fail(reterr, -EPROTO, "fs", "unreadable reply from the statvfs helper");
        u.size = v[0], u.avail = v[1], u.files = v[2], u.ffree = v[3], u.block = v[4];
        *ret = u;
        return 0;
}

int fs_tmpfile(int dir) {
        static unsigned long n;
        int fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
                return fd < 0 ? negative_errno() : fd;
        /* No O_TMPFILE here: a name for as long as it takes to unlink it. */
        char name[64];
        snprintf(name, sizeof(name), ".mayhem-tmp.%d.%lu", (int)getpid(), n++);
        fd = openat(dir, name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return negative_errno();
        if (unlinkat(dir, name, 0) < 0) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        return fd;
}

static void last_line(void *live, void *arg) {
        char *line = arg;
        if (!payload_last(live, line, PAYLOAD_LINE_MAX))
                line[0] = '\0';
}

bool fs_payload_held(
        const struct fault_exec *fx, unsigned long long *ret_held, unsigned long long *ret_goal) {
        char line[PAYLOAD_LINE_MAX] = "";
        unsigned long long held, goal;
        if (!fault_live_with(fx->lives, fx->lease_id, last_line, line) ||
            sscanf(line, FS_HELD_SCAN, &held, &goal) != 2)
                return false;
        *ret_held = held;
        *ret_goal = goal;
        return true;
}
