#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "basic/exit-code.h"
#include "fault/guard.h"
#include "config.h"

/* mayhem-agent serve [--roles ROLES]: see agent.h. */

static void usage(FILE *f) {
        fprintf(f, "Usage: mayhem-agent [--version] [--help] serve [--roles ROLES] [--engine-socket "
                   "[docker:|podman:]PATH]...\n"
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
                   "names.\n");
}

static int serve(int argc, char **argv) {
        static struct agent_options opt;
        char host[64] = "local", msg[256];
        const char *roles = AGENT_ROLES_DEFAULT;
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
        gethostname(host, sizeof(host) - 1);
        snprintf(opt.agent_id, sizeof(opt.agent_id), "ag-%s-%d", host, (int)getpid());
        opt.in_fd = STDIN_FILENO;
        opt.out_fd = STDOUT_FILENO;
        opt.log = stderr;
        return agent_serve(&opt);
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
        fprintf(stderr, "error: [usage] unknown command '%s' (see 'mayhem-agent --help')\n", argv[1]);
        return MH_EXIT_USAGE_ERROR;
}
