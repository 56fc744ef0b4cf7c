#include "sys/cgroup-pids.h"

#include <string.h>

#include "basic/macro.h"
#include "basic/parse-number.h"
#include "sys/cgroup.h"

#define PIDS_KNOB_MAX 64

int cgroup_pids_max_parse(const char *text, int64_t *ret) {
        int64_t v;
        if (streq(text, "max")) {
                *ret = CGROUP_PIDS_UNLIMITED;
                return 0;
        }
        if (parse_int64(text, &v) < 0 || v < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int cgroup_pids_read(const struct proc_identity *target, struct cgroup_pids *ret, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        char path[CGROUP_PATH_MAX], cur[PIDS_KNOB_MAX], max[PIDS_KNOB_MAX];
        bool v2 = false;
        struct cgroup_pids p;
        int r = cgroup_controller_dir_open(target, "pids", &fd, &v2, path, sizeof(path), reterr);
        if (r < 0)
                return r;
        r = cgroup_knob_read(fd, "pids.current", cur, sizeof(cur));
        if (r >= 0)
                r = cgroup_knob_read(fd, "pids.max", max, sizeof(max));
        if (r == -ENOENT)
                return mh_error_fail(
                        reterr, r, "cgroup",
                        "%s cgroup %s of process %d has no pids.max (the root group, or the pids controller "
                        "is not enabled there)",
                        v2 ? "unified" : "pids", path, (int)target->pid);
        if (r < 0)
                return mh_error_fail(
                        reterr, r, "cgroup", "pids cgroup %s of process %d: %s", path, (int)target->pid,
                        strerror(-r));
        if (parse_int64(cur, &p.current) < 0 || p.current < 0 || cgroup_pids_max_parse(max, &p.max) < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "cgroup",
                        "pids cgroup %s: cannot read pids.current '%s' / pids.max '%s'", path, cur, max);
        *ret = p;
        return 0;
}
