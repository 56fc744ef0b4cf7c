#include "run-internal.h"

/* Late means begun more than 10% of the cadence or more than 50 ms after
 * the slot, whichever is less: a 5 s cadence tolerates 50 ms, 100 ms 10 ms;
 * a once-only source 50 ms. */
double cadence_late_ms(double period_ms) {
        return period_ms > 0 ? MIN(period_ms / 10, 50.0) : 50.0;
}

void cadence_init(struct cadence *c, double start_ms, double period_ms) {
        *c = (struct cadence){ .start_ms = start_ms, .period_ms = period_ms > 0 ? period_ms : 0 };
}

static double slot_due(const struct cadence *c, uint64_t slot) {
        return c->start_ms + (double)slot * c->period_ms;
}

double cadence_due_ms(const struct cadence *c) {
        if (c->period_ms == 0 && c->once_done)
                return INFINITY;
        return slot_due(c, c->slot);
}

bool cadence_begin(struct cadence *c, double now_ms) {
        double due = cadence_due_ms(c);
        if (now_ms < due)
                return false;
        if (c->period_ms > 0) {
                /* the latest slot already due: the ones before it are gone */
                uint64_t latest = (uint64_t)((now_ms - c->start_ms) / c->period_ms);
                if (latest > c->slot) {
                        c->skipped += latest - c->slot;
                        c->slot = latest;
                        due = slot_due(c, latest);
                }
        }
        if (now_ms - due > cadence_late_ms(c->period_ms))
                c->late++;
        c->samples++;
        return true;
}

void cadence_end(struct cadence *c, double end_ms) {
        if (c->period_ms == 0) {
                c->once_done = true;
                return;
        }
        /* The next slot is the first one still takeable in time when the
         * sample ended; the ones that came due while it ran are skipped. */
        double tol = cadence_late_ms(c->period_ms), from = end_ms - tol - c->start_ms;
        uint64_t next = from > 0 ? (uint64_t)(from / c->period_ms) : 0;
        if (slot_due(c, next) + tol < end_ms)
                next++;
        if (next <= c->slot)
                next = c->slot + 1;
        c->skipped += next - c->slot - 1;
        c->slot = next;
}
