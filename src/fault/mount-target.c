#include "mount-target.h"

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
#include "sys/in-root.h"
#include "sys/ns.h"

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

#define CHILD_TIMEOUT_MS 5000
#define MOUNTINFO_MAX    (4u << 20)
#define PROBE_NAME       ".mayhem-read-only-probe"

enum op {
        OP_PROBE,
        OP_FLAG,
        OP_CLONE,
        OP_ATTACH,
        OP_DETACH,
        OP_WRITE
};

struct arg {
        enum op op;
        const char *path;
        uint64_t id; /* OP_FLAG, OP_DETACH: the mount must be this one */
        bool ro;     /* OP_FLAG */
        int tree_fd; /* OP_ATTACH: inherited through fork() */
};

/* ---- in the child, inside the target's mount namespace ---- */

static int resolve(const char *path, int flags) {
        return open_in_own_root(path, flags | ((flags & O_PATH) ? 0 : O_NOCTTY | O_NONBLOCK));
}

static int stat_of(int fd, struct statx *ret) {
        if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID | STATX_INO, ret) < 0)
                return negative_errno();
        return (ret->stx_mask & STATX_MNT_ID) ? 0 : -EOPNOTSUPP; /* Linux < 5.8 */
}

static int setattr(int fd, unsigned flags, uint64_t set, uint64_t clr, uint64_t propagation) {
        struct mount_attr attr = { .attr_set = set, .attr_clr = clr, .propagation = propagation };
        if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | flags, &attr, sizeof(attr)) < 0)
                return negative_errno();
        return 0;
}

static int do_probe(int fd, char *out, size_t *out_len) {
        struct statx st, root;
        struct statvfs sf;
        _cleanup_close_ int rfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        int r;
        if (rfd < 0)
                return negative_errno();
        if ((r = stat_of(fd, &st)) < 0 || (r = stat_of(rfd, &root)) < 0)
                return r;
        if (fstatvfs(fd, &sf) < 0)
                return negative_errno();
        bool is_root = st.stx_mnt_id == root.stx_mnt_id && st.stx_ino == root.stx_ino &&
                       st.stx_dev_major == root.stx_dev_major && st.stx_dev_minor == root.stx_dev_minor;
        *out_len = (size_t)snprintf(
                out, *out_len, "%" PRIu64 " %d %d", (uint64_t)st.stx_mnt_id, (sf.f_flag & ST_RDONLY) ? 1 : 0,
                is_root ? 1 : 0);
        return 0;
}

static int do_clone(int fd, char *out, size_t *out_len, int *ret_fd) {
        struct statx st;
        int r;
        _cleanup_close_ int tree = (int)syscall(
                SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
        if (tree < 0)
                return negative_errno();
        if ((r = setattr(tree, AT_RECURSIVE, 0, 0, MS_PRIVATE)) < 0 ||
            (r = setattr(tree, 0, MOUNT_ATTR_RDONLY, 0, 0)) < 0 || (r = stat_of(tree, &st)) < 0)
                return r;
        *out_len = (size_t)snprintf(out, *out_len, "%" PRIu64, (uint64_t)st.stx_mnt_id);
        *ret_fd = TAKE_FD(tree);
        return 0;
}

static int do_write(const char *path, int fd) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISREG(st.st_mode)) {
                _cleanup_close_ int w = resolve(path, O_WRONLY);
                return w < 0 ? w : 0;
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

static int in_target(void *userdata, char *out, size_t *out_len, int *ret_fd) {
        const struct arg *a = userdata;
        struct statx st;
        size_t room = *out_len;
        int r;
        *out_len = 0;
        _cleanup_close_ int fd = resolve(a->path, O_PATH);
        if (fd < 0)
                return fd;
        if ((r = stat_of(fd, &st)) < 0)
                return r;
        bool ours = st.stx_mnt_id == a->id;
        switch (a->op) {
        case OP_PROBE: *out_len = room; return do_probe(fd, out, out_len);
        case OP_CLONE: *out_len = room; return do_clone(fd, out, out_len, ret_fd);
        case OP_FLAG:
                return ours ? setattr(fd, 0, a->ro ? MOUNT_ATTR_RDONLY : 0, a->ro ? 0 : MOUNT_ATTR_RDONLY, 0)
                            : -ESTALE;
        case OP_ATTACH:
                if (syscall(SYS_move_mount, a->tree_fd, "", fd, "",
                            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                        return negative_errno();
                return 0;
        case OP_DETACH:
                /* umount2 takes a path: the one just checked, in this
                 * namespace, which nothing else of ours changes meanwhile. */
                if (!ours)
                        return -ESTALE;
                return syscall(SYS_umount2, a->path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 ? negative_errno()
                                                                                       : 0;
        case OP_WRITE: return do_write(a->path, fd);
        }
        return -EINVAL;
}

/* ---- in the agent ---- */

static const char *const op_names[] = {
        [OP_PROBE] = "looking at",  [OP_FLAG] = "setting the read-only flag on",
        [OP_CLONE] = "cloning",     [OP_ATTACH] = "mounting over",
        [OP_DETACH] = "unmounting", [OP_WRITE] = "writing to",
};

/* The op's result, or the child's failure; *out (NS_RESULT_MAX) NUL-terminated. */
static int run(
        const struct proc_identity *t, struct arg *a, char *out, int *ret_fd, struct mh_error *reterr) {
        char buf[NS_RESULT_MAX];
        size_t len = 0;
        int res = 0;
        int r = ns_run_fd(
                t, NS_BIT(NS_MNT), in_target, a, CHILD_TIMEOUT_MS, buf, &len, &res, ret_fd, reterr);
        if (r < 0)
                return r;
        buf[MIN(len, sizeof(buf) - 1)] = '\0';
        if (out)
                memcpy(out, buf, sizeof(buf));
        if (res < 0 && res != -ESTALE)
                return mh_error_fail(
                        reterr, res, "mount", "%s %s in the mount namespace of pid %d: %s", op_names[a->op],
                        a->path, (int)t->pid, strerror(-res));
        return res;
}

int mount_target_probe(
        const struct proc_identity *t, const char *path, struct mount_probe *ret, struct mh_error *reterr) {
        char out[NS_RESULT_MAX];
        struct arg a = { .op = OP_PROBE, .path = path };
        int ro = 0, root = 0, r = run(t, &a, out, NULL, reterr);
        if (r < 0)
                return r;
        if (sscanf(out, "%" SCNu64 " %d %d", &ret->id, &ro, &root) != 3)
                return mh_error_fail(reterr, -EPROTO, "mount", "unreadable reply from the mount helper");
        ret->read_only = ro != 0;
        ret->is_root = root != 0;
        return 0;
}

int mount_target_flag(
        const struct proc_identity *t, const char *path, uint64_t id, bool ro, struct mh_error *reterr) {
        struct arg a = { .op = OP_FLAG, .path = path, .id = id, .ro = ro };
        return run(t, &a, NULL, NULL, reterr);
}

int mount_target_clone_ro(
        const struct proc_identity *t, const char *path, int *ret_fd, uint64_t *ret_id,
        struct mh_error *reterr) {
        char out[NS_RESULT_MAX];
        _cleanup_close_ int fd = -EBADF;
        struct arg a = { .op = OP_CLONE, .path = path };
        int r = run(t, &a, out, &fd, reterr);
        if (r < 0)
                return r;
        if (fd < 0 || sscanf(out, "%" SCNu64, ret_id) != 1)
                return mh_error_fail(
                        reterr, -EPROTO, "mount", "the mount helper passed no clone of %s", path);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int mount_target_attach(
        const struct proc_identity *t, const char *path, int tree_fd, struct mh_error *reterr) {
        struct arg a = { .op = OP_ATTACH, .path = path, .tree_fd = tree_fd };
        return run(t, &a, NULL, NULL, reterr);
}

int mount_target_detach(
        const struct proc_identity *t, const char *point, uint64_t id, struct mh_error *reterr) {
        struct arg a = { .op = OP_DETACH, .path = point, .id = id };
        return run(t, &a, NULL, NULL, reterr);
}

int mount_target_write(
        const struct proc_identity *t, const char *path, int *ret_result, struct mh_error *reterr) {
        struct arg a = { .op = OP_WRITE, .path = path };
        char buf[NS_RESULT_MAX];
        size_t len = 0;
        int res = 0,
            r = ns_run_fd(t, NS_BIT(NS_MNT), in_target, &a, CHILD_TIMEOUT_MS, buf, &len, &res, NULL, reterr);
        if (r < 0)
                return r;
        *ret_result = res;
        return 0;
}

int mount_target_find(const struct proc_identity *t, uint64_t id, struct mountinfo_entry *ret) {
        char path[64];
        size_t len = 0;
        ssize_t n;
        snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)t->pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ESRCH ? 0 : negative_errno();
        _cleanup_free_ char *buf = malloc(MOUNTINFO_MAX);
        if (!buf)
                return -ENOMEM;
        while (len < MOUNTINFO_MAX && (n = read(fd, buf + len, MOUNTINFO_MAX - len)) != 0) {
                if (n < 0 && errno != EINTR)
                        return errno == ESRCH ? 0 : negative_errno();
                len += n > 0 ? (size_t)n : 0;
        }
        if (len == MOUNTINFO_MAX)
                return -EFBIG;
        if (proc_same(t, NULL) < 0)
                return 0;
        return mountinfo_find(buf, len, id, ret);
}
