#pragma once

/* Shared by the integration tests: the demo stack (tools/demo-stack) as the
 * target, the real mayhem binary as the thing under test, a temporary
 * evidence database, and JSON from `mayhem inspect`. */

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>
#include <time.h>

#include "common/run-command.h"
#include "engine/engine.h"

struct demo {
        char db[64];
        unsigned n_db;
        char root[512];
};

/* 0 ready; 77 when no engine answers (the caller skips); -1 on failure. */
int demo_up(struct demo *d);
void demo_down(struct demo *d);
/* Switches to a new, empty evidence database (each test its own). */
void demo_fresh_db(struct demo *d);

/* mayhem --db DB ARGS... in the source root. */
struct cmd_result demo_mayhem(const struct demo *d, const char *const *args);
pid_t demo_mayhem_spawn(const struct demo *d, const char *const *args);
/* What the last spawned mayhem printed (malloc()ed). */
char *demo_spawn_log(const struct demo *d);
/* `mayhem inspect ... --json` parsed; NULL on failure. */
json_t *demo_inspect(const struct demo *d, const char *const *args);

/* MAYHEM_TEST_ENGINE=podman: the same tests against Podman ("podman" CLI, mayhem --podman). */
bool demo_podman(void);
const char *demo_engine_cli(void);

/* The demo container's state from the engine. */
bool demo_container(bool *ret_running, bool *ret_paused);
/* Any container by name, from the engine the tests use. */
bool demo_inspect_container(const char *name, struct engine_container *c);
/* docker run -d mayhem-test-net as service SERVICE of compose project PROJECT. */
bool demo_run_service(const char *name, const char *project, const char *service);
void demo_unpause(void);

/* argv run in the network namespace of pid (nsenter -t PID -n): its
 * standard output, malloc()ed ("" when it printed nothing or failed). */
char *demo_in_netns(int pid, const char *const *argv);
/* Whether the netns of pid holds anything of ours: an nft table "mayhem-*",
 * a qdisc with our handle 6d68: or an ingress qdisc, an IFB device; why says
 * what was seen. */
bool demo_net_residue(int pid, char *why, size_t size);

/* This build's mayhem-agent processes ($MAYHEM_AGENT_BIN; every one without
 * it), guardians included (they run the agent too), not zombies: all of
 * them, or the children of parent (> 0). The count; *ret_pid (may be NULL)
 * gets the last one seen. */
int demo_agents(int parent, int *ret_pid);

/* Agents as demo_agents(0, ret_pid) counts them, but only those started
 * since this test process began: a keeper an earlier test left behind (its
 * lease still running out) is not this test's residue. */
int demo_agents_new(int *ret_pid);
/* The same, of those started at boot-relative clock tick since or later. */
int demo_agents_since(unsigned long long since, int *ret_pid);
/* The boot-relative clock tick now (/proc/uptime in the unit of a process's
 * start time), for demo_agents_since(). */
unsigned long long demo_clock_ticks(void);

/* Waits for a child of this process to end, polling every 20 ms under a
 * monotonic deadline of timeout_ms: its exit code, or 128 + the signal that
 * ended it. At the deadline it is SIGKILLed and reaped, and the answer is -1:
 * the caller fails, saying what it waited for. Inline (this header only), so
 * tests that do not link the harness use it too. */
static inline int demo_wait_exit(pid_t pid, double timeout_ms) {
        struct timespec now, tick = { .tv_nsec = 20 * 1000 * 1000 };
        clock_gettime(CLOCK_MONOTONIC, &now);
        double until = (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6 + timeout_ms;
        int status = 0;
        for (;;) {
                pid_t r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                if (r < 0 && errno != EINTR)
                        return -1; /* not our child, or already reaped */
                clock_gettime(CLOCK_MONOTONIC, &now);
                if ((double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1e6 >= until)
                        break;
                nanosleep(&tick, NULL);
        }
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        return -1;
}

/* demo_wait_exit() on a mayhem run of demo_mayhem_spawn(): on the deadline
 * it says so on stderr with everything the run printed (demo_spawn_log). */
int demo_wait_run(const struct demo *d, pid_t pid, double timeout_ms);

/* Polls http://IP:PORT/PATH every 50 ms until it answers 200, for at most
 * timeout_ms: whether it did (a container's service has bound its port). */
bool demo_wait_http(const char *ip, int port, const char *path, double timeout_ms);

#define MAYHEM(d, ...)  demo_mayhem((d), (const char *const[]){ __VA_ARGS__, NULL })
#define INSPECT(d, ...) demo_inspect((d), (const char *const[]){ "inspect", __VA_ARGS__, "--json", NULL })
