#include "server-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Leases the agent lets go of on its own (a TTL passed, stdin closed, a
 * signal) are undone on a thread each, all at once: one whose undo hangs (an
 * engine that does not answer, a mechanism stuck) holds up no other, and the
 * agent waits for them all only up to a bound. */

struct compensation {
        struct agent_state *s;
        struct agent_lease lease;
        char why[96];
};

static void *compensate_main(void *arg) {
        struct compensation *c = arg;
        struct agent_state *s = c->s;
        agent_compensate(s, &c->lease, c->why);
        agent_lease_done(&c->lease);
        free(c);
        pthread_mutex_lock(&s->lock);
        s->compensating--;
        pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->lock);
        return NULL;
}

void agent_compensate_start(struct agent_state *s, struct agent_lease *l, const char *why) {
        struct compensation *c = malloc(sizeof(*c));
        if (!c) {
                agent_compensate(s, l, why);
                agent_lease_done(l);
                return;
        }
        *c = (struct compensation){ .s = s, .lease = *l }; /* its references with it */
        snprintf(c->why, sizeof(c->why), "%s", why);
        pthread_mutex_lock(&s->lock);
        s->compensating++;
        pthread_mutex_unlock(&s->lock);
        pthread_attr_t attr;
        pthread_t t;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, compensate_main, c) != 0)
                compensate_main(c); /* no thread to be had: in line */
        pthread_attr_destroy(&attr);
}

void agent_wait_until_locked(struct agent_state *s, double deadline_ms) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double left_ms = deadline_ms - monotonic_ms();
        if (left_ms <= 0)
                return;
        long long ns = (long long)ts.tv_nsec + (long long)(left_ms * 1e6);
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        pthread_cond_timedwait(&s->idle, &s->lock, &ts);
}

size_t agent_compensations_wait(struct agent_state *s, double deadline_ms) {
        pthread_mutex_lock(&s->lock);
        while (s->compensating > 0 && monotonic_ms() < deadline_ms)
                agent_wait_until_locked(s, deadline_ms);
        size_t left = s->compensating;
        pthread_mutex_unlock(&s->lock);
        return left;
}
