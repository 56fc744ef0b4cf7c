#include "cgroup.h"

#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/parse-number.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* /proc/PID/cgroup is a handful of lines; mountinfo on a busy container host
 * runs to thousands of mounts. */
#define PROC_CGROUP_MAX (64u * 1024)
#define MOUNTINFO_MAX   (8u * 1024 * 1024)
#define HIERARCHIES_MAX 32
#define CONTROLLERS_MAX 256
#define KNOB_MAX        128

/* One line of /proc/PID/cgroup: "hierarchy-id:controllers:path". */
struct cg_line {
        const char *id, *ctrls, *path;
        size_t id_len, ctrls_len, path_len;
};

/* Walks the lines of /proc/PID/cgroup text: 1 and *ret filled, 0 at the end,
 * -EINVAL on a malformed line. */
static int cg_line_next(const char **cursor, struct cg_line *ret) {
        const char *p = *cursor;
        while (*p == '\n')
                p++;
        if (*p == '\0')
                return 0;
        size_t len = strcspn(p, "\n");
        const char *end = p + len;
        const char *c1 = memchr(p, ':', len);
        if (!c1)
                return -EINVAL;
        const char *c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
        if (!c2 || c1 == p || c2 + 1 >= end || c2[1] != '/')
                return -EINVAL;
        *ret = (struct cg_line){
                .id = p,
                .id_len = (size_t)(c1 - p),
                .ctrls = c1 + 1,
                .ctrls_len = (size_t)(c2 - c1 - 1),
                .path = c2 + 1,
                .path_len = (size_t)(end - c2 - 1),
        };
        *cursor = end;
        return 1;
}

static bool cg_line_unified(const struct cg_line *l) {
        return l->id_len == 1 && l->id[0] == '0' && l->ctrls_len == 0;
}

/* Whether the comma-separated list (len bytes) holds item exactly. */
static bool list_has(const char *list, size_t len, const char *item) {
        size_t il = strlen(item);
        const char *end = list + len;
        while (list < end) {
                const char *comma = memchr(list, ',', (size_t)(end - list));
                size_t n = comma ? (size_t)(comma - list) : (size_t)(end - list);
                if (n == il && memcmp(list, item, n) == 0)
                        return true;
                list += n + 1;
        }
        return false;
}

static int copy_span(char *dst, size_t size, const char *src, size_t len) {
        if (len >= size)
                return -ENAMETOOLONG;
        memcpy(dst, src, len);
        dst[len] = '\0';
        return 0;
}

int cgroup_info_parse(const char *text, struct cgroup_info *ret) {
        static const struct {
                const char *name;
                size_t offset;
        } v1[] = {
                { "cpu", offsetof(struct cgroup_info, v1_cpu) },
                { "cpuacct", offsetof(struct cgroup_info, v1_cpuacct) },
                { "memory", offsetof(struct cgroup_info, v1_memory) },
                { "freezer", offsetof(struct cgroup_info, v1_freezer) },
                { "pids", offsetof(struct cgroup_info, v1_pids) },
                { "blkio", offsetof(struct cgroup_info, v1_blkio) },
        };
        struct cgroup_info info = { 0 };
        struct cg_line l;
        int r;

        for (const char *p = text; (r = cg_line_next(&p, &l)) > 0;) {
                if (cg_line_unified(&l)) {
                        info.v2 = true;
                        r = copy_span(info.unified, sizeof(info.unified), l.path, l.path_len);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (l.ctrls_len == 0)
                        return -EINVAL;
                info.v1 = true;
                for (size_t i = 0; i < ELEMENTSOF(v1); i++) {
                        if (!list_has(l.ctrls, l.ctrls_len, v1[i].name))
                                continue;
                        r = copy_span((char *)&info + v1[i].offset, CGROUP_PATH_MAX, l.path, l.path_len);
                        if (r < 0)
                                return r;
                }
        }
        if (r < 0)
                return r;
        *ret = info;
        return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static int unescape(char *dst, size_t size, const char *src, size_t len) {
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                char c = src[i];
                if (c == '\\' && i + 3 < len && src[i + 1] >= '0' && src[i + 1] <= '3' &&
                    src[i + 2] >= '0' && src[i + 2] <= '7' && src[i + 3] >= '0' && src[i + 3] <= '7') {
                        c = (char)((src[i + 1] - '0') * 64 + (src[i + 2] - '0') * 8 + (src[i + 3] - '0'));
                        i += 3;
                }
                if (o + 1 >= size)
                        return -ENAMETOOLONG;
                dst[o++] = c;
        }
        dst[o] = '\0';
        return 0;
}

/* The n-th space-separated field of a line (0-based). */
static bool field(const char *line, size_t len, size_t n, const char **ret, size_t *ret_len) {
        const char *p = line, *end = line + len;
        for (size_t i = 0;; i++) {
                while (p < end && *p == ' ')
                        p++;
                if (p >= end)
                        return false;
                const char *sp = memchr(p, ' ', (size_t)(end - p));
                size_t fl = sp ? (size_t)(sp - p) : (size_t)(end - p);
                if (i == n) {
                        *ret = p;
                        *ret_len = fl;
                        return true;
                }
                p += fl;
        }
}

int cgroup_mount_parse(
        const char *mountinfo, const char *controllers, char *ret_dir, size_t dir_size, char *ret_root,
        size_t root_size) {
        bool want_v2 = !controllers || !*controllers;

        for (const char *line = mountinfo; *line;) {
                size_t len = strcspn(line, "\n");
                const char *next = line[len] ? line + len + 1 : line + len;
                const char *root, *mnt, *f;
                size_t root_len, mnt_len, fl;

                /* 0 id, 1 parent, 2 dev, 3 root, 4 mount point, 5 options,
                 * optional fields, "-", fstype, source, super options. */
                if (!field(line, len, 3, &root, &root_len) || !field(line, len, 4, &mnt, &mnt_len)) {
                        line = next;
                        continue;
                }
                size_t sep = 6;
                while (field(line, len, sep, &f, &fl) && !(fl == 1 && f[0] == '-'))
                        sep++;
                const char *fstype, *opts;
                size_t fstype_len, opts_len;
                if (!field(line, len, sep + 1, &fstype, &fstype_len) ||
                    !field(line, len, sep + 3, &opts, &opts_len)) {
                        line = next;
                        continue;
                }

                bool match = false;
                if (want_v2)
                        match = fstype_len == 7 && memcmp(fstype, "cgroup2", 7) == 0;
                else if (fstype_len == 6 && memcmp(fstype, "cgroup", 6) == 0) {
                        match = true;
                        for (const char *c = controllers; *c && match;) {
                                size_t n = strcspn(c, ",");
                                char item[CONTROLLERS_MAX];
                                if (n == 0 || n >= sizeof(item))
                                        return -EINVAL;
                                memcpy(item, c, n);
                                item[n] = '\0';
                                match = list_has(opts, opts_len, item);
                                c += n + (c[n] == ',');
                        }
                }
                if (match) {
                        char dir[CGROUP_PATH_MAX], rt[CGROUP_PATH_MAX];
                        int r = unescape(dir, sizeof(dir), mnt, mnt_len);
                        if (r >= 0)
                                r = unescape(rt, sizeof(rt), root, root_len);
                        if (r >= 0 && (strlen(dir) >= dir_size || strlen(rt) >= root_size))
                                r = -ENAMETOOLONG;
                        if (r < 0)
                                return r;
                        memcpy(ret_dir, dir, strlen(dir) + 1);
                        memcpy(ret_root, rt, strlen(rt) + 1);
                        return 0;
                }
                line = next;
        }
        return -ENOENT;
}

/* ---- reading the system ---- */

static int read_proc_cgroup(pid_t pid, char **ret, struct mh_error *reterr) {
        char path[64];
        size_t len;
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        int r = read_file_bounded(path, PROC_CGROUP_MAX, ret, &len, reterr);
        if (r == -ENOENT || r == -ESRCH)
                return mh_error_fail(reterr, -ESRCH, "process_gone", "no process %d", (int)pid);
        if (r < 0)
                mh_error_reclass(reterr, MH_EXIT_GENERAL_FAILURE, "cgroup");
        return r;
}

/* /proc/PID/cgroup of the process id names. The start time is checked after the
 * read: a process with that start time held the pid before and after, so it
 * held it during the read too. */
static int read_target_cgroup(const struct proc_identity *id, char **ret, struct mh_error *reterr) {
        _cleanup_free_ char *text = NULL;
        int r;

        if (!id)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "no target process");
        r = read_proc_cgroup(id->pid, &text, reterr);
        if (r < 0)
                return r;
        r = proc_state(id, NULL, reterr);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(text);
        return 0;
}

static int read_mountinfo(char **ret, struct mh_error *reterr) {
        size_t len;
        int r = read_file_bounded("/proc/self/mountinfo", MOUNTINFO_MAX, ret, &len, reterr);
        if (r < 0)
                mh_error_reclass(reterr, MH_EXIT_GENERAL_FAILURE, "cgroup");
        return r;
}

/* Opens beneath dirfd without following symlinks or "..": the path came from
 * the kernel, but a cgroup name is chosen by whoever made the cgroup. openat2
 * needs Linux 5.6; before that, plain openat. */
static int open_beneath(int dirfd, const char *path, int flags) {
        struct open_how how = {
                .flags = (uint64_t)(flags | O_CLOEXEC),
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        if (fd < 0 && errno == ENOSYS)
                fd = openat(dirfd, path, flags | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

/* Opens the directory of cgroup path (as in /proc/PID/cgroup) of the hierarchy
 * with these controllers (NULL: cgroup2), found in mountinfo. */
static int hierarchy_dir_open(
        const char *mountinfo, const char *controllers, const char *path, int *ret_fd,
        struct mh_error *reterr) {
        const char *what = controllers && *controllers ? controllers : "cgroup2";
        char dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
        struct statfs sfs;
        int r;

        r = cgroup_mount_parse(mountinfo, controllers, dir, sizeof(dir), root, sizeof(root));
        if (r == -ENOENT)
                return mh_error_fail(reterr, r, "cgroup", "no %s cgroup hierarchy is mounted", what);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "/proc/self/mountinfo (%s): %s", what, strerror(-r));

        /* The path is relative to the hierarchy's root; the mount shows the
         * subtree below its own root only. */
        const char *rel = path;
        if (!streq(root, "/")) {
                size_t rl = strlen(root);
                if (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
                        return mh_error_fail(
                                reterr, -EXDEV, "cgroup",
                                "cgroup %s (%s) is outside the mounted subtree %s at %s", path, what, root,
                                dir);
                rel = path + rl;
        }
        while (*rel == '/')
                rel++;
        if (*rel == '\0')
                rel = ".";

        _cleanup_close_ int mnt = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (mnt < 0) {
                r = negative_errno();
                return mh_error_fail(reterr, r, "cgroup", "%s: %s", dir, strerror(-r));
        }
        /* A later mount over the same place would hide the hierarchy. */
        if (fstatfs(mnt, &sfs) < 0 ||
            (unsigned long)sfs.f_type !=
                    (controllers && *controllers ? CGROUP_SUPER_MAGIC : CGROUP2_SUPER_MAGIC))
                return mh_error_fail(
                        reterr, -EMEDIUMTYPE, "cgroup",
                        "%s is not the %s hierarchy mountinfo lists there (mounted over?)", dir, what);
        r = open_beneath(mnt, rel, O_RDONLY | O_DIRECTORY);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "%s/%s: %s", dir, streq(rel, ".") ? "" : rel, strerror(-r));
        *ret_fd = r;
        return 0;
}

static int knob_read(int dirfd, const char *name, char *buf, size_t size) {
        int r = read_text_at(dirfd, name, buf, size);
        if (r >= 0)
                buf[strcspn(buf, "\n")] = '\0';
        return r;
}

static int procs_write(int dirfd, pid_t pid) {
        _cleanup_close_ int fd = openat(dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        char buf[32];
        if (fd < 0)
                return negative_errno();
        int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
        for (;;) {
                ssize_t w = write(fd, buf, (size_t)n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return negative_errno();
                return w == n ? 0 : -EIO;
        }
}

int cgroup_of_process(const struct proc_identity *id, struct cgroup_info *ret, struct mh_error *reterr) {
        _cleanup_free_ char *text = NULL;
        struct cgroup_info info;
        int r;

        r = read_target_cgroup(id, &text, reterr);
        if (r < 0)
                return r;
        r = cgroup_info_parse(text, &info);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "/proc/%d/cgroup: %s", (int)id->pid,
                        r == -ENAMETOOLONG ? "a cgroup path is too long" : "malformed");
        *ret = info;
        return 0;
}

struct hierarchy {
        char id[16];                 /* the hierarchy id of /proc/PID/cgroup */
        char ctrls[CONTROLLERS_MAX]; /* "" for the unified hierarchy */
        int fd;                      /* target's directory */
};

static void hierarchies_close(struct hierarchy *h, size_t n) {
        for (size_t i = 0; i < n; i++)
                closep(&h[i].fd);
}

/* Moves pid back into its cgroup of hierarchy h, as its_text (its
 * /proc/PID/cgroup before the move) says. Best effort. */
static void move_back(const char *mountinfo, const char *its_text, const struct hierarchy *h, pid_t pid) {
        struct cg_line l;
        for (const char *p = its_text; cg_line_next(&p, &l) > 0;) {
                char path[CGROUP_PATH_MAX];
                if (l.id_len != strlen(h->id) || memcmp(l.id, h->id, l.id_len) != 0 ||
                    copy_span(path, sizeof(path), l.path, l.path_len) < 0)
                        continue;
                _cleanup_close_ int fd = -EBADF;
                if (hierarchy_dir_open(mountinfo, h->ctrls[0] ? h->ctrls : NULL, path, &fd, NULL) >= 0)
                        (void)procs_write(fd, pid);
                return;
        }
}

int cgroup_join(const struct proc_identity *target, pid_t pid, struct mh_error *reterr) {
        _cleanup_free_ char *text = NULL, *its_text = NULL, *mountinfo = NULL;
        struct hierarchy h[HIERARCHIES_MAX];
        size_t n = 0;
        struct cg_line l;
        int r;

        if (pid <= 0)
                return mh_error_fail(reterr, -EINVAL, "invalid_pid", "invalid pid %d", (int)pid);
        r = read_target_cgroup(target, &text, reterr);
        if (r < 0)
                return r;
        r = read_proc_cgroup(pid, &its_text, reterr);
        if (r < 0)
                return r == -ESRCH ? mh_error_fail(
                                             reterr, r, "process_gone",
                                             "no process %d to move into the cgroups of %d", (int)pid,
                                             (int)target->pid)
                                   : r;
        r = read_mountinfo(&mountinfo, reterr);
        if (r < 0)
                return r;

        /* Every directory first, then the writes: a hierarchy we cannot open
         * fails the call before pid has moved anywhere. */
        for (const char *p = text; (r = cg_line_next(&p, &l)) > 0;) {
                char path[CGROUP_PATH_MAX];
                bool unified = cg_line_unified(&l);
                if (n >= HIERARCHIES_MAX) {
                        r = -E2BIG;
                        break;
                }
                struct hierarchy *e = &h[n];
                *e = (struct hierarchy){ .fd = -EBADF };
                if (copy_span(e->id, sizeof(e->id), l.id, l.id_len) < 0 ||
                    copy_span(e->ctrls, sizeof(e->ctrls), l.ctrls, l.ctrls_len) < 0 ||
                    copy_span(path, sizeof(path), l.path, l.path_len) < 0) {
                        r = -ENAMETOOLONG;
                        break;
                }
                char dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
                if (cgroup_mount_parse(
                            mountinfo, unified ? NULL : e->ctrls, dir, sizeof(dir), root, sizeof(root)) ==
                    -ENOENT)
                        continue; /* a hierarchy nobody mounted here (e.g. v2 on a v1-only host) */
                r = hierarchy_dir_open(mountinfo, unified ? NULL : e->ctrls, path, &e->fd, reterr);
                if (r < 0) {
                        hierarchies_close(h, n);
                        mh_error_prefix(reterr, "cgroups of process %d: ", (int)target->pid);
                        return r;
                }
                n++;
        }
        if (r < 0) {
                hierarchies_close(h, n);
                return mh_error_fail(
                        reterr, r, "cgroup", "/proc/%d/cgroup: %s", (int)target->pid,
                        r == -E2BIG ? "too many hierarchies" : "malformed or too long");
        }
        if (n == 0)
                return mh_error_fail(
                        reterr, -ENOENT, "cgroup", "no cgroup hierarchy of process %d is mounted here",
                        (int)target->pid);

        for (size_t i = 0; i < n; i++) {
                r = procs_write(h[i].fd, pid);
                if (r < 0) {
                        const char *what = h[i].ctrls[0] ? h[i].ctrls : "cgroup2";
                        for (size_t j = 0; j < i; j++)
                                move_back(mountinfo, its_text, &h[j], pid);
                        hierarchies_close(h, n);
                        return mh_error_fail(
                                reterr, r, "cgroup",
                                "moving process %d into the %s cgroup of process %d: %s", (int)pid, what,
                                (int)target->pid, strerror(-r));
                }
        }
        hierarchies_close(h, n);
        return 0;
}

static int parse_quota_field(const char *s, int64_t *ret) {
        if (streq(s, "max")) {
                *ret = -1;
                return 0;
        }
        int64_t v;
        int r = parse_int64(s, &v);
        if (r < 0)
                return r;
        if (v < -1)
                return -ERANGE;
        *ret = v;
        return 0;
}

static const char *v1_path_of(const struct cgroup_info *info, const char *controller) {
        static const struct {
                const char *name;
                size_t offset;
        } paths[] = {
                { "cpu", offsetof(struct cgroup_info, v1_cpu) },
                { "cpuacct", offsetof(struct cgroup_info, v1_cpuacct) },
                { "memory", offsetof(struct cgroup_info, v1_memory) },
                { "freezer", offsetof(struct cgroup_info, v1_freezer) },
                { "pids", offsetof(struct cgroup_info, v1_pids) },
                { "blkio", offsetof(struct cgroup_info, v1_blkio) },
        };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                if (streq(paths[i].name, controller))
                        return (const char *)info + paths[i].offset;
        return NULL;
}

int cgroup_controller_dir_open(
        const struct proc_identity *target, const char *controller, int *ret_fd, bool *ret_v2,
        char *ret_path, size_t path_size, struct mh_error *reterr) {
        _cleanup_free_ char *mountinfo = NULL;
        struct cgroup_info info;
        char dir[CGROUP_PATH_MAX], root[CGROUP_PATH_MAX];
        const char *v1 = NULL;
        int r = cgroup_of_process(target, &info, reterr);
        if (r < 0 || (r = read_mountinfo(&mountinfo, reterr)) < 0)
                return r;
        if (!(v1 = v1_path_of(&info, controller)))
                return mh_error_fail(reterr, -EINVAL, "cgroup", "unknown cgroup controller %s", controller);
        if (v1[0] && cgroup_mount_parse(mountinfo, controller, dir, sizeof(dir), root, sizeof(root)) >= 0) {
                *ret_v2 = false;
                if (ret_path)
                        snprintf(ret_path, path_size, "%s", v1);
                return hierarchy_dir_open(mountinfo, controller, v1, ret_fd, reterr);
        }
        if (!info.v2)
                return mh_error_fail(
                        reterr, -ENOENT, "cgroup",
                        "process %d: no %s controller (neither a v1 %s hierarchy nor cgroup2)",
                        (int)target->pid, controller, controller);
        *ret_v2 = true;
        if (ret_path)
                snprintf(ret_path, path_size, "%s", info.unified);
        return hierarchy_dir_open(mountinfo, NULL, info.unified, ret_fd, reterr);
}

int cgroup_knob_read(int dirfd, const char *name, char *buf, size_t size) {
        return knob_read(dirfd, name, buf, size);
}

/* The directory of target's cpu controller: the v1 cpu hierarchy if there is
 * one, else the v2 group (which then must offer cpu.max). */
static int cpu_dir_open(
        const struct proc_identity *target, int *ret_fd, bool *ret_v2, char *ret_path, size_t path_size,
        struct mh_error *reterr) {
        return cgroup_controller_dir_open(target, "cpu", ret_fd, ret_v2, ret_path, path_size, reterr);
}

int cgroup_cpu_quota(
        const struct proc_identity *target, int64_t *ret_quota_us, int64_t *ret_period_us,
        struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        char path[CGROUP_PATH_MAX], quota[KNOB_MAX], period[KNOB_MAX];
        bool v2 = false;
        int64_t q, p;
        int r = cpu_dir_open(target, &fd, &v2, path, sizeof(path), reterr);
        if (r < 0)
                return r;
        if (!v2) {
                r = knob_read(fd, "cpu.cfs_quota_us", quota, sizeof(quota));
                if (r >= 0)
                        r = knob_read(fd, "cpu.cfs_period_us", period, sizeof(period));
                if (r < 0)
                        return mh_error_fail(
                                reterr, r, "cgroup",
                                "cpu cgroup %s of process %d: cpu.cfs_quota_us/cpu.cfs_period_us: %s", path,
                                (int)target->pid, strerror(-r));
        } else {
                r = knob_read(fd, "cpu.max", quota, sizeof(quota));
                if (r == -ENOENT)
                        return mh_error_fail(
                                reterr, r, "cgroup",
                                "cgroup %s of process %d has no cpu.max (the root, or the cpu controller is "
                                "not enabled there)",
                                path, (int)target->pid);
                if (r < 0)
                        return mh_error_fail(
                                reterr, r, "cgroup", "cgroup %s: cpu.max: %s", path, strerror(-r));
                /* "max 100000" or "50000 100000" */
                char *sp = strchr(quota, ' ');
                if (!sp || strlen(sp + 1) >= sizeof(period))
                        return mh_error_fail(
                                reterr, -EPROTO, "cgroup", "cgroup %s: unexpected cpu.max \"%s\"", path,
                                quota);
                memcpy(period, sp + 1, strlen(sp + 1) + 1);
                *sp = '\0';
        }

        if (parse_quota_field(quota, &q) < 0 || parse_int64(period, &p) < 0 || p <= 0)
                return mh_error_fail(
                        reterr, -EPROTO, "cgroup", "process %d: unexpected cpu quota \"%s\" / period \"%s\"",
                        (int)target->pid, quota, period);
        *ret_quota_us = q;
        *ret_period_us = p;
        return 0;
}

static int knob_write(int dirfd, const char *name, const char *value) {
        _cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        size_t len = strlen(value);
        for (;;) {
                ssize_t w = write(fd, value, len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return negative_errno();
                return (size_t)w == len ? 0 : -EIO;
        }
}

int cgroup_set_cpu_quota(
        const struct proc_identity *target, int64_t quota_us, int64_t period_us, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        char path[CGROUP_PATH_MAX], quota[32], period[32], both[64];
        bool v2 = false;
        if (period_us <= 0 || quota_us == 0 || quota_us < -1)
                return mh_error_fail(
                        reterr, -EINVAL, "cgroup", "invalid cpu quota %" PRId64 " / period %" PRId64,
                        quota_us, period_us);
        int r = cpu_dir_open(target, &fd, &v2, path, sizeof(path), reterr);
        if (r < 0)
                return r;
        snprintf(quota, sizeof(quota), "%" PRId64, quota_us);
        snprintf(period, sizeof(period), "%" PRId64, period_us);
        if (v2) {
                snprintf(both, sizeof(both), "%s %s", quota_us < 0 ? "max" : quota, period);
                r = knob_write(fd, "cpu.max", both);
        } else if ((r = knob_write(fd, "cpu.cfs_period_us", period)) >= 0)
                r = knob_write(fd, "cpu.cfs_quota_us", quota);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "cpu cgroup %s: setting quota %s / period %s: %s", path, quota,
                        period, strerror(-r));
        return 0;
}

/* The first hierarchy in which the target is below the root: the unified
 * one, else a v1 pids, freezer, cpu or memory hierarchy (Docker on v1
 * leaves the unified path at "/"). */
static int own_dir_open(
        const struct proc_identity *target, const char *mountinfo, const struct cgroup_info *info,
        int *ret_fd, struct mh_error *reterr) {
        const struct {
                const char *ctrls, *path;
        } order[] = {
                { NULL, info->v2 ? info->unified : "" }, { "pids", info->v1_pids },
                { "freezer", info->v1_freezer },         { "cpu", info->v1_cpu },
                { "memory", info->v1_memory },
        };
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                if (order[i].path[0] && !streq(order[i].path, "/"))
                        return hierarchy_dir_open(mountinfo, order[i].ctrls, order[i].path, ret_fd, reterr);
        return mh_error_fail(
                reterr, -ENOENT, "cgroup",
                "process %d is in the root cgroup of every hierarchy; its processes cannot be told from "
                "the host's",
                (int)target->pid);
}

/* All of fd into buf (NUL-terminated); -EFBIG when it does not fit. */
static int read_all(int fd, char *buf, size_t size) {
        size_t used = 0;
        for (;;) {
                if (used + 1 >= size)
                        return -EFBIG;
                ssize_t n = read(fd, buf + used, size - 1 - used);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        break;
                used += (size_t)n;
        }
        buf[used] = '\0';
        return 0;
}

static int procs_parse(char *text, pid_t *ret_pids, size_t max, size_t *ret_n) {
        size_t n = 0;
        for (char *line = text, *next; *line; line = next) {
                next = line + strcspn(line, "\n");
                if (*next)
                        *next++ = '\0';
                int64_t v;
                if (parse_int64(line, &v) < 0 || v <= 0 || v > INT32_MAX)
                        return -EPROTO;
                if (n == max)
                        return -E2BIG;
                ret_pids[n++] = (pid_t)v;
        }
        *ret_n = n;
        return 0;
}

int cgroup_procs(
        const struct proc_identity *target, pid_t *ret_pids, size_t max, size_t *ret_n,
        struct mh_error *reterr) {
        _cleanup_free_ char *mountinfo = NULL, *text = NULL;
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        struct cgroup_info info;
        size_t size = 16 * max + 2;
        int r = cgroup_of_process(target, &info, reterr);
        if (r < 0 || (r = read_mountinfo(&mountinfo, reterr)) < 0 ||
            (r = own_dir_open(target, mountinfo, &info, &dirfd, reterr)) < 0)
                return r;
        if (!(text = malloc(size)))
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
        r = fd < 0 ? negative_errno() : read_all(fd, text, size);
        if (r >= 0)
                r = procs_parse(text, ret_pids, max, ret_n);
        if (r == -E2BIG || r == -EFBIG)
                return mh_error_fail(
                        reterr, -E2BIG, "cgroup", "the cgroup of process %d holds more than %zu processes",
                        (int)target->pid, max);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "cgroup.procs of process %d: %s", (int)target->pid,
                        strerror(-r));
        return 0;
}
