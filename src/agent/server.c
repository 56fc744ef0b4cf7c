#include "server-internal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "agent/rpc-frame.h"
#include "agent/rpc.h"
#include "fault/live.h"

void agent_log(struct agent_state *s, const char *fmt, ...) {
        va_list ap;
        if (!s->opt->log)
                return;
        pthread_mutex_lock(&s->out_lock);
        fprintf(s->opt->log, "[agent %s] ", s->opt->agent_id);
        va_start(ap, fmt);
        vfprintf(s->opt->log, fmt, ap);
        va_end(ap);
        fputc('\n', s->opt->log);
        fflush(s->opt->log);
        pthread_mutex_unlock(&s->out_lock);
}

/* A dead controller makes writes fail (EPIPE, SIGPIPE ignored): the frame is dropped. */
void agent_send(struct agent_state *s, char *line) {
        if (!line)
                return;
        size_t len = strlen(line), off = 0;
        pthread_mutex_lock(&s->out_lock);
        while (off < len) {
                ssize_t n = write(s->opt->out_fd, line + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                off += (size_t)n;
        }
        pthread_mutex_unlock(&s->out_lock);
        free(line);
}

struct job {
        struct rpc_request req;
        agent_method method;
};

/* A thread that runs slow methods one after the other, parked on its own
 * condition variable between them. */
struct worker {
        struct agent_state *s;
        pthread_t thread;
        pthread_cond_t wake;
        struct job *job; /* handed over by start_job(), under s->lock */
};

static void run_method(struct agent_state *s, const struct rpc_request *req, agent_method m) {
        char msg[512] = "";
        json_t *result = NULL;
        int code = m(s, req->params, &result, msg, sizeof(msg));
        if (code < 0)
                agent_send(s, rpc_error_line(req->id, code, msg, NULL));
        else
                agent_send(s, rpc_result_line(req->id, result));
}

static void job_run(struct agent_state *s, struct job *j) {
        run_method(s, &j->req, j->method);
        rpc_request_done(&j->req);
        free(j);
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        struct agent_state *s = w->s;
        pthread_mutex_lock(&s->lock);
        for (;;) {
                while (!w->job && !s->stopping)
                        pthread_cond_wait(&w->wake, &s->lock);
                struct job *j = TAKE_PTR(w->job);
                if (!j)
                        break;
                pthread_mutex_unlock(&s->lock);
                job_run(s, j);
                pthread_mutex_lock(&s->lock);
                s->idle_workers[s->n_idle_workers++] = w;
                s->inflight--;
                pthread_cond_broadcast(&s->idle);
        }
        pthread_mutex_unlock(&s->lock);
        return NULL;
}

/* An idle worker, or a new one; NULL when no thread can be had. Called with
 * s->lock held and fewer than AGENT_INFLIGHT_MAX jobs in flight, so there are
 * never more workers than that. */
static struct worker *worker_get_locked(struct agent_state *s) {
        if (s->n_idle_workers > 0)
                return s->idle_workers[--s->n_idle_workers];
        struct worker *w = calloc(1, sizeof(*w));
        if (!w)
                return NULL;
        w->s = s;
        pthread_cond_init(&w->wake, NULL);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
                pthread_cond_destroy(&w->wake);
                free(w);
                return NULL;
        }
        s->workers[s->n_workers++] = w;
        return w;
}

/* Slow methods (task.execute) run on worker threads, so a ping or an extend
 * is never stuck behind a restart; at most AGENT_INFLIGHT_MAX at once. A
 * worker waits for the next job when it is done: a thread created per job
 * took ~80 us of a ~500 us network inject on a cold CPU (Linux 6.18, 2 vCPUs:
 * the clone, a stack faulted in again, the first run) and the pool grows on
 * demand only. */
static void start_job(struct agent_state *s, struct rpc_request *req, agent_method m) {
        struct job *j = calloc(1, sizeof(*j));
        struct worker *w = NULL;
        pthread_mutex_lock(&s->lock);
        while (s->inflight >= AGENT_INFLIGHT_MAX)
                pthread_cond_wait(&s->idle, &s->lock);
        s->inflight++;
        if (j && (w = worker_get_locked(s))) {
                *j = (struct job){ .req = *req, .method = m };
                w->job = j;
                pthread_cond_signal(&w->wake);
        }
        pthread_mutex_unlock(&s->lock);
        if (w)
                return;
        free(j);
        run_method(s, req, m); /* no thread to be had: answer in line */
        rpc_request_done(req);
        pthread_mutex_lock(&s->lock);
        s->inflight--;
        pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->lock);
}

/* After release_all(): every worker is idle. */
static void workers_stop(struct agent_state *s) {
        pthread_mutex_lock(&s->lock);
        s->stopping = true;
        for (size_t i = 0; i < s->n_workers; i++)
                pthread_cond_signal(&s->workers[i]->wake);
        pthread_mutex_unlock(&s->lock);
        for (size_t i = 0; i < s->n_workers; i++) {
                pthread_join(s->workers[i]->thread, NULL);
                pthread_cond_destroy(&s->workers[i]->wake);
                free(s->workers[i]);
        }
        s->n_workers = s->n_idle_workers = 0;
}

static void handle_frame(struct agent_state *s, const char *line, size_t len) {
        struct rpc_request req;
        json_t *error_id = NULL;
        char msg[512] = "";
        bool slow = false;
        int code = rpc_request_parse(line, len, &req, &error_id, msg, sizeof(msg));
        if (code < 0) {
                agent_send(s, rpc_error_line(error_id, code, msg, NULL));
                json_decref(error_id);
                return;
        }
        agent_method m = agent_method_find(req.method, &slow);
        if (!req.id) { /* a notification: accepted and dropped */
                rpc_request_done(&req);
                return;
        }
        if (!m) {
                snprintf(msg, sizeof(msg), "no such method: %s", req.method);
                agent_send(s, rpc_error_line(req.id, RPC_METHOD_NOT_FOUND, msg, NULL));
                rpc_request_done(&req);
                return;
        }
        if (slow) {
                start_job(s, &req, m);
                return;
        }
        run_method(s, &req, m);
        rpc_request_done(&req);
}

/* Leases whose TTL passed without lease.extend are undone here. */
static double watchdog_sweep(struct agent_state *s) {
        double now = monotonic_ms(), next = now + 1000;
        for (size_t i = 0; i < AGENT_HELD_MAX; i++) {
                struct agent_lease expired = { 0 };
                bool due = false;
                pthread_mutex_lock(&s->lock);
                if (s->held[i].used && s->held[i].kept)
                        ; /* kept in force on purpose: no TTL (agent-keep.c) */
                else if (s->held[i].used && s->held[i].expires_ms <= now) {
                        expired = s->held[i].lease;
                        s->held[i].used = false;
                        due = true;
                } else if (s->held[i].used && s->held[i].expires_ms < next)
                        next = s->held[i].expires_ms;
                pthread_mutex_unlock(&s->lock);
                if (due) /* off the loop: frames keep being answered meanwhile */
                        agent_compensate_start(s, &expired, "ttl expired without lease.extend");
        }
        return next;
}

/* The dead-man's switch: whatever is still held is undone before exiting,
 * every lease at once and for at most AGENT_RELEASE_MS, but for the leases
 * kept in force on purpose when keep says so. False when something was
 * still running then: the agent exits without it (what the kernel ties to
 * its sockets goes with it, a guardian puts back the rest). */
static bool release_all(struct agent_state *s, const char *why, bool keep) {
        double deadline = monotonic_ms() + AGENT_RELEASE_MS;
        pthread_mutex_lock(&s->lock);
        while (s->inflight > 0 &&
               monotonic_ms() < deadline) /* an inject in flight registers its lease first */
                agent_wait_until_locked(s, deadline);
        int stuck = s->inflight;
        pthread_mutex_unlock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX; i++) {
                struct agent_lease l = { 0 };
                pthread_mutex_lock(&s->lock);
                bool held = s->held[i].used && !(keep && s->held[i].kept);
                if (held) {
                        l = s->held[i].lease;
                        s->held[i].used = false;
                }
                pthread_mutex_unlock(&s->lock);
                if (!held)
                        continue;
                agent_log(s, "stopping (%s) while holding lease %s: undoing it", why, l.id);
                agent_compensate_start(s, &l, why);
        }
        size_t left = agent_compensations_wait(s, deadline);
        if (left || stuck)
                agent_log(
                        s,
                        "[watchdog] COULD NOT RELEASE everything within %d s (%zu undo(s) and %d request(s) "
                        "still running): exiting without them; run `mayhem recover`",
                        AGENT_RELEASE_MS / 1000, left, stuck);
        return left == 0 && stuck == 0;
}

static int signal_fd(void) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static const char *serve_loop(struct agent_state *s, struct frame_reader *fr, int sfd) {
        double next = monotonic_ms() + 1000;
        for (;;) {
                struct pollfd p[2] = { { .fd = s->opt->in_fd, .events = POLLIN },
                                       { .fd = sfd, .events = POLLIN } };
                int timeout = (int)MAX(0.0, MIN(next - monotonic_ms(), 1000.0));
                if (poll(p, sfd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
                        return "poll failed";
                if (sfd >= 0 && (p[1].revents & POLLIN))
                        return "signal";
                const char *line;
                size_t len;
                int r;
                while ((r = frame_reader_next(fr, &line, &len)) == 1)
                        handle_frame(s, line, len);
                if (r == 0)
                        return "stdin closed";
                if (r == -EMSGSIZE)
                        agent_send(
                                s,
                                rpc_error_line(json_null(), RPC_INVALID_REQUEST, "frame over 1 MiB", NULL));
                else if (r == -EILSEQ)
                        agent_send(
                                s, rpc_error_line(
                                           json_null(), RPC_PARSE_ERROR, "bad json: invalid UTF-8", NULL));
                else if (r < 0 && r != -EAGAIN)
                        return "stdin read error";
                next = watchdog_sweep(s);
        }
}

int agent_serve(const struct agent_options *opt) {
        struct agent_state *s = calloc(1, sizeof(*s));
        if (!s)
                return MH_EXIT_AGENT_ERROR;
        s->opt = opt;
        s->lives = fault_lives_new();
        if (!s->lives) {
                free(s);
                return MH_EXIT_AGENT_ERROR;
        }
        pthread_mutex_init(&s->lock, NULL);
        pthread_mutex_init(&s->out_lock, NULL);
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&s->idle, &attr);
        pthread_condattr_destroy(&attr);
        signal(SIGPIPE, SIG_IGN);
        int sfd = signal_fd();
        fcntl(opt->in_fd, F_SETFL, fcntl(opt->in_fd, F_GETFL) | O_NONBLOCK);
        struct frame_reader *fr = frame_reader_new(opt->in_fd);
        const char *why = fr ? serve_loop(s, fr, sfd) : "out of memory";
        /* Only the controller letting go keeps the kept faults: a signal
         * to a serving agent undoes everything it holds. */
        bool keep = strcmp(why, "stdin closed") == 0;
        if (!release_all(s, why, keep))
                return MH_EXIT_RECOVERY_FAILURE; /* threads still use s: the process ends with them */
        if (keep && agent_kept_count(s) > 0 && !release_all(s, agent_keeper_hold(s, sfd), false))
                return MH_EXIT_RECOVERY_FAILURE;
        workers_stop(s);
        frame_reader_free(fr);
        s->lives = fault_lives_free(s->lives); /* what forgotten leases still held */
        for (size_t i = 0; i < _ENGINE_KIND_MAX; i++)
                engine_free(s->engines[i]);
        if (sfd >= 0)
                close(sfd);
        free(s);
        return 0;
}
