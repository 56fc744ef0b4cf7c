#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault/guard.h"
#include "fault/live.h"
#include "sys/ns.h"
#include "sys/rtnl.h"

/* net.mtu_mismatch: the MTU of the target's device set to the given value
 * over rtnetlink, from a thread of the agent in the target's network
 * namespace; the MTU before is recorded (the lease's restore record) and
 * undo puts exactly that back. The kernel keeps the MTU after the agent
 * dies, so a guardian (fault/guard.h) holds the undo from before the change. */

struct mtu_visit {
        const char *device;
        uint32_t set;          /* 0: only look */
        struct rtnl_link link; /* as it was before */
};

static int visit(void *arg, struct mh_error *e) {
        struct mtu_visit *v = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        int r = rtnl_open(&rt, e);
        if (r >= 0)
                r = rtnl_link_get(rt, v->device, &v->link, e);
        if (r >= 0 && v->set)
                r = rtnl_link_set_mtu(rt, v->link.ifindex, v->set, e);
        return r;
}

/* -ESRCH: the target is gone; -ENODEV: it has no such device. */
static int in_target(
        const struct proc_identity *target, const char *device, uint32_t set, struct rtnl_link *ret,
        struct mh_error *e) {
        struct mtu_visit v = { .device = device, .set = set };
        int r = target->pid > 0 ? ns_net_run(target, visit, &v, e)
                                : mh_error_fail(e, -ESRCH, "not_running", "the target is not running");
        if (r >= 0 && ret)
                *ret = v.link;
        return r;
}

/* What the agent holds while the MTU is changed. */
struct mtu_held {
        struct proc_identity target;
        char device[IF_NAMESIZE];
        uint32_t before;
        struct fault_guard *guard;
};

static void release(void *live) {
        struct mtu_held *m = live;
        in_target(&m->target, m->device, m->before, NULL, NULL);
        fault_guard_release(m->guard);
        free(m);
}

extern const struct fault_mechanism fault_link_mtu;

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const char *device = fault_param(fx, "device")->s;
        uint32_t mtu = (uint32_t)fault_param(fx, "mtu")->i;
        struct rtnl_link before;
        int r = in_target(&fx->target.main, device, 0, &before, reterr);
        if (r < 0)
                return r;
        if (before.mtu == mtu || before.mtu == 0)
                return mh_error_fail(
                        reterr, -EALREADY, "mtu",
                        "device %s of %s has MTU %" PRIu32 " already: the fault would change nothing",
                        device, fx->target.container_name, before.mtu);
        struct mtu_held *m = calloc(1, sizeof(*m));
        if (!m || json_object_set_new(fx->restore, "device", json_string(device)) < 0 ||
            json_object_set_new(fx->restore, "mtu", json_integer(before.mtu)) < 0) {
                free(m);
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        }
        *m = (struct mtu_held){ .target = fx->target.main, .before = before.mtu };
        snprintf(m->device, sizeof(m->device), "%s", device);
        /* The guardian first: no MTU changes without someone to put it back. */
        if ((r = fault_guard_start(fx, &m->guard, reterr)) < 0) {
                free(m);
                return r;
        }
        if ((r = in_target(&m->target, device, mtu, NULL, reterr)) >= 0 &&
            (r = fault_live_put(fx->lives, fx->lease_id, &fault_link_mtu, m)) < 0)
                mh_error_fail(
                        reterr, r, "mtu", "lease %s: applied already, or too many faults in force",
                        fx->lease_id);
        if (r < 0)
                release(m); /* the MTU back, and the guardian let go */
        return r < 0 ? r : 0;
}

/* The device and its MTU before the fault, from the restore record; false: none recorded. */
static bool recorded(const struct fault_exec *fx, const char **ret_device, uint32_t *ret_mtu) {
        const json_t *d = json_object_get(fx->restore, "device"), *m = json_object_get(fx->restore, "mtu");
        if (!json_is_string(d) || !json_is_integer(m) || json_integer_value(m) <= 0 ||
            json_integer_value(m) > UINT32_MAX)
                return false;
        *ret_device = json_string_value(d);
        *ret_mtu = (uint32_t)json_integer_value(m);
        return true;
}

/* The MTU back before the guardian lets go, so an agent that dies in
 * between still leaves it back. A target or device that is gone took it along. */
static int undo_restore(const struct fault_exec *fx, struct mh_error *reterr) {
        const char *device;
        uint32_t mtu;
        int r = recorded(fx, &device, &mtu) ? in_target(&fx->target.main, device, mtu, NULL, reterr) : 0;
        if (r < 0 && r != -ESRCH && r != -ENODEV)
                return r;
        struct mtu_held *m = fault_live_take(fx->lives, fx->lease_id);
        if (m) {
                fault_guard_release(m->guard);
                free(m);
        }
        return 0;
}

/* The device's MTU now into *ret_mtu; 0 when the target or device is gone. */
static int mtu_now(
        const struct fault_exec *fx, const char *device, uint32_t *ret_mtu, char *detail, size_t size) {
        struct rtnl_link now;
        struct mh_error e = { 0 };
        int r = in_target(&fx->target.main, device, 0, &now, &e);
        *ret_mtu = r >= 0 ? now.mtu : 0;
        if (r >= 0)
                snprintf(
                        detail, size, "device %s of %s has MTU %" PRIu32, device, fx->target.container_name,
                        now.mtu);
        else
                snprintf(detail, size, "%s", e.msg);
        return r == -ESRCH || r == -ENODEV ? 0 : r;
}

static int look_restored(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        const char *device;
        uint32_t before, now;
        if (!recorded(fx, &device, &before)) {
                *ret = true;
                snprintf(detail, size, "no MTU was recorded, so none was changed");
                return 0;
        }
        int r = mtu_now(fx, device, &now, detail, size);
        *ret = r >= 0 && (now == before || now == 0);
        return r;
}

/* In force: the MTU is the fault's and the agent holds the lease that set it. */
static int look_set(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        uint32_t now;
        int r = mtu_now(fx, fault_param(fx, "device")->s, &now, detail, size);
        *ret = r >= 0 && now == (uint32_t)fault_param(fx, "mtu")->i &&
               fault_live_with(fx->lives, fx->lease_id, NULL, NULL);
        return r;
}

const struct fault_mechanism fault_link_mtu = {
        .name = "link.mtu",
        .apply = apply,
        .undo = { { "link.restore_mtu", undo_restore } },
        .verify = { { "link.mtu_restored", look_restored } },
        .effect = { { "link.mtu_set", look_set } },
        .release = release,
};
