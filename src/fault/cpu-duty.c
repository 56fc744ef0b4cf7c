#include "cpu-duty.h"

#include <math.h>

unsigned cpu_burners(double allowance_cpus) {
        double n = ceil(allowance_cpus - 1e-9);
        return n < 1 ? 1 : n > CPU_BURNERS_MAX ? CPU_BURNERS_MAX : (unsigned)n;
}

static double clamp(double v, double lo, double hi) {
        return v < lo ? lo : v > hi ? hi : v;
}

void cpu_duty_init(struct cpu_duty *d, double allowance_cpus, double percent) {
        d->threads = cpu_burners(allowance_cpus);
        d->target = allowance_cpus * percent / 100.0;
        d->integral = 0;
        d->duty = clamp(d->target / d->threads, 0, 1);
}

double cpu_duty_step(struct cpu_duty *d, double used_cpus, double dt_s) {
        double bound = 0.5 * d->target * CPU_DUTY_TAU_S;
        d->integral = clamp(d->integral + (d->target - used_cpus) * dt_s, -bound, bound);
        double want = d->target + d->integral / CPU_DUTY_TAU_S;
        d->duty = clamp(want / d->threads, 0, 1);
        return d->duty;
}

double cpu_share_pct(double cpu_ns, double window_ns, double allowance_cpus) {
        return window_ns > 0 && allowance_cpus > 0 ? 100.0 * cpu_ns / (window_ns * allowance_cpus) : 0;
}

enum cpu_verdict cpu_verdict(double ours_pct, double cgroup_pct, double wanted_pct) {
        if (fabs(ours_pct - wanted_pct) <= CPU_LOOK_TOL_PTS)
                return CPU_VERDICT_ON;
        if (ours_pct < wanted_pct && cgroup_pct >= CPU_BINDING_PCT)
                return CPU_VERDICT_BINDING;
        return CPU_VERDICT_OFF;
}
