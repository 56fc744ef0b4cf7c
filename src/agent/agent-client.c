#include "agent-client.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/rpc-frame.h"
#include "agent/rpc.h"
#include "basic/clock.h"
#include "basic/macro.h"

#define PENDING_MAX  64
#define HANDSHAKE_MS 15000
#define STOP_WAIT_MS 30000

struct pending {
        bool used, done;
        json_int_t id;
        json_t *result;
        int code;
        char msg[512];
};

struct agent_client {
        pid_t pid;
        int to_fd, from_fd;
        pthread_t reader;
        bool have_reader;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct pending pending[PENDING_MAX];
        json_int_t next_id;
        bool dead, stopping;
        bool keeper; /* agent_client_expect_keeper() */
        char run_id[160], agent_id[96];
        char what[PATH_MAX + 8]; /* "ssh to TARGET" or the local agent's path, for messages */
        void (*on_lost)(void *userdata);
        void *userdata;
};

static void *reader_thread(void *arg) {
        struct agent_client *c = arg;
        struct frame_reader *fr = frame_reader_new(c->from_fd);
        const char *line;
        size_t len;
        while (fr && frame_reader_next(fr, &line, &len) == 1) {
                json_int_t id = -1;
                json_t *result = NULL;
                int code = 0;
                char msg[512] = "";
                if (rpc_response_parse(line, len, &id, &result, &code, msg, sizeof(msg)) < 0 && id < 0)
                        continue; /* not an answer to anything we asked */
                pthread_mutex_lock(&c->lock);
                for (size_t i = 0; i < PENDING_MAX; i++)
                        if (c->pending[i].used && !c->pending[i].done && c->pending[i].id == id) {
                                struct pending *p = &c->pending[i];
                                p->done = true, p->result = result, p->code = code, result = NULL;
                                snprintf(p->msg, sizeof(p->msg), "%s", msg);
                        }
                pthread_cond_broadcast(&c->cond);
                pthread_mutex_unlock(&c->lock);
                json_decref(result);
        }
        frame_reader_free(fr);
        pthread_mutex_lock(&c->lock);
        c->dead = true;
        void (*on_lost)(void *userdata) = c->stopping ? NULL : c->on_lost;
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->lock);
        if (on_lost)
                on_lost(c->userdata);
        return NULL;
}

static bool executable(const char *path) {
        return access(path, X_OK) == 0;
}

/* $MAYHEM_AGENT, beside this binary (installed), the build tree (src/cli -> src/agent), then $PATH. */
static void find_agent(char *buf, size_t size) {
        char self[PATH_MAX - 64];
        const char *env = getenv("MAYHEM_AGENT");
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (env && *env) {
                snprintf(buf, size, "%s", env);
                return;
        }
        if (n > 0) {
                self[n] = '\0';
                char *slash = strrchr(self, '/');
                if (slash) {
                        *slash = '\0';
                        snprintf(buf, size, "%s/mayhem-agent", self);
                        if (executable(buf))
                                return;
                        snprintf(buf, size, "%s/../agent/mayhem-agent", self);
                        if (executable(buf))
                                return;
                }
        }
        snprintf(buf, size, "mayhem-agent");
}

static size_t build_argv(
        const struct agent_client_options *o, const char *agent, const char **argv, size_t max) {
        size_t n = 0;
        if (o->ssh_target) {
                const char *target =
                        strncmp(o->ssh_target, "ssh://", 6) == 0 ? o->ssh_target + 6 : o->ssh_target;
                argv[n++] = "ssh";
                argv[n++] = "-T";
                argv[n++] = "-o";
                argv[n++] = "BatchMode=yes";
                for (size_t i = 0; i < AGENT_SSH_ARGS_MAX && o->ssh_args[i] && n < max - 8; i++)
                        argv[n++] = o->ssh_args[i];
                argv[n++] = target;
                argv[n++] = "--";
                argv[n++] = o->remote_agent ? o->remote_agent : "mayhem-agent";
        } else
                argv[n++] = agent;
        argv[n++] = "serve";
        argv[n++] = "--roles";
        argv[n++] = o->roles && *o->roles ? o->roles : "proc";
        if (o->engine_socket) {
                argv[n++] = "--engine-socket";
                argv[n++] = o->engine_socket;
        }
        argv[n] = NULL;
        return n;
}

/* ssh://user@host:port is given to ssh as -p PORT user@host. */
static void split_port(
        const struct agent_client_options *o, struct agent_client_options *out, char *host, size_t size,
        char *port, size_t port_size) {
        *out = *o;
        if (!o->ssh_target || strncmp(o->ssh_target, "ssh://", 6) != 0)
                return;
        snprintf(host, size, "%s", o->ssh_target + 6);
        char *colon = strrchr(host, ':');
        if (!colon)
                return;
        *colon = '\0';
        snprintf(port, port_size, "%s", colon + 1);
        size_t n = 0;
        while (n < AGENT_SSH_ARGS_MAX - 3 && o->ssh_args[n])
                n++;
        out->ssh_args[n] = "-p";
        out->ssh_args[n + 1] = port;
        out->ssh_args[n + 2] = NULL;
        out->ssh_target = host;
}

static int spawn(const struct agent_client_options *o, struct agent_client *c, struct mh_error *reterr) {
        char agent[PATH_MAX], host[256], port[16];
        const char *argv[AGENT_SSH_ARGS_MAX + 16];
        struct agent_client_options eff;
        int to[2], from[2];

        split_port(o, &eff, host, sizeof(host), port, sizeof(port));
        if (o->agent_path)
                snprintf(agent, sizeof(agent), "%s", o->agent_path);
        else
                find_agent(agent, sizeof(agent));
        build_argv(&eff, agent, argv, ELEMENTSOF(argv));
        if (o->ssh_target)
                snprintf(
                        c->what, sizeof(c->what), "ssh to %s",
                        o->ssh_target + (strncmp(o->ssh_target, "ssh://", 6) == 0 ? 6 : 0));
        else
                snprintf(c->what, sizeof(c->what), "%s", agent);
        if (pipe2(to, O_CLOEXEC) < 0)
                return mh_error_set(
                        reterr, negative_errno(), MH_EXIT_AGENT_ERROR, "agent_spawn", "pipe: %s",
                        strerror(errno));
        if (pipe2(from, O_CLOEXEC) < 0) {
                close(to[0]), close(to[1]);
                return mh_error_set(
                        reterr, negative_errno(), MH_EXIT_AGENT_ERROR, "agent_spawn", "pipe: %s",
                        strerror(errno));
        }
        c->pid = fork();
        if (c->pid == 0) {
                setsid(); /* Ctrl-C in the terminal is the controller's to handle */
                if (dup2(to[0], STDIN_FILENO) < 0 || dup2(from[1], STDOUT_FILENO) < 0)
                        _exit(127);
                execvp(argv[0], (char *const *)argv);
                fprintf(stderr, "error: [agent_error] cannot run %s: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        close(to[0]);
        close(from[1]);
        c->to_fd = to[1];
        c->from_fd = from[0];
        if (c->pid < 0)
                return mh_error_set(
                        reterr, negative_errno(), MH_EXIT_AGENT_ERROR, "agent_spawn", "fork: %s",
                        strerror(errno));
        return 0;
}

/* Nothing is held before the handshake, so a child that did not answer is
 * ended at once: ssh stuck on a host that never speaks does not notice its
 * stdin closing, and agent_client_stop() would wait STOP_WAIT_MS for it. How
 * it ended goes into the message; ssh has printed its own reason on stderr. */
static int handshake_failed(struct agent_client *c, int r, struct mh_error *reterr) {
        int status = 0;
        bool exited = false;
        for (int i = 0; r == -EPIPE && i < 100 && !exited; i++) {
                exited = waitpid(c->pid, &status, WNOHANG) == c->pid;
                if (!exited)
                        sleep_ms(10);
        }
        if (!exited) {
                kill(c->pid, SIGKILL);
                waitpid(c->pid, &status, 0);
        }
        c->pid = -1; /* reaped: agent_client_stop() must not wait for it again */
        if (r == -ETIMEDOUT)
                return mh_error_set(
                        reterr, r, MH_EXIT_AGENT_ERROR, "agent_timeout",
                        "agent handshake: %s: no answer within %d ms", c->what, HANDSHAKE_MS);
        if (r == -EPIPE && exited && WIFEXITED(status))
                return mh_error_set(
                        reterr, r, MH_EXIT_AGENT_ERROR, "agent_lost",
                        "agent handshake: %s exited with status %d before the agent answered%s", c->what,
                        WEXITSTATUS(status),
                        strncmp(c->what, "ssh ", 4) == 0 ? " (ssh's reason is on stderr above)" : "");
        mh_error_prefix(reterr, "agent handshake: ");
        return r;
}

int agent_client_start(
        const struct agent_client_options *o, struct agent_client **ret, struct mh_error *reterr) {
        _cleanup_(agent_client_stopp) struct agent_client *c = calloc(1, sizeof(*c));
        json_t *hello = NULL;
        int r;
        if (!c)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        c->to_fd = c->from_fd = -EBADF;
        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->cond, NULL);
        snprintf(c->run_id, sizeof(c->run_id), "%s", o->run_id ? o->run_id : "");
        snprintf(c->agent_id, sizeof(c->agent_id), "controller");
        c->userdata = o->userdata; /* on_lost is armed once the agent answered */
        if ((r = spawn(o, c, reterr)) < 0)
                return r;
        if ((r = -pthread_create(&c->reader, NULL, reader_thread, c)) < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_AGENT_ERROR, "agent_spawn", "cannot start the reader thread");
        c->have_reader = true;
        if ((r = agent_client_call(c, "handshake", json_object(), HANDSHAKE_MS, &hello, reterr)) < 0)
                return handshake_failed(c, r, reterr);
        /* Armed only now: a child that never answered is a failed start, not a lost agent. */
        pthread_mutex_lock(&c->lock);
        bool dead = c->dead;
        c->on_lost = dead ? NULL : o->on_lost;
        pthread_mutex_unlock(&c->lock);
        if (dead) {
                json_decref(hello);
                return handshake_failed(c, -EPIPE, reterr);
        }
        const char *id = json_string_value(json_object_get(hello, "agent_id"));
        snprintf(c->agent_id, sizeof(c->agent_id), "%s", id ? id : "unknown");
        json_decref(hello);
        *ret = TAKE_PTR(c);
        return 0;
}

static int write_all(int fd, const char *s) {
        size_t len = strlen(s), off = 0;
        while (off < len) {
                ssize_t n = write(fd, s + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -EPIPE;
                off += (size_t)n;
        }
        return 0;
}

static struct pending *reserve(struct agent_client *c, json_int_t *ret_id) {
        for (size_t i = 0; i < PENDING_MAX; i++)
                if (!c->pending[i].used) {
                        c->pending[i] = (struct pending){ .used = true, .id = ++c->next_id };
                        *ret_id = c->pending[i].id;
                        return &c->pending[i];
                }
        return NULL;
}

static int wait_reply(struct agent_client *c, struct pending *p, int timeout_ms) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)timeout_ms * 1000000LL;
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        while (!p->done && !c->dead)
                if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) == ETIMEDOUT)
                        return -ETIMEDOUT;
        return p->done ? 0 : -EPIPE;
}

/* Hands the result over (or drops it): the slot keeps no reference. */
static int finish(struct pending *p, const char *method, json_t **ret, struct mh_error *reterr) {
        json_t *result = TAKE_PTR(p->result);
        if (p->code == 0) {
                if (ret)
                        *ret = result;
                else
                        json_decref(result);
                return 0;
        }
        json_decref(result);
        if (p->code == RPC_SAFETY_REFUSED)
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "safety_refusal", "agent refused %s: %s",
                        method, p->msg);
        if (p->code == RPC_TARGET_FORBIDDEN)
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "target_forbidden", "agent refused %s: %s",
                        method, p->msg);
        if (p->code == RPC_TARGET_MISSING)
                return mh_error_set(reterr, -ENOENT, MH_EXIT_CONFIG_ERROR, "target_missing", "%s", p->msg);
        if (p->code == RPC_TARGET_CHANGED)
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_EXPERIMENT_FAILURE, "target_changed", "%s", p->msg);
        return mh_error_set(
                reterr, -EPROTO, MH_EXIT_AGENT_ERROR, "agent_error", "%s: %s (%d)", method, p->msg, p->code);
}

int agent_client_call(
        struct agent_client *c, const char *method, json_t *params, int timeout_ms, json_t **ret,
        struct mh_error *reterr) {
        json_int_t id = 0;
        int r;
        if (!params)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        json_object_set_new(params, "run_id", json_string(c->run_id));
        json_object_set_new(params, "agent_id", json_string(c->agent_id));
        pthread_mutex_lock(&c->lock);
        struct pending *p = c->dead ? NULL : reserve(c, &id);
        char *line = p ? rpc_request_line(id, method, params) : NULL;
        if (!p)
                json_decref(params);
        r = !p ? (c->dead ? -EPIPE : -EBUSY) : line ? write_all(c->to_fd, line) : -ENOMEM;
        free(line);
        if (r >= 0)
                r = wait_reply(c, p, timeout_ms);
        if (r >= 0)
                r = finish(p, method, ret, reterr);
        else if (r == -ETIMEDOUT)
                mh_error_set(
                        reterr, r, MH_EXIT_AGENT_ERROR, "agent_timeout", "%s: no reply within %d ms", method,
                        timeout_ms);
        else
                mh_error_set(
                        reterr, r, MH_EXIT_AGENT_ERROR, "agent_lost", "%s: the agent is gone (%s)", method,
                        r == -EBUSY ? "too many calls in flight" : "its pipe closed");
        if (p)
                p->used = false;
        pthread_mutex_unlock(&c->lock);
        return r;
}

bool agent_client_alive(struct agent_client *c) {
        pthread_mutex_lock(&c->lock);
        bool alive = !c->dead;
        pthread_mutex_unlock(&c->lock);
        return alive;
}

pid_t agent_client_pid(const struct agent_client *c) {
        return c->pid;
}

const char *agent_client_id(const struct agent_client *c) {
        return c->agent_id;
}

void agent_client_expect_keeper(struct agent_client *c) {
        pthread_mutex_lock(&c->lock);
        c->keeper = true;
        pthread_mutex_unlock(&c->lock);
}

/* An agent that keeps faults in force lets its output go and lives on. */
static bool kept_alive(struct agent_client *c) {
        pthread_mutex_lock(&c->lock);
        bool yes = c->keeper && c->dead;
        pthread_mutex_unlock(&c->lock);
        return yes;
}

/* Bounded wait for the agent to exit; past it, it is killed (it undid what it could). */
static void reap(struct agent_client *c) {
        for (int i = 0; i < STOP_WAIT_MS / 10; i++) {
                if (waitpid(c->pid, NULL, WNOHANG) == c->pid || kept_alive(c))
                        return;
                sleep_ms(10);
        }
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
}

struct agent_client *agent_client_stop(struct agent_client *c) {
        if (!c)
                return NULL;
        pthread_mutex_lock(&c->lock);
        c->stopping = true;
        pthread_mutex_unlock(&c->lock);
        if (c->to_fd >= 0)
                close(c->to_fd);
        if (c->pid > 0)
                reap(c);
        if (c->have_reader)
                pthread_join(c->reader, NULL);
        if (c->from_fd >= 0)
                close(c->from_fd);
        for (size_t i = 0; i < PENDING_MAX; i++)
                json_decref(c->pending[i].result);
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
}
