/* net.unreachable: from inside the target's netns, a TCP connect to each of
 * the first peers times out. A peer that answers (accepts, or refuses with a
 * reset) is reached: the partition is not in effect. With no peer named
 * (every address but loopback is cut off), the default gateway stands in. When the fault drops
 * egress only, a connect with NET_PROBE_MARK first shows the peer answers at
 * all; a fault that drops what comes in drops the answers to that control
 * too, so there a timeout is the whole observation. */
#include "net-effect.h"

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "fault/net-probe.h"
#include "fault/net-recipe.h"
#include "sys/ns.h"
#include "sys/rtnl.h"

#define CONNECT_PROBE_MS 300
#define PEERS_PROBED     3
#define PROBE_PORT       9 /* discard: a closed port answers with a reset just as well */

struct reach_look {
        const char *peers[PEERS_PROBED];
        size_t n;
        char gateway[INET6_ADDRSTRLEN]; /* no peer named: the default gateway stands in */
        bool control;                   /* egress only: the marked connect passes the rules */
        size_t timed_out;
        const char *answered_by, *silent; /* the first peer that answered / that ignored the control */
        struct net_probe_result probe, control_result;
};

/* The IPv4 default route's gateway in this thread's netns: 1 found, 0 none. */
static int default_gateway(char *buf, size_t size, struct mh_error *e) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct rtnl_route routes[64];
        size_t n = 0, skipped = 0;
        int r = rtnl_open(&rt, e);
        if (r < 0 || (r = rtnl_route_list(rt, AF_INET, 0, routes, ELEMENTSOF(routes), &n, &skipped, e)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (routes[i].dst_len == 0 && routes[i].has_gateway && routes[i].table == RT_TABLE_MAIN)
                        return inet_ntop(AF_INET, routes[i].gateway, buf, (socklen_t)size) ? 1 : 0;
        return 0;
}

static int fn_reach(void *arg, struct mh_error *e) {
        struct reach_look *a = arg;
        if (a->n == 0) {
                int r = default_gateway(a->gateway, sizeof(a->gateway), e);
                if (r <= 0)
                        return r;
                a->peers[a->n++] = a->gateway;
        }
        for (size_t i = 0; i < a->n; i++) {
                int r = a->control ? net_probe_connect(
                                             a->peers[i], PROBE_PORT, NET_PROBE_MARK, CONNECT_PROBE_MS,
                                             &a->control_result)
                                   : 0;
                if (r >= 0 && a->control && a->control_result.outcome != NET_PROBE_ANSWERED) {
                        a->silent = a->peers[i];
                        return 0;
                }
                if (r >= 0)
                        r = net_probe_connect(a->peers[i], PROBE_PORT, 0, CONNECT_PROBE_MS, &a->probe);
                if (r < 0)
                        return mh_error_fail(e, r, "connect_probe", "cannot connect to %s", a->peers[i]);
                if (a->probe.outcome != NET_PROBE_TIMEOUT) {
                        a->answered_by = a->peers[i];
                        return 0;
                }
                a->timed_out++;
        }
        return 0;
}

static int verdict(const struct reach_look *a, bool *ret, char *detail, size_t size) {
        if (a->silent) {
                snprintf(
                        detail, size,
                        "%s does not answer the agent's own connect from the target's netns either (%.0f "
                        "ms), "
                        "so a dropped connect cannot be told from an unanswered one",
                        a->silent, a->control_result.ms);
                return FAULT_EFFECT_UNOBSERVED;
        }
        if (a->answered_by && a->probe.outcome == NET_PROBE_ERROR) {
                snprintf(
                        detail, size,
                        "a TCP connect from the target's netns to %s:%d failed (%s): the network, not the "
                        "fault, turned it away",
                        a->answered_by, PROBE_PORT, strerror(-a->probe.err));
                return FAULT_EFFECT_UNOBSERVED;
        }
        if (a->answered_by) {
                *ret = false;
                snprintf(
                        detail, size,
                        "a TCP connect from the target's netns to %s:%d was answered (%s) in %.1f ms",
                        a->answered_by, PROBE_PORT, a->probe.err ? "refused" : "accepted", a->probe.ms);
                return 0;
        }
        if (a->n == 0) {
                snprintf(
                        detail, size,
                        "no peer named and no default gateway: the partition drops every address but "
                        "loopback, and the agent has none to connect to");
                return FAULT_EFFECT_UNOBSERVED;
        }
        if (a->gateway[0]) {
                snprintf(
                        detail, size,
                        "a TCP connect from the target's netns to its default gateway %s:%d timed out (%d "
                        "ms)%s",
                        a->gateway, PROBE_PORT, CONNECT_PROBE_MS,
                        a->control ? ", which answered the agent's control connect" : "");
                return 0;
        }
        snprintf(
                detail, size,
                "a TCP connect from the target's netns to %zu of %zu peer%s (%s:%d%s) timed out (%d ms)%s",
                a->timed_out, a->n, a->n == 1 ? "" : "s", a->peers[0], PROBE_PORT, a->n > 1 ? ", ..." : "",
                CONNECT_PROBE_MS, a->control ? ", each answering the agent's control connect" : "");
        return 0;
}

int net_effect_unreachable(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        const struct param_value *direction = fault_param_opt(fx, "direction");
        struct reach_look a = { .control = direction && strcmp(direction->s, "egress") == 0 };
        struct mh_error e = { 0 };
        *ret = true;
        for (size_t i = 0; i < fx->net.n_peers && a.n < PEERS_PROBED; i++)
                a.peers[a.n++] = fx->net.peers[i];
        int r = ns_net_run(&fx->target.main, fn_reach, &a, &e);
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        return verdict(&a, ret, detail, size);
}
