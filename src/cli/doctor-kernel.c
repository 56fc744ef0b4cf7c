/* The kernel checks of `mayhem doctor`: each feature the agent probes
 * (KERNEL_FEATURES, the same list the impact gate reads), and what its
 * absence changes, decided by the impact gate itself: every runnable network
 * fault, in its default direction and in ingress, delivered on this kernel
 * and on this kernel with the feature flipped. */

#include "doctor.h"

#include <stddef.h>
#include <string.h>

#include "plan/impact.h"

struct feature_text {
        const char *name; /* the KERNEL_FEATURES key */
        size_t offset;    /* of its bool in struct impact_kernel */
        const char *what;
        const char *fix;
};

#define FEATURE(f, w, x)                                                                                    \
        { #f, offsetof(struct impact_kernel, f), w, x }
static const struct feature_text features[] = {
        FEATURE(nft_owner, "nftables owner tables (Linux >= 5.12)",
                "a kernel >= 5.12 with nf_tables (modprobe nf_tables)"),
        FEATURE(netem, "sch_netem qdisc",
                "modprobe sch_netem (Debian/Ubuntu cloud kernels: install linux-modules-extra-$(uname -r))"),
        FEATURE(tbf, "sch_tbf qdisc", "modprobe sch_tbf"),
        FEATURE(ifb, "IFB devices with ingress qdisc, u32 and mirred (ingress shaping)",
                "modprobe ifb sch_ingress cls_u32 act_mirred"),
        FEATURE(xt_nfqueue, "NFQUEUE through nft_compat's xt target (the shaper's feed)",
                "modprobe nft_compat xt_NFQUEUE nfnetlink_queue"),
        FEATURE(nft_queue, "nft queue expression (the shaper's feed)", "modprobe nft_queue nfnetlink_queue"),
        FEATURE(netdev_egress, "netdev egress hook (Linux >= 5.16; duplicating outgoing packets)",
                "a kernel >= 5.16"),
};
#undef FEATURE
#define ONE(f) +1
_Static_assert(ELEMENTSOF(features) == 0 KERNEL_FEATURES(ONE), "a text for every kernel feature");
#undef ONE

static bool *feature_of(struct impact_kernel *k, const struct feature_text *t) {
        return (bool *)((char *)k + t->offset);
}

/* The delivery's name, or "bypassed" when the gate refuses the fault. */
static const char *delivery(const struct impact_request *rq, const struct impact_kernel *k) {
        enum net_delivery d;
        char why[256];
        int r = impact_net_delivery(rq, k, &d, why, sizeof(why));
        if (r <= 0)
                return r < 0 ? "bypassed" : "none";
        switch (d) {
        case NET_DELIVERY_SHAPER: return "the NFQUEUE shaper";
        case NET_DELIVERY_NFT: return "nftables rules";
        default: return net_delivery_to_string(d);
        }
}

struct changes {
        char fallbacks[DOCTOR_TEXT_MAX]; /* "net.latency: shaper instead of netem" */
        char bypassed[DOCTOR_TEXT_MAX];  /* faults the gate refuses without the feature */
        size_t n_fallbacks, n_bypassed;
};

/* What the faults get with the feature as it is (k) and flipped; present
 * says which of the two is this kernel. */
static void compare(
        const struct impact_kernel *k, const struct feature_text *t, bool present, struct changes *ret) {
        struct impact_kernel other = *k;
        *feature_of(&other, t) = !present;
        const struct impact_kernel *without = present ? &other : k, *with = present ? k : &other;
        *ret = (struct changes){ 0 };
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                if (fault_status_of(f) != FAULT_STATUS_RUNNABLE || f->net.action == NET_ACTION_NONE)
                        continue;
                const struct param_spec *dir = fault_param_find(f, "direction");
                const char *dirs[2] = { dir && dir->has_default ? dir->def.s : NULL, NULL };
                if (dir && (!dirs[0] || strcmp(dirs[0], "ingress") != 0))
                        dirs[1] = "ingress";
                for (size_t j = 0; j < 2; j++) {
                        if (j == 1 && !dirs[1])
                                break;
                        struct impact_request rq = { .def = f, .direction = dirs[j] };
                        const char *a = delivery(&rq, with), *b = delivery(&rq, without);
                        if (strcmp(a, b) == 0)
                                continue;
                        const char *label = dirs[j] ? dirs[j] : "";
                        if (strcmp(b, "bypassed") == 0) {
                                doctor_append(
                                        ret->bypassed, ", ", "%s%s%s", f->id, *label ? " " : "", label);
                                ret->n_bypassed++;
                        } else {
                                doctor_append(
                                        ret->fallbacks, "; ", "%s%s%s: %s instead of %s", f->id,
                                        *label ? " " : "", label, b, a);
                                ret->n_fallbacks++;
                        }
                }
        }
}

static void check_feature(
        struct doctor_report *r, const struct impact_kernel *k, const struct feature_text *t,
        const char *where) {
        bool present = *feature_of((struct impact_kernel *)k, t);
        struct changes ch;
        compare(k, t, present, &ch);
        enum doctor_status st = present                          ? DOCTOR_OK
                                : ch.n_bypassed + ch.n_fallbacks ? DOCTOR_MISSING
                                                                 : DOCTOR_WARN;
        struct doctor_check *c = doctor_add(r, st, "kernel %s", t->name);
        if (present) {
                doctor_detail(c, "%s: present on %s", t->what, where);
                if (ch.n_bypassed)
                        doctor_append(c->detail, "; ", "needed by %s", ch.bypassed);
                if (ch.n_fallbacks)
                        doctor_append(c->detail, "; ", "without it %s", ch.fallbacks);
                return;
        }
        doctor_detail(c, "%s: absent on %s", t->what, where);
        if (ch.n_fallbacks)
                doctor_append(c->detail, "; ", "so %s", ch.fallbacks);
        if (ch.n_bypassed) {
                doctor_disables(c, "%s (the impact gate bypasses them)", ch.bypassed);
                c->blocking = true;
        } else if (ch.n_fallbacks)
                doctor_disables(c, "nothing: every fault it would deliver falls back (above)");
        else
                doctor_disables(c, "nothing on this kernel (another feature serves the same faults)");
        doctor_fix(c, "%s", t->fix);
}

void doctor_check_kernel(struct doctor_report *r, const json_t *caps, const char *where) {
        struct impact_kernel k;
        impact_kernel_from_json(json_object_get(caps, "kernel"), &k);
        if (!k.known) {
                char faults[DOCTOR_TEXT_MAX] = "";
                for (size_t i = 0; i < catalog_size(); i++)
                        if (fault_status_of(catalog_at(i)) == FAULT_STATUS_RUNNABLE &&
                            catalog_at(i)->net.action != NET_ACTION_NONE)
                                doctor_append(faults, ", ", "%s", catalog_at(i)->id);
                struct doctor_check *c = doctor_add(r, DOCTOR_MISSING, "kernel features");
                c->blocking = true;
                doctor_detail(
                        c,
                        "the agent on %s could not probe the kernel (it needs CAP_SYS_ADMIN and "
                        "CAP_NET_ADMIN)",
                        where);
                doctor_disables(c, "%s (the impact gate bypasses them)", faults);
                doctor_fix(c, "run mayhem (and its agent) as root");
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(features); i++)
                check_feature(r, &k, &features[i], where);
}
