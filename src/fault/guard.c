#include "guard.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/strv.h"
#include "fault/live.h"
#include "sys/process.h"

#define RELEASE_WAIT_MS 1000

static const char *guard_exe; /* NULL: no guardian */

void fault_guard_exe_set(const char *exe) {
        guard_exe = exe;
}

const char *fault_guard_exe(void) {
        return guard_exe;
}

struct fault_guard {
        int fd; /* the write end of its stdin */
        pid_t pid;
};

static char *dump(const json_t *j) {
        return j ? json_dumps(j, JSON_COMPACT) : strdup("{}");
}

/* The lease's net context as JSON, for the guardian's argv. */
static json_t *net_json(const struct fault_net *n) {
        json_t *peers = json_array(), *self = json_array();
        for (size_t i = 0; i < n->n_peers; i++)
                json_array_append_new(peers, json_string(n->peers[i]));
        for (size_t i = 0; i < n->n_self; i++)
                json_array_append_new(self, json_string(n->self[i]));
        json_t *j = json_pack("{s:o, s:o}", "peers", peers, "self", self);
        if (j && n->has_delivery)
                json_object_set_new(j, "delivery", json_string(net_delivery_to_string(n->delivery)));
        return j;
}

int fault_agent_spawn(char *const *argv, int in, int out, bool new_session, pid_t *ret_pid) {
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t at;
        sigset_t none, dfl;
        extern char **environ;
        sigemptyset(&none);
        sigfillset(&dfl);
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
        if (out >= 0)
                posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
        else
                posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawnattr_init(&at);
        posix_spawnattr_setflags(
                &at,
                (new_session ? POSIX_SPAWN_SETSID : 0) | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        posix_spawnattr_setsigmask(&at, &none);
        posix_spawnattr_setsigdefault(&at, &dfl);
        int r = guard_exe ? posix_spawn(ret_pid, guard_exe, &fa, &at, argv, environ) : EOPNOTSUPP;
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&at);
        return -r;
}

int fault_guard_start(const struct fault_exec *fx, struct fault_guard **ret, struct mh_error *reterr) {
        int p[2];
        char pid[24], start[24];
        if (!guard_exe)
                return mh_error_fail(
                        reterr, -EOPNOTSUPP, "no_guardian",
                        "%s needs a guardian to undo it if we die, and this program has none (only "
                        "mayhem-agent applies it)",
                        fx->def->id);
        json_t *net = net_json(&fx->net), *params = fault_params_json(&fx->params);
        char *net_text = dump(net), *params_text = dump(params), *restore_text = dump(fx->restore);
        struct fault_guard *g = calloc(1, sizeof(*g));
        int r = g && net_text && params_text && restore_text ? 0 : -ENOMEM;
        if (r == 0 && pipe2(p, O_CLOEXEC) < 0)
                r = negative_errno();
        if (r == 0) {
                snprintf(pid, sizeof(pid), "%d", (int)fx->target.main.pid);
                snprintf(start, sizeof(start), "%llu", (unsigned long long)fx->target.main.start_time);
                char *argv[] = { "mayhem-agent",
                                 "guard",
                                 "--fault",
                                 (char *)fx->def->id,
                                 "--lease",
                                 (char *)fx->lease_id,
                                 "--pid",
                                 pid,
                                 "--start",
                                 start,
                                 "--params",
                                 params_text,
                                 "--net",
                                 net_text,
                                 "--restore",
                                 restore_text,
                                 NULL };
                /* Not the agent's stdout: the controller's pipe must close when the agent lets it go. */
                r = fault_agent_spawn(argv, p[0], -1, true, &g->pid);
                close(p[0]);
                if (r < 0)
                        close(p[1]);
                else
                        g->fd = p[1];
        }
        free(net_text), free(params_text), free(restore_text);
        json_decref(net), json_decref(params);
        if (r < 0) {
                free(g);
                return mh_error_fail(
                        reterr, r, "guard", "cannot start the guardian %s: %s", guard_exe, strerror(-r));
        }
        *ret = g;
        return 0;
}

struct fault_guard *fault_guard_release(struct fault_guard *g) {
        static const char msg[] = "release\n";
        if (!g)
                return NULL;
        ssize_t n = write(g->fd, msg, sizeof(msg) - 1);
        (void)n;
        close(g->fd);
        proc_child_end(g->pid, RELEASE_WAIT_MS);
        free(g);
        return NULL;
}

/* True when stdin said "release", false when it closed without. */
static bool released(void) {
        char buf[64];
        size_t got = 0;
        for (;;) {
                ssize_t n = read(STDIN_FILENO, buf + got, sizeof(buf) - 1 - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return false;
                got += (size_t)n;
                buf[got] = '\0';
                if (strstr(buf, "release\n"))
                        return true;
                if (got >= sizeof(buf) - 1)
                        got = 0;
        }
}

struct guard_args {
        const char *fault, *lease, *params, *net, *restore;
        int64_t pid, start;
};

static int parse(int argc, char **argv, struct guard_args *a) {
        a->fault = argv_option(argc, argv, "--fault");
        a->lease = argv_option(argc, argv, "--lease");
        a->params = argv_option(argc, argv, "--params");
        a->net = argv_option(argc, argv, "--net");
        a->restore = argv_option(argc, argv, "--restore");
        bool numbers = argv_option_int64(argc, argv, "--pid", &a->pid) >= 0 &&
                       argv_option_int64(argc, argv, "--start", &a->start) >= 0;
        return numbers && a->fault && a->lease && a->pid > 0 && a->pid <= INT32_MAX && a->start >= 0
                       ? 0
                       : -EINVAL;
}

static int undo(
        const struct guard_args *a, json_t *params, json_t *net, json_t *restore, struct mh_error *e) {
        const struct fault_def *def = catalog_find(a->fault);
        struct fault_exec fx = { .lease_id = a->lease, .restore = restore, .lives = fault_lives_new() };
        int r = def ? 0 : mh_error_fail(e, -EINVAL, "guard", "no fault %s in the catalog", a->fault);
        if (r >= 0 && !fx.lives)
                r = mh_error_fail(e, -ENOMEM, "oom", "out of memory");
        if (r >= 0)
                r = fault_exec_bind(&fx, def, params, net, e);
        if (r >= 0 && !fx.mech)
                r = mh_error_fail(e, -EOPNOTSUPP, "guard", "%s has no mechanism in this version", a->fault);
        if (r >= 0) {
                snprintf(fx.target.engine, sizeof(fx.target.engine), "host");
                snprintf(fx.target.container_name, sizeof(fx.target.container_name), "pid %d", (int)a->pid);
                fx.target.main =
                        (struct proc_identity){ .pid = (pid_t)a->pid, .start_time = (uint64_t)a->start };
                r = fault_undo_run(&fx, def->comp.undo, fault_comp_n_undo(&def->comp), e);
        }
        fault_lives_free(fx.lives);
        return r;
}

int fault_guard_run(int argc, char **argv, struct mh_error *reterr) {
        struct guard_args a = { 0 };
        if (parse(argc, argv, &a) < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "usage", "guard needs --fault, --lease, --pid and --start");
        json_t *params = json_loads(a.params ? a.params : "{}", 0, NULL),
               *net = a.net ? json_loads(a.net, 0, NULL) : NULL,
               *restore = json_loads(a.restore ? a.restore : "{}", 0, NULL);
        int r = 0;
        if (!json_is_object(params) || (a.net && !json_is_object(net)) || !json_is_object(restore))
                r = mh_error_fail(
                        reterr, -EINVAL, "usage", "guard: --params, --net and --restore take JSON objects");
        else if (!released())
                r = undo(&a, params, net, restore, reterr);
        json_decref(params);
        json_decref(net);
        json_decref(restore);
        return r;
}
