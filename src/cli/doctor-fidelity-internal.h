#pragma once

/* Between doctor-fidelity.c (the throwaway container, the runs, the table)
 * and the figures it measures: doctor-fidelity-net.c (from the host's
 * side of the container's network) and doctor-fidelity-proc.c (its
 * service, its processes and its cgroup's counters). */

#include <stdbool.h>
#include <sys/types.h>

#include "engine/engine.h"

#define FIDELITY_PORT 8080
#define FIDELITY_CPUS 0.5           /* the container's CPU limit: cpu.saturate's allowance */
#define FIDELITY_MEM  (256ll << 20) /* its memory limit: mem.exhaust's room */

struct fidelity_env {
        char dir[64], compose[96], db[96], name[64], ip[64];
        bool image_built; /* name:latest may exist: ours to remove */
        struct engine *engine;
        char id[ENGINE_ID_MAX];
        bool podman; /* the run gets -p */
};

/* What one fault achieved, as the table prints it. measured false: the
 * figure could not be read here (said in achieved), which is no miss. */
struct fidelity_figure {
        char achieved[96], tolerance[64];
        bool within, measured;
};

/* doctor-fidelity-image.c: the image name:latest, labelled label=1, of
 * mayhem's static target; a missing target is a configuration error. */
int fidelity_image_build(struct engine *e, const char *name, const char *label, struct mh_error *reterr);

struct fidelity_case;
/* Read before the run starts (a baseline; NAN when unreadable). */
typedef double fidelity_before_fn(const struct fidelity_env *env);
/* Called once the run says the fault is injected; run is its pid, still
 * holding the fault. */
typedef void fidelity_measure_fn(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f);

/* Called once the run has ended, to finish the figure; may update env
 * (the container's address after a restart). */
typedef void fidelity_after_fn(struct fidelity_env *env, double before, struct fidelity_figure *f);

struct fidelity_case {
        const char *fault;
        const char *params; /* drill YAML flow-mapping entries */
        int hold_s;
        const char *requested; /* as printed */
        double want;           /* the figure requested, in the unit the measure reads */
        fidelity_before_fn *before;
        fidelity_measure_fn *measure;
        fidelity_after_fn *after;
};

fidelity_before_fn fidelity_median_rtt, fidelity_full_size_answered;
fidelity_measure_fn fidelity_added_rtt, fidelity_spoiled, fidelity_duplicated, fidelity_reordered,
        fidelity_rate, fidelity_cut_off, fidelity_refused, fidelity_reset, fidelity_mtu;

fidelity_before_fn fidelity_cpu_idle, fidelity_memory_used, fidelity_main_pid;
fidelity_measure_fn fidelity_unanswered, fidelity_descriptors, fidelity_cpu_added, fidelity_memory_added,
        fidelity_killed;
fidelity_after_fn fidelity_restarted;

/* Whether the run pid has exited; not reaped, so its exit code stays for
 * the caller's waitpid. */
bool fidelity_run_over(pid_t run);
double fidelity_now_s(void);
