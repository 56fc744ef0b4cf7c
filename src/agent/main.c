#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/exit-code.h"
#include "fault/guard.h"
#include "fault/payload.h"
#include "config.h"

/* mayhem-agent serve [--roles ROLES]: see agent.h. */

#define STATE_DIR_ROOT "/var/lib/mayhem-agent"

static void usage(FILE *f) {
        fprintf(f, "Usage: mayhem-agent [--version] [--help] serve [--roles ROLES] [--engine-socket "
                   "[docker:|podman:]PATH]... [--state-dir DIR]\n"
                   "\n"
                   "Applies and undoes faults for the mayhem controller, speaking newline-delimited "
                   "JSON-RPC 2.0\n"
                   "on stdin/stdout (logs on stderr). It never listens on a socket. When stdin closes, on\n"
                   "SIGTERM, or when a lease's TTL passes without lease.extend, it undoes what it holds.\n"
                   "ROLES (comma-separated; default proc,fs): proc, container, cpu, memory, fs, network, "
                   "load, fuzz.\n"
                   "Containers are reached only through the engine sockets given here (default: "
                   "DOCKER_HOST or\n"
                   "/var/run/docker.sock, and /run/podman/podman.sock), never through one a request "
                   "names.\n"
                   "What it changes and must put back (a CPU quota, a device) is written to DIR before the\n"
                   "change (default " STATE_DIR_ROOT " as root, else $XDG_STATE_HOME or\n"
                   "~/.local/state, /mayhem-agent), so a fresh agent can undo it after a crash.\n");
}

/* Where the agent keeps its records unless --state-dir says: root's is
 * shared by every agent on the host, so a fresh one finds a crashed one's. */
static const char *default_state_dir(char *buf, size_t size) {
        const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
        if (geteuid() == 0)
                return STATE_DIR_ROOT;
        if (xdg && *xdg)
                snprintf(buf, size, "%s/mayhem-agent", xdg);
        else if (home && *home)
                snprintf(buf, size, "%s/.local/state/mayhem-agent", home);
        else
                return NULL;
        return buf;
}

static int open_journal(const char *dir, struct agent_options *opt) {
        char buf[4096], msg[512];
        if (!dir)
                dir = default_state_dir(buf, sizeof(buf));
        if (!dir) {
                fprintf(stderr, "error: [usage] no state directory: give --state-dir DIR (no HOME)\n");
                return MH_EXIT_USAGE_ERROR;
        }
        if (agent_journal_open(dir, &opt->journal, msg, sizeof(msg)) < 0) {
                fprintf(stderr, "error: [agent_error] %s\n", msg);
                return MH_EXIT_AGENT_ERROR;
        }
        return 0;
}

static int serve(int argc, char **argv) {
        static struct agent_options opt;
        char host[64] = "local", msg[256];
        const char *roles = AGENT_ROLES_DEFAULT, *state_dir = NULL;
        for (int i = 2; i < argc; i++) {
                const char *socket = NULL;
                if (strcmp(argv[i], "--roles") == 0 && i + 1 < argc)
                        roles = argv[++i];
                else if (strncmp(argv[i], "--roles=", 8) == 0)
                        roles = argv[i] + 8;
                else if (strcmp(argv[i], "--engine-socket") == 0 && i + 1 < argc)
                        socket = argv[++i];
                else if (strncmp(argv[i], "--engine-socket=", 16) == 0)
                        socket = argv[i] + 16;
                else if (strcmp(argv[i], "--state-dir") == 0 && i + 1 < argc)
                        state_dir = argv[++i];
                else if (strncmp(argv[i], "--state-dir=", 12) == 0)
                        state_dir = argv[i] + 12;
                else {
                        fprintf(stderr, "error: [usage] unknown argument '%s' (see 'mayhem-agent --help')\n",
                                argv[i]);
                        return MH_EXIT_USAGE_ERROR;
                }
                if (socket && agent_options_engine_socket(&opt, socket, msg, sizeof(msg)) < 0) {
                        fprintf(stderr, "error: [usage] %s\n", msg);
                        return MH_EXIT_USAGE_ERROR;
                }
        }
        if (agent_capabilities_from_roles(roles, &opt.caps, msg, sizeof(msg)) < 0) {
                fprintf(stderr, "error: [usage] %s\n", msg);
                return MH_EXIT_USAGE_ERROR;
        }
        int r = open_journal(state_dir, &opt);
        if (r != 0)
                return r;
        gethostname(host, sizeof(host) - 1);
        snprintf(opt.agent_id, sizeof(opt.agent_id), "ag-%s-%d", host, (int)getpid());
        opt.in_fd = STDIN_FILENO;
        opt.out_fd = STDOUT_FILENO;
        opt.log = stderr;
        r = agent_serve(&opt);
        if (r == 0) /* else undos may still run on threads that use it: the exit ends them */
                opt.journal = agent_journal_close(opt.journal);
        return r;
}

/* mayhem-agent guard ...: started by the agent itself for a fault the
 * kernel does not drop with its sockets (src/fault/guard.h); not for people. */
static int guard(int argc, char **argv) {
        struct mh_error e = { 0 };
        signal(SIGPIPE, SIG_IGN);
        if (fault_guard_run(argc - 2, argv + 2, &e) < 0) {
                fprintf(stderr, "mayhem-agent guard: COULD NOT UNDO: %s\n", e.msg);
                return e.code == -EINVAL && strcmp(e.id, "usage") == 0 ? MH_EXIT_USAGE_ERROR
                                                                       : MH_EXIT_RECOVERY_FAILURE;
        }
        return 0;
}

/* mayhem-agent payload ...: a fault's own code, started by the agent in the
 * target's cgroups and namespaces (src/fault/payload.h); not for people. */
static int payload(int argc, char **argv) {
        struct mh_error e = { 0 };
        signal(SIGPIPE, SIG_IGN);
        int r = fault_payload_run(argc - 2, argv + 2, &e);
        if (r < 0 && e.msg[0])
                fprintf(stderr, "mayhem-agent payload: %s\n", e.msg);
        return r < 0 ? 1 : 0;
}

int main(int argc, char **argv) {
        if (argc < 2) {
                usage(stderr);
                return MH_EXIT_USAGE_ERROR;
        }
        if (strcmp(argv[1], "--version") == 0) {
                printf("mayhem-agent %s\n", MAYHEM_VERSION);
                return 0;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                usage(stdout);
                return 0;
        }
        if (strcmp(argv[1], "serve") == 0) {
                fault_guard_exe_set("/proc/self/exe");
                return serve(argc, argv);
        }
        if (strcmp(argv[1], "guard") == 0)
                return guard(argc, argv);
        if (strcmp(argv[1], "payload") == 0)
                return payload(argc, argv);
        fprintf(stderr, "error: [usage] unknown command '%s' (see 'mayhem-agent --help')\n", argv[1]);
        return MH_EXIT_USAGE_ERROR;
}
