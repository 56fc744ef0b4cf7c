/* A device's restore record (net.interface_down, net.mtu_mismatch) as it
 * comes back from a journal or a request: arbitrary JSON through
 * net_link_from_json(). Checks: what it accepts is in shape (counts,
 * prefix lengths, metrics within their arrays), writes back out as JSON that
 * reads in again to the same record, and makes add requests rtnetlink takes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fault/net-link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct net_link *a) {
        if (a->n_addrs > NET_LINK_ADDRS_MAX || a->n_routes > NET_LINK_ROUTES_MAX)
                abort();
        char buf[RTNL_MSG_MAX];
        size_t len;
        for (size_t i = 0; i < a->n_addrs; i++) {
                struct rtnl_addr x = a->addrs[i];
                x.ifindex = 1;
                if (rtnl_msg_addr(buf, sizeof(buf), 1, &x, RTNL_ADDR_ADD_NODAD, &len, NULL) < 0)
                        abort();
        }
        for (size_t i = 0; i < a->n_routes; i++) {
                struct rtnl_route x = a->routes[i];
                x.oif = 1;
                if (x.metrics_len > RTNL_ROUTE_METRICS_MAX ||
                    rtnl_msg_route(buf, sizeof(buf), 1, &x, &len, NULL) < 0)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        json_t *j = json_loadb((const char *)data, size, 0, NULL);
        static struct net_link a, b;
        if (j && net_link_from_json(j, &a, NULL) >= 0) {
                check(&a);
                json_t *out = net_link_json(&a);
                if (!out || net_link_from_json(out, &b, NULL) < 0)
                        abort();
                if (a.n_addrs != b.n_addrs || a.n_routes != b.n_routes ||
                    memcmp(a.addrs, b.addrs, a.n_addrs * sizeof(a.addrs[0])) != 0 ||
                    memcmp(a.routes, b.routes, a.n_routes * sizeof(a.routes[0])) != 0)
                        abort();
                json_decref(out);
        }
        json_decref(j);
        return 0;
}
