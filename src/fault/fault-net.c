#include "fault-net.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/guard.h"
#include "fault/live.h"
#include "fault/net-effect.h"
#include "fault/net-netns.h"

#define FLAP_TICK_MS 20

/* ---- dependency.flap -------------------------------------------------------- */

/* splitmix64, uniform in [0, 1) */
static double uniform(uint64_t *state) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static void *flap_main(void *arg) {
        struct net_live *l = arg;
        uint64_t rng = (uint64_t)(monotonic_ms() * 1000.0) ^ (uint64_t)l->target.pid;
        bool on = false;
        while (!atomic_load(&l->flap_stop)) {
                bool want = uniform(&rng) * 100.0 < l->rc.flap_probability;
                if (want != on && net_rules_switch(l, want, NULL) >= 0)
                        on = want;
                for (double until = monotonic_ms() + (double)l->rc.flap_interval_ms;
                     monotonic_ms() < until && !atomic_load(&l->flap_stop);)
                        sleep_ms(FLAP_TICK_MS);
        }
        return NULL;
}

/* ---- apply ----------------------------------------------------------- */

extern const struct fault_mechanism fault_net;

static int deliver(struct net_live *l, const struct fault_exec *fx, struct mh_error *reterr) {
        int r;
        switch (l->rc.delivery) {
        case NET_DELIVERY_NFT:
                if ((r = net_rules_apply(l, reterr)) < 0 || !l->rc.flap_interval_ms)
                        return r;
                r = -pthread_create(&l->flap_thread, NULL, flap_main, l);
                l->flap_started = r == 0;
                return r < 0 ? mh_error_fail(reterr, r, "flap", "cannot start the flap thread") : 0;
        case NET_DELIVERY_SHAPER: return net_rules_apply(l, reterr);
        default:
                /* The guardian first: no qdisc exists without someone to remove it. */
                if ((r = fault_guard_start(fx, &l->guard, reterr)) < 0)
                        return r;
                return net_ns_qdisc_apply(&l->target, l->lease_id, &l->rc, reterr);
        }
}

static bool qdisc_delivery(enum net_delivery d) {
        return d == NET_DELIVERY_TBF || d == NET_DELIVERY_NETEM;
}

/* The qdiscs go before the guardian is released (net_live_free), so an agent
 * that dies in between still leaves nothing. */
static int teardown(struct net_live *l, const struct fault_exec *fx, bool qdisc, struct mh_error *reterr) {
        int r = qdisc && fx->target.main.pid > 0 ? net_ns_clean(&fx->target.main, fx->lease_id, reterr) : 0;
        net_live_free(l);
        return r;
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "not_running",
                        "%s: %s is not running: it has no network namespace to act in", fx->def->id,
                        fx->target.container_name);
        struct net_live *l = net_live_new(fx->lease_id);
        if (!l)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        l->target = fx->target.main;
        l->net = fx->net;
        int r = net_recipe_build(fx, &l->net, &l->rc, reterr);
        if (r >= 0 && (r = deliver(l, fx, reterr)) < 0)
                mh_error_prefix(reterr, "%s (%s): ", fx->def->id, net_delivery_to_string(l->rc.delivery));
        if (r >= 0 && (r = fault_live_put(fx->lives, fx->lease_id, &fault_net, l)) < 0)
                mh_error_fail(
                        reterr, r, "net_live", "lease %s: %s", fx->lease_id,
                        r == -EEXIST ? "already applied" : "too many faults in force");
        if (r < 0)
                teardown(l, fx, qdisc_delivery(l->rc.delivery), NULL);
        return r;
}

/* net.unshape: with the agent's own record of the lease, only a qdisc
 * delivery needs the target's netns cleaned; without one (recovery after the
 * agent died) the clean runs anyway: it is idempotent. */
static int undo_unshape(const struct fault_exec *fx, struct mh_error *reterr) {
        struct net_live *l = fault_live_take(fx->lives, fx->lease_id);
        return teardown(l, fx, !l || qdisc_delivery(l->rc.delivery), reterr);
}

/* nft.table_delete: only what the agent holds (tables, shaper, flap thread,
 * guardian); rules die with their tables, tables with their sockets. */
static int undo_table_delete(const struct fault_exec *fx, struct mh_error *reterr) {
        net_live_free(fault_live_take(fx->lives, fx->lease_id));
        return 0;
}

static void queue_of(void *live, void *arg) {
        *(uint16_t *)arg = ((struct net_live *)live)->queue;
}

/* 1 when something of the lease remains in the target's netns (or, for the
 * effect, is in force), 0 when none, < 0 when it could not look. */
static int residue(const struct fault_exec *fx, bool *ret_live, char *detail, size_t size) {
        uint16_t queue = 0;
        bool live = fault_live_with(fx->lives, fx->lease_id, queue_of, &queue);
        bool qdisc = fx->net.has_delivery && qdisc_delivery(fx->net.delivery);
        const struct param_value *direction = fault_param_opt(fx, "direction");
        *ret_live = live;
        if (fx->target.main.pid <= 0) {
                snprintf(detail, size, "%s is not running: no netns left", fx->target.container_name);
                return live;
        }
        return net_ns_residue(
                &fx->target.main, fx->lease_id, queue,
                qdisc && direction && strcmp(direction->s, "egress") != 0, detail, size);
}

static int look_clean(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        bool live;
        int r = residue(fx, &live, detail, size);
        *ret = r == 0;
        return r < 0 ? r : 0;
}

/* In force: the agent holds the lease's tables / shaper / guardian, and the
 * target's netns shows them. */
static int look_in_force(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        bool live;
        int r = residue(fx, &live, detail, size);
        *ret = r > 0 && live;
        return r < 0 ? r : 0;
}

/* In force, and then what the effect check sees (net-effect.h). */
static int look_then(
        const struct fault_exec *fx, bool *ret, char *detail, size_t size, fault_look_fn observe) {
        int r = look_in_force(fx, ret, detail, size);
        return r < 0 || !*ret ? r : observe(fx, ret, detail, size);
}

/* Rules whose effect the agent has no probe for from the target's netns
 * (refused or reset connections of the target's clients, a flapping
 * dependency): what they counted is what it sees. */
static int look_rules(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return look_then(fx, ret, detail, size, net_effect_counted);
}

static int look_shaped(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return look_then(fx, ret, detail, size, net_effect_shaped);
}

static int look_dns(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return look_then(fx, ret, detail, size, net_effect_dns);
}

static int look_unreachable(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return look_then(fx, ret, detail, size, net_effect_unreachable);
}

static void release(void *live) {
        struct net_live *l = live;
        if (l && qdisc_delivery(l->rc.delivery) && l->target.pid > 0)
                net_ns_clean(&l->target, l->lease_id, NULL);
        net_live_free(l);
}

const struct fault_mechanism fault_net = {
        .name = "net",
        .apply = apply,
        .undo = { { "net.unshape", undo_unshape }, { "nft.table_delete", undo_table_delete } },
        .verify = { { "net.clean", look_clean } },
        .effect = { { "net.shaped", look_shaped },
                    { "nft.rules_present", look_rules },
                    { "dns.unanswered", look_dns },
                    { "net.unreachable", look_unreachable } },
        .release = release,
};
