#include <stdio.h>
#include <string.h>

#include "basic/exit-code.h"
#include "config.h"

/* The fault-injection agent. Its JSON-RPC service (`serve`) arrives with the
 * agent issue; until then this binary only answers --version and --help, and
 * says so instead of pretending to serve. */

static void usage(FILE *f) {
        fprintf(f,
                "Usage: mayhem-agent [--version] [--help] serve [--roles ROLES]\n"
                "\n"
                "The agent runs faults for the mayhem controller, speaking newline-delimited JSON-RPC 2.0\n"
                "on stdin/stdout. It never listens on a socket.\n");
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
                fprintf(stderr,
                        "error: [agent_error] mayhem-agent %s cannot serve yet: the JSON-RPC service is "
                        "not implemented in this version\n",
                        MAYHEM_VERSION);
                return MH_EXIT_AGENT_ERROR;
        }
        fprintf(stderr, "error: [usage] unknown command '%s' (see 'mayhem-agent --help')\n", argv[1]);
        return MH_EXIT_USAGE_ERROR;
}
