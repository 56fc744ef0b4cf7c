#pragma once

/* cpu.saturate's arithmetic, no I/O (so a unit test walks it): how many
 * burner threads an allowance needs, the closed loop that sets their duty
 * cycle from the CPU time the payload measured it used, and the effect
 * check's verdict on a measured share. */

#include <stdbool.h>

#define CPU_BURNERS_MAX 256
/* The effect check's window and the tolerance its verdict allows (points
 * of the allowance); the integration test holds 10 s windows to +-5. */
#define CPU_LOOK_MS      1000
#define CPU_LOOK_TOL_PTS 10.0
/* A cgroup using this share of its allowance or more is at its quota. */
#define CPU_BINDING_PCT 95.0

struct cpu_duty {
        double target;    /* CPUs the payload should use: percent of the allowance */
        unsigned threads; /* burners: ceil(allowance) */
        double integral;  /* CPU-seconds short of target so far (clamped) */
        double duty;      /* each burner's busy share of its slice, 0..1 */
};

/* ceil(allowance_cpus), at least 1, at most CPU_BURNERS_MAX. */
unsigned cpu_burners(double allowance_cpus);
/* The loop's start: no error yet, duty = target / threads. */
void cpu_duty_init(struct cpu_duty *d, double allowance_cpus, double percent);
/* One step: the payload used used_cpus (CPU seconds per second) over the
 * last dt_s seconds. Integral control on the shortfall, with a time
 * constant of CPU_DUTY_TAU_S and the integral clamped to half the target
 * (no wind-up while the quota binds: when the app gives CPU back, the
 * burners do not overshoot for seconds). Returns the new duty. */
#define CPU_DUTY_TAU_S 1.0
double cpu_duty_step(struct cpu_duty *d, double used_cpus, double dt_s);

/* share of an allowance, in percent, of cpu_ns CPU time over window_ns. */
double cpu_share_pct(double cpu_ns, double window_ns, double allowance_cpus);

enum cpu_verdict {
        CPU_VERDICT_ON,      /* ours within CPU_LOOK_TOL_PTS of wanted */
        CPU_VERDICT_BINDING, /* ours short, but the cgroup is at its quota: all that is left */
        CPU_VERDICT_OFF,     /* ours off the mark with CPU to spare */
};
enum cpu_verdict cpu_verdict(double ours_pct, double cgroup_pct, double wanted_pct);
