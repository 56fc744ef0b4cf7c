#include "shaper/shaper.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "shaper/shaper-internal.h"

/* Per wakeup the thread reads at most RECV_ROUND_MAX messages before it
 * releases what is due, so a flood cannot starve the schedule; it takes
 * RELEASE_MAX packets off the schedule per send. */
#define RECV_ROUND_MAX     256u
#define RECV_BUF_SIZE      8192u
#define RELEASE_MAX        1024u
#define RELEASE_ROUNDS_MAX (SHAPER_LIMIT_MAX / RELEASE_MAX + 2u)
#define STOP_SEQ           2u
#define STOP_WAIT_NS       2000000000ull
#define NS_PER_SEC         1000000000ull

struct worker {
        int fd;
        struct shaper_config config;
        uint64_t config_gen;
        struct shaper_sched sched;
        struct shaper_plan plan;
        struct shaper_stats st; /* counters only; percentiles come from the hist */
        bool stopping, stop_acked;
        uint64_t late_us[RELEASE_MAX]; /* samples not yet in the shared hist */
        size_t n_late;
        struct shaper_held out[RELEASE_MAX];
        char rbuf[RECV_BUF_SIZE];
        struct shaper_vbuf vbuf;
};

struct shaper {
        pthread_mutex_t lock; /* config, config_gen, stats, hist, result */
        struct shaper_config config;
        uint64_t config_gen;
        struct shaper_stats stats;
        struct shaper_hist hist;
        int result;

        pthread_mutex_t stop_lock; /* serialises shaper_stop() */
        atomic_bool stop_requested;
        int event_fd;
        pthread_t thread;
        bool started, joined;

        struct worker *w; /* the thread's own */
};

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* ---- the thread's side ---- */

static void publish(struct shaper *s, struct worker *w) {
        w->st.held = w->sched.n;
        w->st.held_bytes = w->sched.bytes;
        w->st.verdict_msgs = w->vbuf.msgs;
        w->st.verdict_sends = w->vbuf.sends;
        pthread_mutex_lock(&s->lock);
        s->stats = w->st;
        for (size_t i = 0; i < w->n_late; i++)
                shaper_hist_add(&s->hist, w->late_us[i]);
        pthread_mutex_unlock(&s->lock);
        w->n_late = 0;
}

static void sync_config(struct shaper *s, struct worker *w) {
        pthread_mutex_lock(&s->lock);
        if (s->config_gen != w->config_gen) {
                w->config = s->config;
                w->config_gen = s->config_gen;
                shaper_sched_set_limits(&w->sched, w->config.limit_packets, w->config.limit_bytes);
        }
        pthread_mutex_unlock(&s->lock);
}

static int handle_packet(struct worker *w, uint32_t id, uint32_t len) {
        uint64_t now = now_ns();

        w->st.seen++;
        if (w->stopping) {
                w->st.flushed++;
                return shaper_vbuf_accept(&w->vbuf, w->fd, id, false);
        }
        uint64_t due = shaper_plan_due(&w->plan, &w->config, now, len, NULL);
        if (due <= now) {
                w->st.immediate++;
                return shaper_vbuf_accept(&w->vbuf, w->fd, id, false);
        }
        if (shaper_sched_push(&w->sched, id, len, due) < 0) {
                w->st.overflow++;
                return shaper_vbuf_accept(&w->vbuf, w->fd, id, false);
        }
        w->st.held_max = MAX(w->st.held_max, (uint64_t)w->sched.n);
        return 0;
}

static int on_msg(const struct shaper_msg *m, void *data) {
        struct worker *w = data;

        switch (m->kind) {
        case SHAPER_MSG_PACKET: return handle_packet(w, m->id, m->len);
        case SHAPER_MSG_ERROR:
                if (m->seq != STOP_SEQ)
                        w->st.errors++;
                _fallthrough_;
        case SHAPER_MSG_ACK:
                if (m->seq == STOP_SEQ)
                        w->stop_acked = true;
                return 0;
        case SHAPER_MSG_BAD: w->st.errors++; return 0;
        default: return 0;
        }
}

/* Reads what the socket holds (bounded), decides each packet and sends the
 * verdicts of those that pass at once. */
static int read_round(struct worker *w) {
        for (unsigned i = 0; i < RECV_ROUND_MAX; i++) {
                ssize_t n = recv(w->fd, w->rbuf, sizeof(w->rbuf), MSG_DONTWAIT);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        break;
                if (n < 0 && errno == ENOBUFS) {
                        w->st.rx_overruns++;
                        continue;
                }
                if (n <= 0)
                        return n < 0 ? negative_errno() : -ECONNRESET;
                int r = shaper_msg_walk(w->rbuf, (size_t)n, on_msg, w);
                if (r < 0)
                        return r;
        }
        return shaper_vbuf_flush(&w->vbuf, w->fd);
}

/* Takes one round off the schedule and accepts it: one batch verdict for the
 * packets older than everything still held, one verdict for each other. */
static int release_once(struct worker *w, bool all, size_t *ret_n) {
        struct shaper_release rel;
        int r = 0;

        shaper_sched_take(&w->sched, now_ns(), all, w->out, RELEASE_MAX, &rel);
        if (rel.batch_n > 0)
                r = shaper_vbuf_accept(&w->vbuf, w->fd, rel.batch_id, true);
        for (size_t i = rel.batch_n; r >= 0 && i < rel.n; i++)
                r = shaper_vbuf_accept(&w->vbuf, w->fd, w->out[i].id, false);
        if (r >= 0)
                r = shaper_vbuf_flush(&w->vbuf, w->fd);
        uint64_t sent = now_ns();
        for (size_t i = 0; !all && i < rel.n && w->n_late < RELEASE_MAX; i++)
                w->late_us[w->n_late++] = sent > w->out[i].due_ns ? (sent - w->out[i].due_ns) / 1000 : 0;
        if (all)
                w->st.flushed += rel.n;
        else
                w->st.released += rel.n;
        *ret_n = rel.n;
        return r;
}

static int release(struct shaper *s, struct worker *w, bool all) {
        for (unsigned round = 0; round < RELEASE_ROUNDS_MAX; round++) {
                size_t n;
                int r = release_once(w, all, &n);
                if (n > 0)
                        publish(s, w);
                if (r < 0 || n < RELEASE_MAX)
                        return r;
        }
        return 0;
}

static struct timespec *poll_timeout(const struct worker *w, struct timespec *ts) {
        uint64_t due, now = now_ns();
        if (!shaper_sched_next_due(&w->sched, &due))
                return NULL;
        uint64_t wait = due > now ? due - now : 0;
        *ts = (struct timespec){ .tv_sec = (time_t)(wait / NS_PER_SEC),
                                 .tv_nsec = (long)(wait % NS_PER_SEC) };
        return ts;
}

/* Until a stop request or a fatal socket error. */
static int run(struct shaper *s, struct worker *w) {
        for (;;) {
                int r = release(s, w, false);
                if (r < 0)
                        return r;
                publish(s, w);
                struct pollfd p[2] = { { .fd = w->fd, .events = POLLIN },
                                       { .fd = s->event_fd, .events = POLLIN } };
                struct timespec ts;
                if (ppoll(p, 2, poll_timeout(w, &ts), NULL) < 0 && errno != EINTR)
                        return negative_errno();
                if (atomic_load(&s->stop_requested))
                        return 0;
                if (p[0].revents & POLLNVAL)
                        return -EBADF;
                if (p[0].revents) {
                        sync_config(s, w);
                        r = read_round(w);
                        if (r < 0)
                                return r;
                }
        }
}

/* maxlen 0 with fail-open: new packets pass the queue. Everything queued
 * before the kernel took that is in the socket ahead of its ACK: read it all,
 * accepting each packet, then accept what is held. */
static int drain(struct shaper *s, struct worker *w) {
        uint64_t deadline = now_ns() + STOP_WAIT_NS;
        int r;

        w->stopping = true;
        r = shaper_queue_send_maxlen(w->fd, w->vbuf.queue_num, 0, STOP_SEQ);
        while (r >= 0 && !w->stop_acked) {
                uint64_t now = now_ns();
                if (now >= deadline)
                        break;
                struct timespec ts = { .tv_sec = (time_t)((deadline - now) / NS_PER_SEC),
                                       .tv_nsec = (long)((deadline - now) % NS_PER_SEC) };
                struct pollfd p = { .fd = w->fd, .events = POLLIN };
                if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR)
                        r = negative_errno();
                else
                        r = read_round(w);
        }
        int k = release(s, w, true);
        return r < 0 ? r : k;
}

static void *thread_main(void *arg) {
        struct shaper *s = arg;
        struct worker *w = s->w;

        /* ppoll's wakeups land within the timer slack (50 µs by default). */
        (void)prctl(PR_SET_TIMERSLACK, 1ul, 0, 0, 0);
        int r = run(s, w);
        int k = drain(s, w);
        publish(s, w);
        /* Closing the socket destroys the queue: bypass from here on. */
        close(TAKE_FD(w->fd));
        pthread_mutex_lock(&s->lock);
        s->result = r < 0 ? r : k;
        pthread_mutex_unlock(&s->lock);
        return NULL;
}

/* ---- the caller's side ---- */

static uint64_t seed(void) {
        uint64_t x;
        if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
                return x;
        return now_ns() ^ (uint64_t)getpid() << 32;
}

static struct shaper *shaper_new(int fd, uint16_t queue_num, const struct shaper_config *config) {
        struct shaper *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->event_fd = -EBADF;
        pthread_mutex_init(&s->lock, NULL);
        pthread_mutex_init(&s->stop_lock, NULL);
        s->config = *config;
        s->w = calloc(1, sizeof(*s->w));
        if (!s->w)
                return shaper_free(s);
        s->w->fd = fd;
        s->w->config = *config;
        s->w->vbuf.queue_num = queue_num;
        shaper_plan_init(&s->w->plan, seed());
        if (shaper_sched_init(&s->w->sched, config->limit_packets, config->limit_bytes) < 0)
                return shaper_free(s);
        s->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (s->event_fd < 0)
                return shaper_free(s);
        return s;
}

static int thread_spawn(struct shaper *s) {
        sigset_t all, old;
        sigfillset(&all);
        /* Born with every signal blocked: no window before it blocks them. */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int r = -pthread_create(&s->thread, NULL, thread_main, s);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0)
                s->started = true;
        return r;
}

int shaper_start(
        int fd, uint16_t queue_num, const struct shaper_config *config, struct shaper **ret,
        struct mh_error *reterr) {
        _cleanup_close_ int owned = fd;
        _cleanup_(shaper_freep) struct shaper *s = NULL;
        int r;

        r = shaper_config_validate(config, reterr);
        if (r < 0)
                return r;
        s = shaper_new(-EBADF, queue_num, config);
        if (!s)
                return mh_error_fail(reterr, -ENOMEM, "nfqueue", "shaper: out of memory");
        s->w->fd = TAKE_FD(owned);
        r = thread_spawn(s);
        if (r < 0)
                return mh_error_fail(reterr, r, "nfqueue", "shaper thread: %s", strerror(-r));
        *ret = TAKE_PTR(s);
        return 0;
}

int shaper_update(struct shaper *s, const struct shaper_config *config, struct mh_error *reterr) {
        int r = shaper_config_validate(config, reterr);
        if (r < 0)
                return r;
        pthread_mutex_lock(&s->lock);
        s->config = *config;
        s->config_gen++;
        pthread_mutex_unlock(&s->lock);
        return 0;
}

void shaper_stats(struct shaper *s, struct shaper_stats *ret) {
        pthread_mutex_lock(&s->lock);
        *ret = s->stats;
        ret->late_samples = s->hist.n;
        ret->late_p50_us = shaper_hist_percentile(&s->hist, 50);
        ret->late_p99_us = shaper_hist_percentile(&s->hist, 99);
        ret->late_max_us = (double)s->hist.max_us;
        pthread_mutex_unlock(&s->lock);
}

int shaper_stop(struct shaper *s) {
        pthread_mutex_lock(&s->stop_lock);
        if (s->started && !s->joined) {
                uint64_t one = 1;
                atomic_store(&s->stop_requested, true);
                (void)!write(s->event_fd, &one, sizeof(one));
                pthread_join(s->thread, NULL);
                s->joined = true;
        }
        pthread_mutex_lock(&s->lock);
        int r = s->result;
        pthread_mutex_unlock(&s->lock);
        pthread_mutex_unlock(&s->stop_lock);
        return r;
}

struct shaper *shaper_free(struct shaper *s) {
        if (!s)
                return NULL;
        (void)shaper_stop(s);
        if (s->w) {
                if (s->w->fd >= 0)
                        close(s->w->fd);
                shaper_sched_done(&s->w->sched);
                free(s->w);
        }
        if (s->event_fd >= 0)
                close(s->event_fd);
        pthread_mutex_destroy(&s->stop_lock);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
}
