#include "init-drill.h"

#include <string.h>

#include "catalog/catalog.h"

/* In order of preference: each stops processes for a while and lets them
 * go on where they were, nothing lost. A fault of this build that is not
 * runnable, or is riskier than low, is skipped. */
static const char *const init_safe_faults[] = { "proc.pause", "container.pause" };

#define INIT_CHECK_TIMEOUT  "2s"
#define INIT_WAIT_TIMEOUT_S 30u
#define INIT_TARGETS_MAX    800u /* a step each, with the checks and waits inside the 1000 steps */
#define INIT_PORTS_MAX      100u /* checks per step, and a wait each, well inside the 1000 steps */
#define INIT_NAME_MAX       2048 /* a quoted project-service-n name: 4 bytes per escaped byte */

bool init_yaml_quote(const char *s, char *buf, size_t size) {
        size_t n = 0;
        if (size < 3)
                return false;
        buf[n++] = '"';
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                char esc[8];
                if (*p == '"' || *p == '\\')
                        snprintf(esc, sizeof(esc), "\\%c", *p);
                else if (*p < 0x20 || *p == 0x7f)
                        snprintf(esc, sizeof(esc), "\\x%02x", *p);
                else
                        snprintf(esc, sizeof(esc), "%c", *p);
                size_t len = strlen(esc);
                if (n + len + 2 > size)
                        return false;
                memcpy(buf + n, esc, len);
                n += len;
        }
        buf[n++] = '"';
        buf[n] = '\0';
        return true;
}

/* For comments: a path with a newline would end the comment. */
static void comment_safe(const char *s, char *buf, size_t size) {
        size_t n = 0;
        for (; s[n] && n + 1 < size; n++)
                buf[n] = ((unsigned char)s[n] < 0x20 || s[n] == 0x7f) ? '?' : s[n];
        buf[n] = '\0';
}

static const struct fault_def *safe_fault(void) {
        for (size_t i = 0; i < ELEMENTSOF(init_safe_faults); i++) {
                const struct fault_def *f = catalog_find(init_safe_faults[i]);
                if (f && fault_status_of(f) == FAULT_STATUS_RUNNABLE && f->risk == RISK_LOW &&
                    (f->node_kinds & NK_CTR) && f->max_duration_s >= INIT_FAULT_SECONDS)
                        return f;
        }
        return NULL;
}

/* A published tcp port the host can reach: its address, or loopback for
 * "all addresses". */
static bool port_checkable(const struct topo_port *p) {
        return p->host_port != 0 && strcmp(p->protocol, "tcp") == 0;
}

static const char *port_host(const struct topo_port *p) {
        if (!p->host_ip || strcmp(p->host_ip, "0.0.0.0") == 0 || strcmp(p->host_ip, "") == 0)
                return "127.0.0.1";
        if (strcmp(p->host_ip, "::") == 0)
                return "::1";
        return p->host_ip;
}

struct init_port {
        const struct topo_service *svc;
        const struct topo_port *port;
};

/* The checkable ports, in file order. */
static size_t count_ports(const struct topology *t) {
        size_t n = 0;
        for (size_t s = 0; s < t->n_services; s++)
                for (size_t p = 0; p < t->services[s].n_ports; p++)
                        n += port_checkable(&t->services[s].ports[p]);
        return n;
}

static struct init_port port_at(const struct topology *t, size_t k) {
        for (size_t s = 0; s < t->n_services; s++)
                for (size_t p = 0; p < t->services[s].n_ports; p++)
                        if (port_checkable(&t->services[s].ports[p]) && k-- == 0)
                                return (struct init_port){ &t->services[s], &t->services[s].ports[p] };
        return (struct init_port){ 0 };
}

static void quote(const char *s, char buf[INIT_NAME_MAX]) {
        if (!init_yaml_quote(s, buf, INIT_NAME_MAX))
                snprintf(buf, INIT_NAME_MAX, "\"?\""); /* compose names are at most COMPOSE_NAME_MAX */
}

static void write_probe(FILE *out, const struct init_port *ip) {
        char host[INIT_NAME_MAX];
        quote(port_host(ip->port), host);
        fprintf(out, "{type: tcp, host: %s, port: %u, timeout: %s}", host, (unsigned)ip->port->host_port,
                INIT_CHECK_TIMEOUT);
}

static void write_checks(FILE *out, const struct topology *t, size_t n_ports, const char *when) {
        char svc[INIT_NAME_MAX];
        fprintf(out, "  - check_spec:\n");
        for (size_t k = 0; k < n_ports; k++) {
                struct init_port ip = port_at(t, k);
                quote(ip.svc->name, svc);
                fprintf(out, "      # service %s, published port %u -> %u\n", svc,
                        (unsigned)ip.port->host_port, (unsigned)ip.port->container_port);
                fprintf(out, "      - id: port%zu-%s\n        probe: ", k + 1, when);
                write_probe(out, &ip);
                fprintf(out, "\n");
        }
}

static void write_header(FILE *out, const struct topology *t, const char *compose_shown) {
        char path[512], name[INIT_NAME_MAX], hyp[INIT_NAME_MAX + 128];
        comment_safe(compose_shown, path, sizeof(path));
        fprintf(out,
                "# A starter drill for the stack of %s, written by `mayhem init`.\n"
                "# Check it:  mayhem prepare validate THIS_FILE -c COMPOSE\n"
                "# Run it:    mayhem run THIS_FILE -c COMPOSE --execute\n"
                "# The format: docs/drill-format.md (man 5 mayhem-drill); the faults: `mayhem discover "
                "faults`.\n"
                "apiVersion: mayhem/v1\nkind: drill\n",
                path);
        snprintf(hyp, sizeof(hyp), "%.100s-starter", t->project); /* a drill name has at most 128 */
        quote(hyp, name);
        fprintf(out, "name: %s\n", name);
        fprintf(out,
                "hypothesis: \"every service comes back by itself after its processes are held for %us\"\n",
                INIT_FAULT_SECONDS);
}

static void write_config(FILE *out, size_t n_targets, size_t n_ports) {
        /* Holds add up (one lane after another), every wait may take its whole
         * timeout; a minute to spare. */
        size_t timeout = n_targets * INIT_FAULT_SECONDS + n_ports * INIT_WAIT_TIMEOUT_S + 60;
        if (timeout < 300)
                timeout = 300;
        fprintf(out,
                "# Safety: the planner refuses any fault riskier than risk_ceiling; past the\n"
                "# timeout every fault is undone and the run stops.\n"
                "config:\n  risk_ceiling: low\n  timeout: %zus\n  on_failure: abort_and_recover\n",
                timeout);
}

/* A service gets a fault when it has a container and pausing it stays
 * inside the blast radius: it and the services that depend on it, at most
 * max_services_pct of the stack (one service is always allowed), as the
 * planner's gate counts them (plan-blast.c). ret_hit: the services hit. */
static bool service_targeted(const struct topology *t, size_t s, double max_services_pct, size_t *ret_hit) {
        size_t hit = 1 + topology_dependents(t, s, NULL, 0);
        *ret_hit = hit;
        if (t->services[s].replicas == 0)
                return false;
        return hit <= 1 || 100.0 * (double)hit / (double)t->n_services <= max_services_pct;
}

/* The container a service's fault goes to: its first replica. */
static void write_targets(FILE *out, const struct topology *t, const struct fault_def *f, double pct) {
        char ctr[INIT_NAME_MAX], svc[INIT_NAME_MAX];
        fprintf(out,
                "# One fault per service, on its first container: %s for %us (%s risk,\n"
                "# undone and its undo verified by mayhem). Add or swap faults here.\n"
                "containers:\n",
                f->id, INIT_FAULT_SECONDS, risk_to_string(f->risk));
        for (size_t s = 0; s < t->n_services; s++) {
                const struct topo_service *sv = &t->services[s];
                size_t hit;
                quote(sv->name, svc);
                if (sv->replicas == 0) {
                        fprintf(out, "  # service %s has no container (0 replicas): left out\n", svc);
                        continue;
                }
                if (!service_targeted(t, s, pct, &hit)) {
                        fprintf(out,
                                "  # service %s left out: with the %zu service(s) that depend on it, a "
                                "fault\n"
                                "  # there hits %.1f%% of the stack, above blast_radius.max_services_pct "
                                "%g\n",
                                svc, hit - 1, 100.0 * (double)hit / (double)t->n_services, pct);
                        continue;
                }
                quote(t->containers[sv->first_container].name, ctr);
                fprintf(out, "  %s: # service %s\n    faults:\n      - fault: %s\n        duration: %us\n",
                        ctr, svc, f->id, INIT_FAULT_SECONDS);
        }
}

static void write_execution(FILE *out, const struct topology *t, size_t n_ports, double pct) {
        char ctr[INIT_NAME_MAX];
        bool first = true;
        size_t hit;
        fprintf(out, "# The steps, in order.\nexecution:\n");
        if (n_ports > 0) {
                fprintf(out, "  # Before any fault: every published port answers.\n");
                write_checks(out, t, n_ports, "before");
        }
        for (size_t s = 0; s < t->n_services; s++) {
                if (!service_targeted(t, s, pct, &hit))
                        continue;
                if (first)
                        fprintf(out, "  # The faults, one service per step (the blast radius counts a "
                                     "step's services).\n");
                quote(t->containers[t->services[s].first_container].name, ctr);
                fprintf(out, "  - sequential: [%s]\n", ctr);
                first = false;
        }
        for (size_t k = 0; k < n_ports; k++) {
                struct init_port ip = port_at(t, k);
                if (k == 0)
                        fprintf(out, "  # Give each port up to %us to answer again.\n", INIT_WAIT_TIMEOUT_S);
                fprintf(out, "  - wait:\n      until_check_passes: ");
                write_probe(out, &ip);
                fprintf(out, "\n      timeout: %us\n", INIT_WAIT_TIMEOUT_S);
        }
        if (n_ports > 0) {
                fprintf(out, "  # After the faults: every published port answers again.\n");
                write_checks(out, t, n_ports, "after");
        }
}

static void write_success(FILE *out, size_t n_ports) {
        if (n_ports == 0) {
                fprintf(out, "# No published tcp port to check from the host, so no success criteria:\n"
                             "# add checks (check_spec, docs/drill-format.md#check_spec) and criteria on "
                             "them.\n");
                return;
        }
        fprintf(out, "# The verdict: every check passed (docs/drill-format.md#success).\nsuccess:\n"
                     "  require_all: true\n  criteria:\n");
        for (size_t k = 0; k < n_ports; k++)
                fprintf(out,
                        "    - {type: boolean, source_id: port%zu-before}\n"
                        "    - {type: boolean, source_id: port%zu-after}\n",
                        k + 1, k + 1);
}

int init_drill_write(
        FILE *out, const struct topology *t, const char *compose_shown, double max_services_pct,
        struct mh_error *reterr) {
        const struct fault_def *f = safe_fault();
        size_t n_targets = 0, n_ports = count_ports(t), hit;
        for (size_t s = 0; s < t->n_services; s++)
                n_targets += service_targeted(t, s, max_services_pct, &hit);
        if (n_targets > INIT_TARGETS_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_VALIDATION_ERROR, "too_many_targets",
                        "%s has %zu services with containers; a drill names at most %u targets",
                        compose_shown, n_targets, INIT_TARGETS_MAX);
        if (n_ports > INIT_PORTS_MAX)
                n_ports = INIT_PORTS_MAX; /* the first ones, in file order */
        if (n_targets == 0)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "no_targets",
                        "%s has no service with a container where a fault stays inside the blast radius "
                        "(max_services_pct %g)",
                        compose_shown, max_services_pct);
        if (!f)
                return mh_error_set(
                        reterr, -ENOTSUP, MH_EXIT_GENERAL_FAILURE, "no_safe_fault",
                        "this build runs none of the faults a starter drill uses");
        write_header(out, t, compose_shown);
        write_config(out, n_targets, n_ports);
        write_targets(out, t, f, max_services_pct);
        write_execution(out, t, n_ports, max_services_pct);
        write_success(out, n_ports);
        if (ferror(out))
                return mh_error_set(reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "io", "cannot write the drill");
        return 0;
}
