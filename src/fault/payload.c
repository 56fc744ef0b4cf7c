#include "payload.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "fault/guard.h"
#include "sys/process.h"

#define STOP_WAIT_MS 1000

/* The agent's side of one payload (payload.h). */
struct payload {
        pid_t pid;
        int to, from; /* its stdin (we write "stop") and stdout */
        char partial[PAYLOAD_LINE_MAX];
        size_t n_partial;
        char last[PAYLOAD_LINE_MAX]; /* the newest complete line */
        bool eof;
};

static int launch(const struct fault_exec *fx, struct payload *p) {
        int in[2] = { -1, -1 }, out[2] = { -1, -1 };
        char pid[24], start[24], parent[24];
        json_t *params = fault_params_json(&fx->params);
        char *params_text = params ? json_dumps(params, JSON_COMPACT) : NULL;
        int r = params_text ? 0 : -ENOMEM;
        if (r == 0 && (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0))
                r = negative_errno();
        if (r == 0) {
                snprintf(pid, sizeof(pid), "%d", (int)fx->target.main.pid);
                snprintf(start, sizeof(start), "%llu", (unsigned long long)fx->target.main.start_time);
                snprintf(parent, sizeof(parent), "%d", (int)getpid());
                char *argv[] = { "mayhem-agent",       "payload", "--fault",  (char *)fx->def->id, "--lease",
                                 (char *)fx->lease_id, "--pid",   pid,        "--start",           start,
                                 "--parent",           parent,    "--params", params_text,         NULL };
                r = fault_agent_spawn(argv, in[0], out[1], false, &p->pid);
        }
        if (in[0] >= 0)
                close(in[0]);
        if (out[1] >= 0)
                close(out[1]);
        if (r < 0) {
                if (in[1] >= 0)
                        close(in[1]);
                if (out[0] >= 0)
                        close(out[0]);
        } else {
                p->to = in[1];
                p->from = out[0];
                fcntl(p->from, F_SETFL, O_NONBLOCK);
        }
        free(params_text);
        json_decref(params);
        return r;
}

/* Reads what the payload wrote, keeping the newest complete line. */
static void drain(struct payload *p) {
        while (!p->eof) {
                char buf[1024];
                ssize_t n = read(p->from, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        p->eof = n == 0;
                        return;
                }
                for (ssize_t i = 0; i < n; i++) {
                        if (buf[i] != '\n') {
                                if (p->n_partial < sizeof(p->partial) - 1)
                                        p->partial[p->n_partial++] = buf[i];
                                continue;
                        }
                        p->partial[p->n_partial] = '\0';
                        snprintf(p->last, sizeof(p->last), "%s", p->partial);
                        p->n_partial = 0;
                }
        }
}

static bool starts(const char *line, const char *word, const char **ret_rest) {
        size_t n = strlen(word);
        if (strncmp(line, word, n) != 0 || (line[n] != ' ' && line[n] != '\0'))
                return false;
        *ret_rest = line[n] ? line + n + 1 : line + n;
        return true;
}

/* Waits for "ready" or "error" (or the payload's end) until the deadline. */
static int await_ready(struct payload *p, char *ready, size_t size, struct mh_error *reterr) {
        const char *rest;
        for (double until = monotonic_ms() + PAYLOAD_READY_MS;;) {
                drain(p);
                if (starts(p->last, "ready", &rest)) {
                        if (ready)
                                snprintf(ready, size, "%s", rest);
                        return 0;
                }
                if (starts(p->last, "error", &rest))
                        return mh_error_fail(reterr, -EIO, "payload", "%s", rest);
                if (p->eof)
                        return mh_error_fail(
                                reterr, -ECHILD, "payload", "the payload exited before it was ready");
                int left = (int)(until - monotonic_ms());
                if (left <= 0)
                        return mh_error_fail(
                                reterr, -ETIMEDOUT, "payload", "the payload was not ready within %d ms",
                                PAYLOAD_READY_MS);
                struct pollfd pfd = { .fd = p->from, .events = POLLIN };
                poll(&pfd, 1, left);
        }
}

int payload_start(
        const struct fault_exec *fx, struct payload **ret, char *ready, size_t size,
        struct mh_error *reterr) {
        if (!fault_guard_exe())
                return mh_error_fail(
                        reterr, -EOPNOTSUPP, "no_payload",
                        "%s runs a payload, and only mayhem-agent can start one", fx->def->id);
        if (fx->target.main.pid <= 0)
                return mh_error_fail(
                        reterr, -ESRCH, "target_not_running", "%s has no running main process",
                        fx->target.container_name);
        struct payload *p = calloc(1, sizeof(*p));
        if (!p)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        p->to = p->from = -1;
        int r = launch(fx, p);
        if (r < 0) {
                free(p);
                return mh_error_fail(reterr, r, "payload", "cannot start the payload: %s", strerror(-r));
        }
        if ((r = await_ready(p, ready, size, reterr)) < 0) {
                payload_stop(p);
                return r;
        }
        *ret = p;
        return 0;
}

bool payload_last(struct payload *p, char *buf, size_t size) {
        const char *rest = p->last;
        drain(p);
        if (!starts(p->last, "progress", &rest))
                starts(p->last, "ready", &rest);
        snprintf(buf, size, "%s", rest);
        return waitpid(p->pid, NULL, WNOHANG) == 0;
}

struct payload *payload_stop(struct payload *p) {
        static const char msg[] = "stop\n";
        if (!p)
                return NULL;
        ssize_t n = write(p->to, msg, sizeof(msg) - 1);
        (void)n;
        close(p->to);
        proc_child_end(p->pid, STOP_WAIT_MS); /* its body dies with it (PR_SET_PDEATHSIG) */
        close(p->from);
        free(p);
        return NULL;
}
