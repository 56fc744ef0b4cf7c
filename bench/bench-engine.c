/* Pause + unpause of a running container, side by side in one run: through
 * mayhem's engine client (HTTP over the unix socket) and through the docker
 * CLI (`docker pause` then `docker unpause`, one process each). Also one
 * inspect each way. Rounds alternate so machine noise hits both alike.
 *
 * usage: bench-engine [CONTAINER] [ROUNDS]   (defaults demo-api, 20; the
 * container must be running: tools/demo-stack up) */

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/stats.h"
#include "basic/clock.h"
#include "engine/engine.h"

#define ROUNDS_MAX 200

static int docker(const char *verb, const char *container) {
        int status = 0;
        pid_t pid = fork();
        if (pid == 0) {
                if (!freopen("/dev/null", "w", stdout))
                        _exit(127);
                execlp("docker", "docker", verb, container, (char *)NULL);
                _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -1;
        return 0;
}

static double median(double *v, int n) {
        doubles_sort(v, (size_t)n);
        return sorted_median(v, (size_t)n);
}

static void fail(const char *what, const struct mh_error *e) {
        fprintf(stderr, "bench-engine: %s: %s\n", what, e ? e->msg : "failed");
        exit(1);
}

int main(int argc, char **argv) {
        const char *name = argc > 1 ? argv[1] : "demo-api";
        int rounds = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
        double ours[ROUNDS_MAX], cli[ROUNDS_MAX], ours_inspect[ROUNDS_MAX], cli_inspect[ROUNDS_MAX];
        struct engine *e = NULL;
        struct engine_container c;
        struct mh_error err = { 0 };

        if (rounds < 1 || rounds > ROUNDS_MAX)
                rounds = 20;
        if (engine_open(ENGINE_DOCKER, NULL, &e, &err) < 0)
                fail("engine", &err);
        if (engine_container_inspect(e, name, &c, &err) < 0 || !c.running)
                fail("container must be running (tools/demo-stack up)", c.running ? &err : NULL);
        for (int i = 0; i < rounds; i++) {
                double t0 = monotonic_ms();
                if (engine_container_pause(e, c.id, &err) < 0 || engine_container_unpause(e, c.id, &err) < 0)
                        fail("pause/unpause", &err);
                double t1 = monotonic_ms();
                if (docker("pause", name) < 0 || docker("unpause", name) < 0)
                        fail("docker pause/unpause", NULL);
                double t2 = monotonic_ms();
                if (engine_container_inspect(e, c.id, &c, &err) < 0)
                        fail("inspect", &err);
                double t3 = monotonic_ms();
                if (docker("inspect", name) < 0)
                        fail("docker inspect", NULL);
                double t4 = monotonic_ms();
                ours[i] = t1 - t0, cli[i] = t2 - t1, ours_inspect[i] = t3 - t2, cli_inspect[i] = t4 - t3;
        }
        double po = median(ours, rounds), pc = median(cli, rounds);
        double io = median(ours_inspect, rounds), ic = median(cli_inspect, rounds);
        printf("engine %s (API %s), container %s, median of %d alternating rounds\n",
               engine_server_version(e), engine_api_version(e), name, rounds);
        printf("%-22s %10s %10s %8s\n", "", "mayhem ms", "docker ms", "ratio");
        printf("%-22s %10.2f %10.2f %7.1fx\n", "pause + unpause", po, pc, pc / po);
        printf("%-22s %10.2f %10.2f %7.1fx\n", "inspect", io, ic, ic / io);
        engine_free(e);
        return 0;
}
