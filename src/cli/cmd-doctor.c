/* `mayhem doctor [--json]`: what this machine (and an --agent host) gives
 * mayhem, one measured check per line; docs/doctor.md. */

#include "cli-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "catalog/catalog.h"
#include "doctor-fidelity.h"
#include "doctor.h"
#include "engine/engine.h"
#include "evidence/evidence.h"

static const struct cli_opt doctor_opts[] = {
        { "json", 0, NULL, "machine-readable output: an array of {check, status, detail, disables, fix}" },
        { "agent", 0, "ssh://USER@HOST[:PORT]",
          "check mayhem-agent on that host over ssh instead of a local one, as run --agent does" },
        { "ssh-config", 0, "FILE", "ssh client configuration for --agent (ssh -F FILE)" },
        { "remote-agent", 0, "PATH", "mayhem-agent's path on the --agent host" },
        { "fidelity", 0, NULL,
          "hold net.latency, net.packet_loss, proc.pause and cpu.saturate on a throwaway container; print "
          "requested vs achieved" },
        CLI_OPT_HELP,
        { 0 },
};

/* Both engines at their default sockets (DOCKER_HOST for docker), as
 * engine_open() finds them for a run; the selected one (-p, runtime) is
 * needed, the other is only reported. */
static void check_engine(struct doctor_report *r, enum engine_kind kind, bool selected) {
        _cleanup_(engine_freep) struct engine *e = NULL;
        struct mh_error err = { 0 };
        const char *name = engine_kind_to_string(kind);
        if (engine_open(kind, NULL, &e, &err) < 0) {
                struct doctor_check *c =
                        doctor_add(r, selected ? DOCTOR_MISSING : DOCTOR_WARN, "engine %s", name);
                char faults[DOCTOR_TEXT_MAX];
                doctor_detail(c, "%s", err.msg);
                doctor_faults_needing(NEED_ENGINE, faults);
                doctor_disables(
                        c, "%s: discovery and every drill on %s containers (%s)",
                        selected ? "the selected engine" : "only drills with --engine ", name, faults);
                c->blocking = selected;
                doctor_fix(
                        c, "start %s (systemctl start %s)%s", name,
                        kind == ENGINE_DOCKER ? "docker" : "podman.socket",
                        kind == ENGINE_DOCKER ? ", or point DOCKER_HOST at its unix socket" : "");
                return;
        }
        struct doctor_check *c = doctor_add(r, DOCTOR_OK, "engine %s", name);
        doctor_detail(
                c, "%s %s answers at %s, API %s%s%s", engine_server_name(e), engine_server_version(e),
                engine_socket(e), engine_api_version(e), selected ? " (selected)" : "",
                engine_is_rootless(e) ? ", rootless" : ", not rootless");
}

/* The faults the agent says it cannot apply on that engine (a rootless
 * engine's cgroups), as a run would be told. */
static void check_rootless(struct doctor_report *r, struct agent_client *agent, enum engine_kind kind) {
        json_t *caps = NULL;
        if (agent_client_call(
                    agent, "capabilities.query", json_pack("{s:s}", "engine", engine_kind_to_string(kind)),
                    30000, &caps, NULL) < 0)
                return;
        const json_t *un = json_object_get(caps, "unavailable");
        if (json_object_size(un) > 0) {
                char faults[DOCTOR_TEXT_MAX] = "", why[DOCTOR_TEXT_MAX] = "";
                const char *id;
                const json_t *v;
                json_object_foreach((json_t *)un, id, v) {
                        doctor_append(faults, ", ", "%s", id);
                        snprintf(why, sizeof(why), "%s", json_string_value(v));
                }
                struct doctor_check *c =
                        doctor_add(r, DOCTOR_WARN, "rootless %s", engine_kind_to_string(kind));
                doctor_detail(c, "%s", why);
                doctor_disables(c, "%s", faults);
                doctor_fix(c, "use a rootful engine for cgroup faults");
        }
        json_decref(caps);
}

/* An existing database is opened read-only (no migration) and its file and
 * directory tested for write access; a new one, by creating and removing a
 * temporary file where it would be. */
static void check_journal(struct doctor_report *r, const char *path) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        const char *d = dirname(dir);
        struct mh_error err = { 0 };
        int r_open = 0;
        if (access(path, F_OK) == 0) {
                _cleanup_(evidence_closep) struct evidence *ev = NULL;
                r_open = evidence_open_read(path, &ev, &err);
                if (r_open >= 0 && (access(path, W_OK) < 0 || access(d, W_OK) < 0)) {
                        r_open = -errno;
                        snprintf(err.msg, sizeof(err.msg), "%s: %s", path, strerror(errno));
                }
        } else {
                _cleanup_close_ int fd = open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
                if (fd < 0) {
                        r_open = -errno;
                        snprintf(
                                err.msg, sizeof(err.msg), "cannot create files in %s: %s", d,
                                strerror(errno));
                }
        }
        struct doctor_check *c = doctor_add(r, r_open < 0 ? DOCTOR_MISSING : DOCTOR_OK, "evidence journal");
        if (r_open >= 0) {
                doctor_detail(
                        c, "%s is writable%s", path, access(path, F_OK) == 0 ? "" : " (it will be created)");
                return;
        }
        c->blocking = true;
        doctor_detail(c, "%s", err.msg);
        doctor_disables(c, "every run: a fault is journalled before it is sent");
        doctor_fix(c, "pass --db PATH in a writable directory (or storage.path in mayhem.yaml)");
}

static void all_roles(char *buf, size_t size) {
        const char *ids[256];
        size_t n = catalog_ids(ids, ELEMENTSOF(ids));
        agent_roles_for(ids, n, true, buf, size);
}

/* The agent a run would start (local, or --agent over ssh) and its facts. */
static struct agent_client *check_agent(
        struct doctor_report *r, struct cli_ctx *ctx, const struct cli_args *args, json_t **ret_caps) {
        struct agent_client *agent = NULL;
        struct agent_client_options o = { .ssh_target = cli_arg(ctx, args, "agent"),
                                          .remote_agent = cli_arg(ctx, args, "remote-agent"),
                                          .run_id = "doctor" };
        char roles[256];
        struct mh_error err = { 0 };
        json_t *hello = NULL;
        all_roles(roles, sizeof(roles));
        o.roles = roles;
        if (cli_arg(ctx, args, "ssh-config")) {
                o.ssh_args[0] = "-F";
                o.ssh_args[1] = cli_arg(ctx, args, "ssh-config");
        }
        const char *where = o.ssh_target ? o.ssh_target : "this host";
        if (agent_client_start(&o, &agent, &err) < 0 ||
            agent_client_call(agent, "handshake", json_object(), 30000, &hello, &err) < 0 ||
            agent_client_call(
                    agent, "capabilities.query", json_pack("{s:b}", "host", 1), 60000, ret_caps, &err) < 0) {
                struct doctor_check *c = doctor_add(r, DOCTOR_MISSING, "agent %s", where);
                c->blocking = true;
                doctor_detail(c, "%s", err.msg[0] ? err.msg : "the agent did not answer");
                doctor_disables(c, "every fault: faults are applied by mayhem-agent");
                doctor_fix(
                        c,
                        o.ssh_target
                                ? "check ssh %s works without a password and mayhem-agent is in its PATH "
                                  "(--remote-agent)"
                                : "install mayhem-agent beside mayhem or in PATH (or set MAYHEM_AGENT)%s",
                        o.ssh_target ? o.ssh_target : "");
                json_decref(hello);
                agent_client_stop(agent);
                return NULL;
        }
        struct doctor_check *c = doctor_add(r, DOCTOR_OK, "agent %s", where);
        doctor_detail(
                c, "mayhem-agent %s answers (protocol %s, pid %d), roles %s",
                json_string_value(json_object_get(hello, "agent_version")),
                json_string_value(json_object_get(hello, "protocol")), (int)agent_client_pid(agent), roles);
        json_decref(hello);
        return agent;
}

static void print_text(struct cli_ctx *ctx, const struct doctor_report *r) {
        for (size_t i = 0; i < r->n; i++) {
                const struct doctor_check *c = &r->checks[i];
                fprintf(ctx->out, "%-7s %s: %s", doctor_status_to_string(c->status), c->check, c->detail);
                if (c->disables[0])
                        fprintf(ctx->out, " | disables: %s", c->disables);
                if (c->fix[0])
                        fprintf(ctx->out, " | fix: %s", c->fix);
                fputc('\n', ctx->out);
        }
}

/* One line per fault as soon as it is measured (a run takes about a
 * minute); the header before the first. */
struct fidelity_printer {
        struct cli_ctx *ctx;
        bool header_done;
};

/* s, then spaces to width characters (not bytes: "±" is two) and one more. */
static void cell(FILE *out, const char *s, int width) {
        int chars = 0;
        s = s ? s : "";
        for (const char *c = s; *c; c++)
                chars += ((unsigned char)*c & 0xc0) != 0x80;
        fprintf(out, "%s%*s", s, width > chars ? width - chars + 1 : 1, "");
}

static void print_fidelity_row(const char *where, const json_t *row, void *userdata) {
        static const int widths[] = { 22, 22, 42, 9, 24 };
        struct fidelity_printer *p = userdata;
        FILE *out = p->ctx->out;
        const char *error = json_string_value(json_object_get(row, "error"));
        const char *cells[] = { json_string_value(json_object_get(row, "fault")),
                                json_string_value(json_object_get(row, "requested")),
                                error ? error : json_string_value(json_object_get(row, "achieved")),
                                json_string_value(json_object_get(row, "delivery")),
                                json_string_value(json_object_get(row, "tolerance")) };
        static const char *const titles[] = { "fault", "requested", "achieved", "delivery", "tolerance" };
        if (!p->header_done) {
                fprintf(out, "fidelity on %s, each fault through mayhem run:\n", where);
                for (size_t i = 0; i < ELEMENTSOF(titles); i++)
                        cell(out, titles[i], widths[i]);
                fputs("within\n", out);
                p->header_done = true;
        }
        for (size_t i = 0; i < ELEMENTSOF(cells); i++)
                cell(out, cells[i], widths[i]);
        if (error)
                fputs("NO\n", out);
        else
                fprintf(out, "%s (run exit %d)\n",
                        !json_is_true(json_object_get(row, "measured")) ? "n/a"
                        : json_is_true(json_object_get(row, "within"))  ? "yes"
                                                                        : "NO",
                        (int)json_integer_value(json_object_get(row, "run_exit")));
        fflush(out);
}

static int run_fidelity(struct cli_ctx *ctx, bool json, struct mh_error *reterr) {
        json_t *rows = NULL, *row;
        char where[256];
        size_t i, outside = 0;
        struct fidelity_printer printer = { .ctx = ctx };
        int r = doctor_fidelity(
                ctx->podman ? ENGINE_PODMAN : ENGINE_DOCKER, json ? NULL : print_fidelity_row, &printer,
                &rows, where, sizeof(where), reterr);
        if (r < 0)
                return r;
        /* a row that could not run (error) is a miss; one not measurable here is not */
        json_array_foreach(rows, i, row) outside +=
                json_object_get(row, "error") || (json_is_true(json_object_get(row, "measured")) &&
                                                  !json_is_true(json_object_get(row, "within")));
        if (json)
                r = cli_print_json(ctx, rows, reterr); /* takes rows */
        else
                json_decref(rows);
        return r < 0 ? r : outside ? MH_EXIT_GENERAL_FAILURE : 0;
}

static int run_doctor(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        static struct doctor_report report; /* large: not on the stack */
        struct doctor_report *r = &report;
        json_t *caps = NULL;
        if (cli_arg(ctx, args, "fidelity"))
                return run_fidelity(
                        ctx, ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"), reterr);
        r->n = 0;
        check_engine(r, ENGINE_DOCKER, !ctx->podman);
        check_engine(r, ENGINE_PODMAN, ctx->podman);
        struct agent_client *agent = check_agent(r, ctx, args, &caps);
        const char *where = cli_arg(ctx, args, "agent") ? cli_arg(ctx, args, "agent") : "this host";
        if (agent) {
                doctor_check_host(r, caps, where);
                doctor_check_kernel(r, caps, where);
                check_rootless(r, agent, ctx->podman ? ENGINE_PODMAN : ENGINE_DOCKER);
                agent_client_stop(agent);
        }
        json_decref(caps);
        check_journal(r, ctx->db_path);
        int code = doctor_report_blocking(r) ? MH_EXIT_CONFIG_ERROR : 0;
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json")) {
                int x = cli_print_json(ctx, doctor_report_json(r), reterr);
                return x < 0 ? x : code;
        }
        print_text(ctx, r);
        return code;
}

const struct cli_command cli_doctor = {
        .name = "doctor",
        .summary = "check what this machine gives mayhem: engines, privileges, cgroups, kernel features",
        .usage = "[--json] [--agent ssh://USER@HOST] [--fidelity]",
        .help = "One line per check: ok, warn or missing, what it is, what its absence disables and how\n"
                "to fix it, each measured the way mayhem uses it (the engine client, the agent's own\n"
                "probes, the impact gate, the evidence store). Touches nothing.\n"
                "Exit 0 when nothing missing disables a fault or a run, 3 when something does\n"
                "(docs/doctor.md). --fidelity holds each measured fault for a few seconds on a\n"
                "throwaway container (mayhem run, the real undo and verify) and prints requested vs\n"
                "achieved: exit 0 when all are within tolerance, 1 when one is not, 3 when it cannot run.",
        .opts = doctor_opts,
        .run = run_doctor,
};
