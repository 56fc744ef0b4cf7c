#include "run-internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

_printf_(2, 0) static void set_reason(struct runner *r, const char *fmt, va_list ap) {
        if (!r->reason[0])
                vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
}

_printf_(3, 0) static void stop_va(struct runner *r, bool interrupted, const char *fmt, va_list ap) {
        pthread_mutex_lock(&r->lock);
        set_reason(r, fmt, ap);
        atomic_store(&r->abort, true);
        r->failed = true;
        r->interrupted = r->interrupted || interrupted;
        pthread_cond_broadcast(&r->wake);
        pthread_mutex_unlock(&r->lock);
}

void runner_abort(struct runner *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        stop_va(r, false, fmt, ap);
        va_end(ap);
}

void runner_interrupt(struct runner *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        stop_va(r, true, fmt, ap);
        va_end(ap);
}

void runner_fail(struct runner *r, const char *fmt, ...) {
        va_list ap;
        pthread_mutex_lock(&r->lock);
        va_start(ap, fmt);
        set_reason(r, fmt, ap);
        va_end(ap);
        r->failed = true;
        pthread_mutex_unlock(&r->lock);
}

void runner_refused(struct runner *r, const char *fmt, ...) {
        va_list ap;
        pthread_mutex_lock(&r->lock);
        va_start(ap, fmt);
        set_reason(r, fmt, ap);
        va_end(ap);
        r->failed = r->refused = true;
        pthread_mutex_unlock(&r->lock);
}

bool runner_stopping(struct runner *r) {
        if (!atomic_load(&r->abort) && monotonic_ms() >= r->deadline_ms)
                runner_interrupt(r, "config.timeout of %.0fs passed", (r->deadline_ms - r->t0_ms) / 1000);
        return atomic_load(&r->abort);
}

/* Waits on the condition variable so an abort wakes every sleeper at once. */
void runner_wait_locked(struct runner *r, double until_ms) {
        struct timespec ts;
        double left = until_ms - monotonic_ms();
        if (left <= 0)
                return;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)(left * 1e6);
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        pthread_cond_timedwait(&r->wake, &r->lock, &ts);
}

bool runner_sleep(struct runner *r, double ms) {
        double until = monotonic_ms() + ms;
        pthread_mutex_lock(&r->lock);
        while (!atomic_load(&r->abort) && monotonic_ms() < until && monotonic_ms() < r->deadline_ms)
                runner_wait_locked(r, MIN(until, r->deadline_ms));
        pthread_mutex_unlock(&r->lock);
        return !runner_stopping(r);
}

/* One line to the caller's progress callback (the CLI prints it), in
 * order: the lock keeps lines of parallel lanes whole. */
void runner_progress(struct runner *r, const char *fmt, ...) {
        char line[1024];
        va_list ap;
        if (!r->opt->progress)
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        pthread_mutex_lock(&r->lock);
        r->opt->progress(r->opt->progress_userdata, line);
        pthread_mutex_unlock(&r->lock);
}

void runner_fault_phase(struct runner *r, const struct plan_fault *f, enum run_fault_phase phase) {
        if (!r->opt->on_fault)
                return;
        struct run_fault_status s = { .fault_id = f->id,
                                      .fault = f->src->def->id,
                                      .target = f->target->label,
                                      .phase = phase,
                                      .hold_until_ms = monotonic_ms() + (double)f->src->duration_ms };
        pthread_mutex_lock(&r->lock);
        r->opt->on_fault(r->opt->progress_userdata, &s);
        pthread_mutex_unlock(&r->lock);
}

void runner_probe_sampled(struct runner *r, const char *source, const struct probe_result *pr) {
        if (!r->opt->on_probe)
                return;
        struct run_probe_status s = {
                .source = source, .ok = pr->ok, .latency_ms = pr->latency_ms, .detail = pr->detail
        };
        pthread_mutex_lock(&r->lock);
        r->opt->on_probe(r->opt->progress_userdata, &s);
        pthread_mutex_unlock(&r->lock);
}

/* The journal no longer holds what happened: stop and undo everything. */
void runner_evidence_failed(struct runner *r, const char *what, const struct mh_error *e) {
        pthread_mutex_lock(&r->lock);
        bool first = !r->evidence_lost;
        r->evidence_lost = true;
        pthread_mutex_unlock(&r->lock);
        if (!first)
                return;
        runner_progress(
                r, "  [EVIDENCE] %s could not be recorded: %s; stopping and undoing every fault", what,
                e ? e->msg : "out of memory");
        runner_abort(
                r, "the evidence store failed: %s was not recorded: %.150s", what,
                e ? e->msg : "out of memory");
}

bool runner_evidence_lost(struct runner *r) {
        pthread_mutex_lock(&r->lock);
        bool lost = r->evidence_lost;
        pthread_mutex_unlock(&r->lock);
        return lost;
}

int runner_event(struct runner *r, enum evidence_event_kind kind, json_t *payload) {
        struct mh_error e = { 0 };
        char *text = payload ? json_dumps(payload, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        int x = payload && !text ? mh_error_set(&e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory")
                                 : evidence_event(r->opt->evidence, r->run_id, kind, text ? text : "{}", &e);
        if (x < 0) {
                char what[64];
                snprintf(what, sizeof(what), "the %s event", evidence_event_kind_to_string(kind));
                runner_evidence_failed(r, what, &e);
        }
        free(text);
        json_decref(payload);
        return x;
}

struct signal_waiter {
        struct runner *r;
        sigset_t set;
};

static void *signal_thread(void *arg) {
        struct signal_waiter *w = arg;
        for (;;) {
                int sig = 0;
                if (sigwait(&w->set, &sig) != 0)
                        continue;
                if (sig == SIGUSR2) /* runner_signals_stop(): the run is over */
                        break;
                runner_progress(w->r, "received %s: stopping, undoing every active fault", strsignal(sig));
                runner_interrupt(w->r, "interrupted by %s", strsignal(sig));
        }
        free(w);
        return NULL;
}

/* SIGINT/SIGTERM are blocked in every thread of the run and taken by one
 * waiter thread, which turns them into an abort: undo still runs. */
int runner_signals_start(struct runner *r, pthread_t *ret_thread, sigset_t *ret_old) {
        struct signal_waiter *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->r = r;
        sigemptyset(&w->set);
        sigaddset(&w->set, SIGINT);
        sigaddset(&w->set, SIGTERM);
        sigaddset(&w->set, SIGUSR2);
        pthread_sigmask(SIG_BLOCK, &w->set, ret_old);
        int e = pthread_create(ret_thread, NULL, signal_thread, w);
        if (e != 0) {
                pthread_sigmask(SIG_SETMASK, ret_old, NULL);
                free(w);
                return -e;
        }
        return 0;
}

void runner_signals_stop(pthread_t thread, const sigset_t *old) {
        pthread_kill(thread, SIGUSR2);
        pthread_join(thread, NULL);
        /* A SIGINT that arrived after the last undo stays pending; drop it rather
         * than die by it now that everything is restored. */
        struct timespec zero = { 0 };
        sigset_t both;
        sigemptyset(&both);
        sigaddset(&both, SIGINT);
        sigaddset(&both, SIGTERM);
        while (sigtimedwait(&both, NULL, &zero) > 0)
                ;
        pthread_sigmask(SIG_SETMASK, old, NULL);
}
