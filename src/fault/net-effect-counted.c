/* The counters of the lease's rules, read in the target's netns: every rule
 * a recipe adds counts the packets it acts on (net-recipe.c), after all of
 * its matches and its probability, so the count is of packets the fault
 * dropped, refused, reset, corrupted or copied. */
#include "net-effect.h"

#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "fault/net-netns.h"
#include "sys/nft-rule.h"
#include "sys/ns.h"

struct count_arg {
        const char *table;
        uint64_t packets;
        size_t tables;
};

static int fn_count(void *arg, struct mh_error *e) {
        static const char *const families[] = { "inet", "ip", "ip6" };
        struct count_arg *a = arg;
        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                uint64_t n = 0;
                struct mh_error ignored = { 0 };
                int found = nft_table_exists(families[i], a->table, e);
                if (found < 0)
                        return found;
                if (!found)
                        continue;
                int r = nft_table_counted(families[i], a->table, &n, &ignored);
                if (r < 0)
                        return mh_error_fail(e, r, "nftables", "%s", ignored.msg);
                a->packets += n, a->tables++;
        }
        return 0;
}

static const char *what_of(enum net_action a) {
        switch (a) {
        case NET_ACTION_DROP:
        case NET_ACTION_FLAP: return "dropped";
        case NET_ACTION_REFUSE: return "refused";
        case NET_ACTION_RESET: return "reset";
        case NET_ACTION_CORRUPT: return "corrupted";
        case NET_ACTION_DUPLICATE: return "copied";
        default: return "queued to the shaper";
        }
}

int net_effect_counted(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        char name[NET_TABLE_MAX];
        struct mh_error e = { 0 };
        net_table_name(fx->lease_id, name);
        struct count_arg a = { .table = name };
        *ret = true;
        int r = ns_net_run(&fx->target.main, fn_count, &a, &e);
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        const char *what = what_of(fx->def->net.action);
        if (a.packets == 0) {
                snprintf(detail, size, "no packets yet: the rules of table %s have %s none", name, what);
                return FAULT_EFFECT_UNOBSERVED;
        }
        snprintf(
                detail, size, "the rules of table %s in the target's netns %s %llu packets", name, what,
                (unsigned long long)a.packets);
        return 0;
}
