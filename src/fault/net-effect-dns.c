/* dns.unanswered: from inside the target's netns, the agent asks the
 * target's own resolver (the first nameserver of its /etc/resolv.conf) a
 * question twice per round: once with NET_PROBE_MARK, which the lease's drop
 * rules let pass (the control: the resolver answers at all), once without
 * (what the target's own queries get). The effect is seen when the control
 * is answered and the other query times out. */
#include "net-effect.h"

#include <stdio.h>
#include <string.h>

#include "fault/net-netns.h"
#include "fault/net-probe.h"
#include "fault/net-resolv.h"

#define DNS_PROBE_MS 300
#define ROUNDS_MIN   2
#define ROUNDS_MAX   8
/* All answered while the fault is in force: at most this likely by chance,
 * or the effect is called not observable rather than absent. */
#define CHANCE_MAX 0.01

struct dns_look {
        const char *server, *name;
        int rounds;
        int answered; /* rounds whose unmarked query got through */
        bool control_failed, timed_out, probe_failed;
        struct net_probe_result control, probe;
};

static int fn_dns(void *arg, struct mh_error *e) {
        struct dns_look *a = arg;
        for (int i = 0; i < a->rounds; i++) {
                int r = net_probe_dns(
                        a->server, a->name, NET_PROBE_MARK, NET_PROBE_PORT, DNS_PROBE_MS, &a->control);
                if (r >= 0 && a->control.outcome != NET_PROBE_ANSWERED) {
                        a->control_failed = true;
                        return 0;
                }
                if (r >= 0 && (r = net_probe_dns(a->server, a->name, 0, 0, DNS_PROBE_MS, &a->probe)) >= 0 &&
                    a->probe.outcome == NET_PROBE_TIMEOUT) {
                        a->timed_out = true;
                        return 0;
                }
                if (r < 0)
                        return mh_error_fail(
                                e, r, "dns_probe", "cannot query %s: %s", a->server, strerror(-r));
                if (a->probe.outcome == NET_PROBE_ERROR) {
                        a->probe_failed = true;
                        return 0;
                }
                a->answered++;
        }
        return 0;
}

/* Rounds enough that a fault dropping share percent lets them all through
 * at most CHANCE_MAX of the time, within ROUNDS_MIN..ROUNDS_MAX; *ret_chance
 * is that chance for the rounds chosen. */
static int rounds_for(double share, double *ret_chance) {
        double chance = 1, pass = share >= 100 ? 0 : 1 - share / 100;
        int n = 0;
        while (n < ROUNDS_MIN || (chance > CHANCE_MAX && n < ROUNDS_MAX))
                chance *= pass, n++;
        *ret_chance = chance;
        return n;
}

/* A name the resolver knows without asking anyone else: a container's own
 * name, on a Docker network; "localhost" for a name that is no DNS name. */
static const char *name_of(const struct fault_exec *fx, char *buf, size_t size) {
        uint8_t q[300];
        snprintf(buf, size, "%s", fx->target.container_name + (fx->target.container_name[0] == '/'));
        return net_probe_dns_query(buf, 0, q, sizeof(q)) > 0 ? buf : "localhost";
}

static const char *outcome_text(const struct net_probe_result *p) {
        return p->outcome == NET_PROBE_TIMEOUT   ? "timed out"
               : p->outcome == NET_PROBE_REFUSED ? "refused"
                                                 : strerror(-p->err);
}

static int verdict(
        const struct dns_look *a, double share, double chance, bool *ret, char *detail, size_t size) {
        if (a->control_failed) {
                snprintf(
                        detail, size,
                        "the target's resolver %s does not answer the agent's own query from its netns "
                        "either "
                        "(%s after %.0f ms), so a dropped query cannot be told from an unanswered one",
                        a->server, outcome_text(&a->control), a->control.ms);
                return FAULT_EFFECT_UNOBSERVED;
        }
        if (a->probe_failed) {
                snprintf(
                        detail, size,
                        "the agent's query to %s could not be sent from the target's netns: %s", a->server,
                        strerror(-a->probe.err));
                return FAULT_EFFECT_UNOBSERVED;
        }
        if (a->timed_out) {
                snprintf(
                        detail, size,
                        "a DNS query to the target's resolver %s:53 from its netns timed out (%d ms; round "
                        "%d), "
                        "while the agent's control query was answered in %.1f ms",
                        a->server, DNS_PROBE_MS, a->answered + 1, a->control.ms);
                return 0;
        }
        if (chance > CHANCE_MAX) {
                snprintf(
                        detail, size,
                        "%s answered %d of %d queries from the target's netns; at probability %.4g%% that "
                        "happens %.0f%% of the time with the fault in force",
                        a->server, a->answered, a->rounds, share, chance * 100);
                return FAULT_EFFECT_UNOBSERVED;
        }
        *ret = false;
        snprintf(
                detail, size,
                "the target's resolver %s answered %d of %d queries from its netns: none dropped", a->server,
                a->answered, a->rounds);
        return 0;
}

int net_effect_dns(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct net_nameservers ns = { 0 };
        struct mh_error e = { 0 };
        char name[256];
        double chance, share = fx->def->net.share ? fault_param(fx, fx->def->net.share)->f : 100;
        *ret = true;
        int r = net_nameservers_of(&fx->target.main, &ns, detail, size);
        if (r == -ESRCH)
                return r;
        if (r < 0)
                return FAULT_EFFECT_UNOBSERVED; /* detail says why */
        if (ns.n == 0) {
                snprintf(detail, size, "the target's /etc/resolv.conf names no nameserver to ask");
                return FAULT_EFFECT_UNOBSERVED;
        }
        struct dns_look a = { .server = ns.addr[0], .name = name_of(fx, name, sizeof(name)) };
        a.rounds = rounds_for(share, &chance);
        if ((r = ns_net_run(&fx->target.main, fn_dns, &a, &e)) < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        return verdict(&a, share, chance, ret, detail, size);
}
