#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "fault/mount-target.h"
#include "sys/ns.h"

/* fs.read_only, in the target's mount namespace only (mount-target.h):
 *
 * - a path below the root: a read-only bind of it over itself, the newer
 *   mount API's way (open_tree(OPEN_TREE_CLONE), mount_setattr, move_mount),
 *   the clone made private and refused under a shared mount, so nothing
 *   propagates to the host. Files open for writing before stay on the mount
 *   underneath and keep writing; new opens fail with EROFS. Undo unmounts
 *   the clone, by its id.
 * - the root "/": a mount over it would be invisible to the processes whose
 *   root it is (their lookups start below it), so the root mount's own
 *   per-mount read-only flag is set instead (`mount -o remount,bind,ro /`),
 *   never propagated. The kernel refuses it (EBUSY) while a file on it is
 *   open for writing. Undo clears the flag, on that mount id only.
 *
 * The mount id (and the mode) is recorded before the change, so a new agent
 * undoes from its own record; undo never touches a mount of another id. */

extern const struct fault_mechanism fault_mount;

static const char *name_of(const struct fault_exec *fx) {
        return fx->target.container_name[0] ? fx->target.container_name : "the target";
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
                name_of(fx));
}

static int record(
        struct fault_exec *fx, const char *mode, uint64_t id, const char *point, struct mh_error *reterr) {
        if (json_object_set_new(fx->restore, "mount_mode", json_string(mode)) < 0 ||
            json_object_set_new(fx->restore, "mount_id", json_integer((json_int_t)id)) < 0 ||
            json_object_set_new(fx->restore, "mount_point", json_string(point)) < 0)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        return fault_record(fx, reterr);
}

/* "/": the flag on the root mount itself. */
static int apply_flag(struct fault_exec *fx, const struct mount_probe *p, struct mh_error *reterr) {
        int r = record(fx, "flag", p->id, "/", reterr);
        if (r < 0)
                return r;
        r = mount_target_flag(&fx->target.main, "/", p->id, true, reterr);
        if (r == -EBUSY)
                mh_error_prefix(
                        reterr,
                        "a process of %s has a file on / open for writing, so the kernel keeps / writable "
                        "(name a path below it): ",
                        name_of(fx));
        return r == -ESTALE ? mh_error_fail(reterr, r, "mount", "the root mount of %s changed", name_of(fx))
                            : r;
}

static int apply_bind(
        struct fault_exec *fx, const char *path, const struct mount_probe *p, struct mh_error *reterr) {
        struct mountinfo_entry under;
        _cleanup_close_ int tree = -EBADF;
        uint64_t id;
        int r = mount_target_find(&fx->target.main, p->id, &under);
        if (r <= 0)
                return mh_error_fail(
                        reterr, r < 0 ? r : -ESRCH, "mount",
                        "mount %" PRIu64 " of %s is not in its mountinfo", p->id, name_of(fx));
        if (under.shared)
                return mh_error_fail(
                        reterr, -EPERM, "mount_shared",
                        "%s is on mount %s of %s, which is shared: a mount over it would propagate to its "
                        "peers, the host's included",
                        path, under.point, name_of(fx));
        if ((r = mount_target_clone_ro(&fx->target.main, path, &tree, &id, reterr)) < 0 ||
            (r = record(fx, "bind", id, path, reterr)) < 0)
                return r; /* the clone, never attached, goes with its fd */
        if ((r = mount_target_attach(&fx->target.main, path, tree, reterr)) < 0)
                return r;
        /* Its mount point as mountinfo names it (path through the target's
         * symlinks): undo takes the id for ours only there, ids being reused. */
        struct mountinfo_entry now;
        if (mount_target_find(&fx->target.main, id, &now) == 1 && !streq(now.point, path))
                return record(fx, "bind", id, now.point, reterr);
        return 0;
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const char *path = fault_param(fx, "path")->s;
        struct mount_probe p;
        int r;
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "%s has no running main process", name_of(fx));
        if ((r = refuse_own_namespace(fx, reterr)) < 0 ||
            (r = mount_target_probe(&fx->target.main, path, &p, reterr)) < 0)
                return r;
        if (p.read_only)
                return mh_error_fail(
                        reterr, -EALREADY, "path",
                        "%s is on a read-only mount in %s already: the fault would change nothing", path,
                        name_of(fx));
        return p.is_root ? apply_flag(fx, &p, reterr) : apply_bind(fx, path, &p, reterr);
}

struct recorded {
        bool bind;
        uint64_t id;
        const char *point;
};

static bool recorded(const struct fault_exec *fx, struct recorded *ret) {
        const json_t *mode = json_object_get(fx->restore, "mount_mode"),
                     *id = json_object_get(fx->restore, "mount_id"),
                     *point = json_object_get(fx->restore, "mount_point");
        if (!json_is_string(mode) || !json_is_integer(id) || json_integer_value(id) <= 0 ||
            !json_is_string(point) || json_string_value(point)[0] != '/')
                return false;
        ret->point = json_string_value(point);
        ret->bind = streq(json_string_value(mode), "bind");
        ret->id = (uint64_t)json_integer_value(id);
        return ret->bind || streq(json_string_value(mode), "flag");
}

/* Still to undo: 1 (the recorded mount is there, ours and in force), 0 not.
 * Mount ids are reused: one at another mount point is not ours, and ours
 * (live ids are unique) is gone. */
static int pending(const struct fault_exec *fx, const struct recorded *rec, struct mountinfo_entry *ret) {
        int r = mount_target_find(&fx->target.main, rec->id, ret);
        if (r <= 0 || !streq(ret->point, rec->point))
                return r < 0 ? r : 0;
        return rec->bind || ret->read_only;
}

static int undo_remount(const struct fault_exec *fx, struct mh_error *reterr) {
        struct mountinfo_entry m;
        struct recorded rec;
        if (fx->target.main.pid <= 0 || !recorded(fx, &rec))
                return 0;
        int r = pending(fx, &rec, &m);
        if (r <= 0)
                return r < 0 ? mh_error_fail(
                                       reterr, r, "mount", "mountinfo of %s: %s", name_of(fx), strerror(-r))
                             : 0;
        r = rec.bind ? mount_target_detach(&fx->target.main, m.point, rec.id, reterr)
                     : mount_target_flag(&fx->target.main, m.point, rec.id, false, reterr);
        if (r == -ESRCH)
                return 0; /* gone with its namespace */
        if (r == -ESTALE)
                return mh_error_fail(
                        reterr, r, "mount_covered",
                        "mount %" PRIu64 " of %s at %s is covered by another mount; %s it by hand", rec.id,
                        name_of(fx), m.point, rec.bind ? "unmount" : "remount rw");
        return r;
}

static int look_writable(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct mountinfo_entry m;
        struct recorded rec;
        *ret = true;
        if (fx->target.main.pid <= 0 || !recorded(fx, &rec)) {
                snprintf(detail, size, "no mount was recorded, so none was changed");
                return 0;
        }
        int r = pending(fx, &rec, &m);
        *ret = r == 0;
        if (r < 0)
                snprintf(detail, size, "mountinfo of %s: %s", name_of(fx), strerror(-r));
        else if (r == 0)
                snprintf(
                        detail, size, "mount %" PRIu64 " of %s is %s", rec.id, name_of(fx),
                        rec.bind ? "gone" : "rw or gone");
        else
                snprintf(
                        detail, size, "mount %" PRIu64 " of %s at %s is still %s", rec.id, name_of(fx),
                        m.point, rec.bind ? "mounted" : "ro");
        return r < 0 ? r : 0;
}

/* In force: a write at path inside the target fails with EROFS. A write
 * that fails otherwise (EACCES, ENOSPC) hides the effect: the mount being
 * there (and read-only) is then all that can be seen. */
static int look_read_only(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        const char *path = fault_param(fx, "path")->s;
        struct mh_error e = { 0 };
        struct mountinfo_entry m;
        struct recorded rec;
        int res = 0, r = mount_target_write(&fx->target.main, path, &res, &e);
        *ret = r >= 0 && res == -EROFS;
        if (r < 0)
                snprintf(detail, size, "%s", e.msg);
        else if (res == 0)
                snprintf(detail, size, "a write to %s in %s succeeded", path, name_of(fx));
        else
                snprintf(
                        detail, size, "a write to %s in %s fails with %s", path, name_of(fx),
                        strerror(-res));
        if (r < 0 || res == 0 || res == -EROFS)
                return r < 0 ? r : 0;
        if (!recorded(fx, &rec) || pending(fx, &rec, &m) <= 0)
                return 0;
        *ret = true;
        snprintf(
                detail, size,
                "not observable: a write to %s in %s fails with %s, not EROFS; mount %" PRIu64
                " is in force",
                path, name_of(fx), strerror(-res), rec.id);
        return FAULT_EFFECT_UNOBSERVED;
}

const struct fault_mechanism fault_mount = {
        .name = "mount",
        .records = true,
        .apply = apply,
        .undo = { { "mount.remount_rw", undo_remount } },
        .verify = { { "mount.writable", look_writable } },
        .effect = { { "mount.read_only", look_read_only } },
};
