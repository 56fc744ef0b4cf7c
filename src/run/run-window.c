#include "run-internal.h"

void fault_windows_init(struct fault_window *w, size_t n) {
        for (size_t i = 0; i < n; i++)
                w[i] = (struct fault_window){
                        .sent = INFINITY, .held_from = INFINITY, .held_until = INFINITY, .undone = INFINITY
                };
}

void runner_window_mark(struct runner *r, const struct plan_fault *f, enum window_mark m) {
        size_t i = (size_t)(f - r->plan->faults);
        if (!r->windows || i >= r->plan->n_faults)
                return;
        pthread_mutex_lock(&r->lock);
        double now = monotonic_ms();
        struct fault_window *w = &r->windows[i];
        double *at = m == WINDOW_MARK_SENT      ? &w->sent
                     : m == WINDOW_MARK_HELD    ? &w->held_from
                     : m == WINDOW_MARK_UNDOING ? &w->held_until
                                                : &w->undone;
        if (isinf(*at)) /* the first time counts */
                *at = now;
        pthread_mutex_unlock(&r->lock);
}

/* Held from the agent's "applied" until the undo was sent; a fault never
 * undone (kept, or its agent lost) is held to the end of the run. */
static bool held_at(const struct fault_window *w, double t, double *ret_until) {
        if (isinf(w->held_from) || t < w->held_from || t >= w->held_until)
                return false;
        *ret_until = w->held_until;
        return true;
}

/* [began, end] inside the union of the held intervals: walk from began
 * through intervals that overlap, at most n steps. */
static bool during(const struct fault_window *w, size_t n, double began, double end) {
        double at = began;
        for (size_t step = 0; step <= n; step++) {
                double reach = at;
                for (size_t i = 0; i < n; i++) {
                        double until;
                        if (held_at(&w[i], at, &until) && until > reach)
                                reach = until;
                }
                if (reach == at)
                        return false;
                if (reach >= end)
                        return true;
                at = reach;
        }
        return false;
}

static bool after(const struct fault_window *w, size_t n, double began) {
        double last = -INFINITY;
        for (size_t i = 0; i < n; i++) {
                if (isinf(w[i].sent))
                        continue; /* never sent: it touched nothing */
                if (isinf(w[i].undone))
                        return false; /* kept, dirty or lost: there is no after */
                last = MAX(last, w[i].undone);
        }
        return !isinf(last) && began >= last;
}

bool fault_windows_contain(
        const struct fault_window *w, size_t n, enum criterion_window which, double began_ms,
        double end_ms) {
        double first = INFINITY;
        switch (which) {
        case CRITERION_WINDOW_BASELINE:
                for (size_t i = 0; i < n; i++)
                        first = MIN(first, w[i].sent);
                return end_ms < first;
        case CRITERION_WINDOW_DURING: return during(w, n, began_ms, end_ms);
        case CRITERION_WINDOW_AFTER: return after(w, n, began_ms);
        default: return true;
        }
}
