/* The host checks of `mayhem doctor`, from the "host" facts the agent
 * reports (capabilities.query {"host": true}): the privileges it holds, the
 * cgroup hierarchies and controllers, time namespaces, sch_htb. What a
 * missing one disables comes from the catalog's needs. */

#include "doctor.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

/* The capabilities the agent's mechanisms use (capability(7) numbers), and
 * the catalog needs that go without them. */
static const struct {
        const char *name;
        unsigned bit;
        unsigned needs;
} needed_caps[] = {
        { "CAP_SYS_ADMIN", 21, NEED_NET_ADMIN | NEED_FS | NEED_PROCESS | NEED_CGROUP }, /* setns */
        { "CAP_NET_ADMIN", 12, NEED_NET_ADMIN },
        { "CAP_KILL", 5, NEED_PROCESS },
        { "CAP_SYS_PTRACE", 19, NEED_PROCESS | NEED_FS }, /* /proc/PID/ns and pidfds of other users */
        { "CAP_DAC_OVERRIDE", 1, NEED_CGROUP | NEED_FS },
};

static void check_privileges(struct doctor_report *r, const json_t *host, const char *where) {
        json_int_t euid = json_integer_value(json_object_get(host, "euid"));
        const char *hex = json_string_value(json_object_get(host, "cap_eff"));
        uint64_t eff = hex ? strtoull(hex, NULL, 16) : 0;
        char missing[DOCTOR_TEXT_MAX] = "";
        unsigned needs = 0;
        if (!json_is_true(json_object_get(host, "caps_known"))) {
                struct doctor_check *c = doctor_add(r, DOCTOR_WARN, "privileges");
                doctor_detail(
                        c,
                        "the agent on %s runs as uid %" JSON_INTEGER_FORMAT
                        "; its capabilities could not be read",
                        where, euid);
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(needed_caps); i++)
                if (!(eff & (UINT64_C(1) << needed_caps[i].bit))) {
                        doctor_append(missing, ", ", "%s", needed_caps[i].name);
                        needs |= needed_caps[i].needs;
                }
        struct doctor_check *c = doctor_add(r, needs ? DOCTOR_MISSING : DOCTOR_OK, "privileges");
        doctor_detail(
                c, "the agent on %s runs as %s (uid %" JSON_INTEGER_FORMAT "), effective capabilities %s",
                where, euid == 0 ? "root" : "a user", euid, hex ? hex : "?");
        if (!needs)
                return;
        char faults[DOCTOR_TEXT_MAX];
        doctor_append(c->detail, "; ", "without %s", missing);
        if (doctor_faults_needing(needs, faults) > 0) {
                doctor_disables(c, "%s", faults);
                c->blocking = true;
        }
        doctor_fix(c, "run mayhem as root (sudo), or grant the agent %s", missing);
}

static bool has_word(const json_t *a, const char *w) {
        size_t i;
        const json_t *v;
        json_array_foreach(
                a, i, v) if (json_is_string(v) && strcmp(json_string_value(v), w) == 0) return true;
        return false;
}

static void check_cgroups(struct doctor_report *r, const json_t *host, const char *where) {
        static const char *const wanted[] = { "cpu", "memory", "pids", "freezer" };
        const json_t *cg = json_object_get(host, "cgroup"), *v1 = json_object_get(cg, "v1"),
                     *v2c = json_object_get(cg, "v2_controllers");
        bool v2 = json_is_true(json_object_get(cg, "v2"));
        char found[DOCTOR_TEXT_MAX] = "", absent[DOCTOR_TEXT_MAX] = "";
        size_t n_found = 0, n_absent = 0;
        for (size_t i = 0; i < ELEMENTSOF(wanted); i++) {
                /* cgroup v2 has no freezer controller: cgroup.freeze is in every group */
                bool in_v2 = v2 && (has_word(v2c, wanted[i]) || strcmp(wanted[i], "freezer") == 0);
                bool in_v1 = has_word(v1, wanted[i]);
                if (in_v1 || in_v2) {
                        doctor_append(found, ", ", "%s (%s)", wanted[i], in_v1 ? "v1" : "v2");
                        n_found++;
                } else {
                        doctor_append(absent, ", ", "%s", wanted[i]);
                        n_absent++;
                }
        }
        const char *version = json_array_size(v1) > 0
                                      ? (v2 ? "v1 controllers with a v2 hierarchy beside them" : "v1")
                              : v2 ? "v2"
                                   : "none mounted";
        struct doctor_check *c = doctor_add(
                r,
                n_absent == 0  ? DOCTOR_OK
                : n_found == 0 ? DOCTOR_MISSING
                               : DOCTOR_WARN,
                "cgroups");
        doctor_detail(c, "on %s: %s; controllers %s", where, version, n_found ? found : "none");
        if (n_absent == 0)
                return;
        char faults[DOCTOR_TEXT_MAX];
        doctor_append(c->detail, "; ", "absent: %s", absent);
        doctor_faults_needing(NEED_CGROUP, faults);
        doctor_disables(
                c, "%s: %s",
                n_found == 0 ? "the cgroup faults"
                             : "those of the cgroup faults that write the absent controllers' knobs",
                faults);
        c->blocking = n_found == 0;
        doctor_fix(
                c, "mount the controllers (cgroup v2: enable them in the parent's cgroup.subtree_control)");
}

static void check_time_ns(struct doctor_report *r, const json_t *host, const char *where) {
        bool present = json_is_true(json_object_get(host, "time_ns"));
        struct doctor_check *c = doctor_add(r, present ? DOCTOR_OK : DOCTOR_WARN, "time namespaces");
        doctor_detail(
                c, "/proc/self/ns/time %s on %s (Linux >= 5.6, CONFIG_TIME_NS)",
                present ? "exists" : "is absent", where);
        if (!present) {
                doctor_disables(
                        c, "nothing in this build: no fault uses time namespaces (clock.skew is refused)");
                doctor_fix(c, "a kernel >= 5.6 built with CONFIG_TIME_NS");
        }
}

static void check_htb(struct doctor_report *r, const json_t *host, const char *where) {
        const json_t *htb = json_object_get(host, "htb");
        struct doctor_check *c = doctor_add(r, json_is_true(htb) ? DOCTOR_OK : DOCTOR_WARN, "kernel htb");
        doctor_detail(
                c, "sch_htb qdisc %s on %s",
                json_is_true(htb)    ? "present"
                : json_is_false(htb) ? "absent"
                                     : "could not be probed",
                where);
        if (!json_is_true(htb)) {
                doctor_disables(c, "nothing in this build: net.bandwidth uses tbf or the NFQUEUE shaper");
                doctor_fix(c, "modprobe sch_htb");
        }
}

void doctor_check_host(struct doctor_report *r, const json_t *caps, const char *where) {
        const json_t *host = json_object_get(caps, "host");
        if (!json_is_object(host)) {
                struct doctor_check *c = doctor_add(r, DOCTOR_WARN, "host facts");
                doctor_detail(c, "the agent on %s did not report its host (an older mayhem-agent?)", where);
                doctor_fix(c, "install this version's mayhem-agent there");
                return;
        }
        check_privileges(r, host, where);
        check_cgroups(r, host, where);
        check_time_ns(r, host, where);
        check_htb(r, host, where);
}
