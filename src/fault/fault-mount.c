#include "fault.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/procfs.h"
#include "sys/mountinfo.h"
#include "sys/ns.h"

/* fs.read_only: the mount that holds path in the target's mount namespace
 * gets the per-mount read-only flag (mount_setattr(MOUNT_ATTR_RDONLY), what
 * `mount -o remount,bind,ro` does), from a forked child in that namespace.
 * A mount is a per-namespace object and the flag is not propagated, so the
 * host's mount of the same filesystem stays writable. Not a bind over the
 * path: a mount over "/" is invisible to processes whose root is "/" (their
 * lookups start below it), so the default path would change nothing.
 * The mount's id is recorded before the change; undo clears the flag on
 * that mount only, reached through its mount point and checked by id. */

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

#define CHILD_TIMEOUT_MS 5000
#define MOUNTINFO_MAX    (4u << 20)
#define PROBE_NAME       ".mayhem-read-only-probe"

enum mnt_op {
        MNT_PROBE,
        MNT_SET_RO,
        MNT_SET_RW,
        MNT_WRITE
};

struct mnt_arg {
        const char *path;
        enum mnt_op op;
        uint64_t want_id; /* MNT_SET_*: the mount must be this one */
};

/* ---- in the child, inside the target's mount namespace ---- */

/* path under the namespace's root: symlinks resolve inside it. */
static int resolve(const char *path, int flags) {
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        while (*path == '/')
                path++;
        struct open_how how = {
                .flags = (uint64_t)flags | O_CLOEXEC | O_NOCTTY,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        if (root < 0)
                return negative_errno();
        int fd = (int)syscall(SYS_openat2, root, *path ? path : ".", &how, sizeof(how));
        return fd < 0 ? negative_errno() : fd;
}

static int mount_id_of(int fd, uint64_t *ret) {
        struct statx st;
        if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &st) < 0)
                return negative_errno();
        if (!(st.stx_mask & STATX_MNT_ID))
                return -EOPNOTSUPP; /* Linux < 5.8 */
        *ret = st.stx_mnt_id;
        return 0;
}

/* A new file in a directory, or opening a regular file for writing (no
 * truncation): 0 when it could be written, -errno otherwise. Nothing is left. */
static int write_probe(int fd) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISREG(st.st_mode)) {
                char self[64];
                snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
                _cleanup_close_ int w = open(self, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                return w < 0 ? negative_errno() : 0;
        }
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        char name[64];
        snprintf(name, sizeof(name), PROBE_NAME ".%d", (int)getpid());
        _cleanup_close_ int w = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (w < 0)
                return negative_errno();
        (void)unlinkat(fd, name, 0);
        return 0;
}

static int set_read_only(int fd, bool ro) {
        struct mount_attr attr = { 0 };
        if (ro)
                attr.attr_set = MOUNT_ATTR_RDONLY;
        else
                attr.attr_clr = MOUNT_ATTR_RDONLY;
        if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
                return negative_errno();
        return 0;
}

static int in_target(void *userdata, char *out, size_t *out_len) {
        const struct mnt_arg *a = userdata;
        uint64_t id;
        struct statvfs sf;
        int r;
        _cleanup_close_ int fd = resolve(a->path, O_PATH);
        if (fd < 0)
                return fd;
        if ((r = mount_id_of(fd, &id)) < 0)
                return r;
        switch (a->op) {
        case MNT_PROBE:
                if (fstatvfs(fd, &sf) < 0)
                        return negative_errno();
                *out_len = (size_t)snprintf(
                        out, *out_len, "%" PRIu64 " %d", id, (sf.f_flag & ST_RDONLY) ? 1 : 0);
                return 0;
        case MNT_SET_RO:
        case MNT_SET_RW:
                *out_len = 0;
                return id == a->want_id ? set_read_only(fd, a->op == MNT_SET_RO) : -ESTALE;
        case MNT_WRITE: *out_len = 0; return write_probe(fd);
        }
        return -EINVAL;
}

/* ---- in the agent ---- */

/* fn's result of one op in the target's mount namespace (< 0 with reterr
 * when the child could not run it). */
static int run_in_target(
        const struct fault_exec *fx, struct mnt_arg *a, char *out, int *ret_result,
        struct mh_error *reterr) {
        size_t len = 0;
        int r =
                ns_run(&fx->target.main, NS_BIT(NS_MNT), in_target, a, CHILD_TIMEOUT_MS, out, &len,
                       ret_result, reterr);
        if (r >= 0 && out)
                out[MIN(len, (size_t)NS_RESULT_MAX - 1)] = '\0';
        return r;
}

/* The target's mount with this id, from /proc/PID/mountinfo read while pid
 * is still the target's: 1 found, 0 gone (with the process, or unmounted). */
static int target_mount(const struct proc_identity *id, uint64_t mnt, struct mountinfo_entry *ret) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)id->pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ESRCH ? 0 : negative_errno();
        _cleanup_free_ char *buf = malloc(MOUNTINFO_MAX);
        size_t len = 0;
        ssize_t n;
        if (!buf)
                return -ENOMEM;
        while (len < MOUNTINFO_MAX && (n = read(fd, buf + len, MOUNTINFO_MAX - len)) != 0) {
                if (n < 0 && errno != EINTR)
                        return errno == ESRCH ? 0 : negative_errno();
                len += n > 0 ? (size_t)n : 0;
        }
        if (len == MOUNTINFO_MAX)
                return -EFBIG;
        if (proc_same(id, NULL) < 0)
                return 0;
        return mountinfo_find(buf, len, mnt, ret);
}

static bool recorded(const struct fault_exec *fx, uint64_t *ret_id, const char **ret_point) {
        const json_t *id = json_object_get(fx->restore, "mount_id"),
                     *point = json_object_get(fx->restore, "mount_point");
        if (!json_is_integer(id) || json_integer_value(id) <= 0 || !json_is_string(point) ||
            json_string_value(point)[0] != '/')
                return false;
        *ret_id = (uint64_t)json_integer_value(id);
        *ret_point = json_string_value(point);
        return true;
}

static int probe(
        const struct fault_exec *fx, const char *path, uint64_t *ret_id, bool *ret_ro,
        struct mh_error *reterr) {
        char out[NS_RESULT_MAX];
        struct mnt_arg a = { .path = path, .op = MNT_PROBE };
        int res = 0, ro = 0, r = run_in_target(fx, &a, out, &res, reterr);
        if (r < 0)
                return r;
        if (res < 0)
                return mh_error_fail(
                        reterr, res, "mount", "%s in the mount namespace of %s: %s", path,
                        fx->target.container_name, strerror(-res));
        if (sscanf(out, "%" SCNu64 " %d", ret_id, &ro) != 2)
                return mh_error_fail(reterr, -EPROTO, "mount", "unreadable reply from the mount helper");
        *ret_ro = ro != 0;
        return 0;
}

/* A target in the agent's own mount namespace (a plain host process) would
 * have the host's mount made read-only: refused. */
static int refuse_own_namespace(const struct fault_exec *fx, struct mh_error *reterr) {
        struct stat self;
        uint64_t ino;
        int r = ns_inode(&fx->target.main, NS_MNT, &ino, reterr);
        if (r < 0)
                return r;
        if (stat("/proc/self/ns/mnt", &self) < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "namespace", "/proc/self/ns/mnt: %s", strerror(-r));
        }
        if ((uint64_t)self.st_ino != ino)
                return 0;
        return mh_error_fail(
                reterr, -EPERM, "host_mount_namespace",
                "%s shares the agent's mount namespace: the fault would make the host's mount read-only",
                fx->target.container_name[0] ? fx->target.container_name : "the target");
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const char *path = fault_param(fx, "path")->s;
        struct mountinfo_entry m;
        uint64_t id = 0;
        bool ro = false;
        int r, res;
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "%s has no running main process",
                        fx->target.container_name);
        if ((r = refuse_own_namespace(fx, reterr)) < 0)
                return r;
        if ((r = probe(fx, path, &id, &ro, reterr)) < 0)
                return r;
        if (ro)
                return mh_error_fail(
                        reterr, -EALREADY, "path",
                        "%s is on a read-only mount in %s already: the fault would change nothing", path,
                        fx->target.container_name);
        if ((r = target_mount(&fx->target.main, id, &m)) <= 0)
                return mh_error_fail(
                        reterr, r < 0 ? r : -ESRCH, "mount", "mount %" PRIu64 " of %s not in its mountinfo",
                        id, fx->target.container_name);
        if (json_object_set_new(fx->restore, "mount_id", json_integer((json_int_t)id)) < 0 ||
            json_object_set_new(fx->restore, "mount_point", json_string(m.point)) < 0)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        if ((r = fault_record(fx, reterr)) < 0)
                return r;
        struct mnt_arg a = { .path = path, .op = MNT_SET_RO, .want_id = id };
        if ((r = run_in_target(fx, &a, NULL, &res, reterr)) < 0)
                return r;
        if (res < 0)
                return mh_error_fail(
                        reterr, res, "mount", "read-only flag on mount %s of %s: %s", m.point,
                        fx->target.container_name, strerror(-res));
        return 0;
}

/* Clears the flag on the recorded mount only: a gone target or mount, or
 * one writable already, leaves nothing to do. */
static int undo_writable(const struct fault_exec *fx, struct mh_error *reterr) {
        struct mountinfo_entry m;
        const char *point;
        uint64_t id;
        int r, res;
        if (fx->target.main.pid <= 0 || !recorded(fx, &id, &point))
                return 0;
        if ((r = target_mount(&fx->target.main, id, &m)) <= 0 || !m.read_only)
                return r < 0 ? mh_error_fail(
                                       reterr, r, "mount", "mountinfo of %s: %s", fx->target.container_name,
                                       strerror(-r))
                             : 0;
        struct mnt_arg a = { .path = m.point, .op = MNT_SET_RW, .want_id = id };
        if ((r = run_in_target(fx, &a, NULL, &res, reterr)) < 0)
                return r == -ESRCH ? 0 : r;
        if (res == -ESTALE)
                return mh_error_fail(
                        reterr, res, "mount_shadowed",
                        "mount %" PRIu64 " of %s at %s is covered by another mount; remount it rw by hand",
                        id, fx->target.container_name, m.point);
        if (res < 0)
                return mh_error_fail(
                        reterr, res, "mount", "clearing the read-only flag of %s in %s: %s", m.point,
                        fx->target.container_name, strerror(-res));
        return 0;
}

static int look_writable(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mountinfo_entry m;
        const char *point;
        uint64_t id;
        *ret = true;
        if (fx->target.main.pid <= 0 || !recorded(fx, &id, &point)) {
                snprintf(detail, size, "no mount was recorded, so none was changed");
                return 0;
        }
        int r = target_mount(&fx->target.main, id, &m);
        if (r < 0) {
                *ret = false;
                snprintf(detail, size, "mountinfo of %s: %s", fx->target.container_name, strerror(-r));
                return r;
        }
        *ret = r == 0 || !m.read_only;
        if (r == 0)
                snprintf(detail, size, "mount %" PRIu64 " (%s) is gone", id, point);
        else
                snprintf(
                        detail, size, "mount %" PRIu64 " at %s is %s", id, m.point,
                        m.read_only ? "ro" : "rw");
        return 0;
}

/* In force: a write open of path inside the target fails with EROFS. */
static int look_read_only(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        const char *path = fault_param(fx, "path")->s;
        struct mnt_arg a = { .path = path, .op = MNT_WRITE };
        struct mh_error e = { 0 };
        int res, r = run_in_target(fx, &a, NULL, &res, &e);
        *ret = false;
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        *ret = res == -EROFS;
        if (res == 0)
                snprintf(detail, size, "a write to %s in %s succeeded", path, fx->target.container_name);
        else
                snprintf(
                        detail, size, "a write to %s in %s fails with %s", path, fx->target.container_name,
                        strerror(-res));
        return 0;
}

const struct fault_mechanism fault_mount = {
        .name = "mount",
        .records = true,
        .apply = apply,
        .undo = { { "mount.remount_rw", undo_writable } },
        .verify = { { "mount.writable", look_writable } },
        .effect = { { "mount.read_only", look_read_only } },
};
