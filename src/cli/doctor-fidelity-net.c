/* doctor --fidelity's network figures, measured from the host with ICMP
 * echoes and TCP connects to the throwaway container, with the tolerances
 * of the integration tests (tests/common/net-assert.h, netprobe.c): the
 * container's egress is what its faults shape by default, so every figure
 * reads the container's answers. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "doctor-fidelity-internal.h"
#include "doctor-measure.h"

/* net.reorder's delay_ms in the table: the share not reordered is held
 * this long, the rest goes at once. */
#define REORDER_HELD_MS 50

/* net.bandwidth's echoes: payload bytes of each, under the container's
 * MTU whatever net.mtu_mismatch left. */
#define RATE_ECHO_LEN 1400

/* 99 % interval of a binomial count, as tests/common/netprobe.c's. */
static bool in_binomial(unsigned k, unsigned n, double p) {
        double sd = sqrt(n * p * (1 - p)), mean = n * p;
        return n > 0 && k >= mean - 2.576 * sd && k <= mean + 2.576 * sd;
}

/* k of n against the share the case asked for; achieved is the caller's. */
static void binomial_figure(
        struct fidelity_figure *f, const struct fidelity_case *fc, unsigned k, unsigned n) {
        f->within = in_binomial(k, n, fc->want / 100);
        snprintf(f->tolerance, sizeof(f->tolerance), "99 %% binomial interval");
}

/* Echoes every interval_us, their answers counted. false when the raw
 * socket cannot be had (said in f). */
static bool echoes(
        const struct fidelity_env *env, const struct doctor_echo_opts *o, struct doctor_echo *e,
        struct fidelity_figure *f) {
        if (doctor_echo_probe(env->ip, o, e) == 0 && e->sent > 0)
                return true;
        snprintf(f->achieved, sizeof(f->achieved), "no echo could be sent");
        return false;
}

/* 200 echoes, one every 5 ms: a baseline, or a cut-off seen whole. */
static const struct doctor_echo_opts two_hundred = { .count = 200, .interval_us = 5000, .wait_ms = 300 };

double fidelity_median_rtt(const struct fidelity_env *env) {
        struct doctor_echo e;
        return doctor_echo_probe(env->ip, &two_hundred, &e) == 0 && e.received ? e.median_ms : NAN;
}

void fidelity_added_rtt(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo_opts o = { .count = 300, .interval_us = 5000, .wait_ms = 500 };
        struct doctor_echo e;
        (void)run;
        if (!echoes(env, &o, &e, f) || e.received == 0 || isnan(before))
                return;
        double added = e.median_ms - before, tol = fmax(5.0, fc->want * 0.10);
        f->within = fabs(added - fc->want) <= tol;
        snprintf(f->achieved, sizeof(f->achieved), "+%.1f ms RTT", added);
        snprintf(f->tolerance, sizeof(f->tolerance), "±%.1f ms", tol);
}

static const struct doctor_echo_opts thousand = { .count = 1000, .interval_us = 1500, .wait_ms = 500 };

/* Echoes of 1000 not answered intact: lost, or (net.corrupt) answered with
 * a broken ICMP checksum, which the raw socket still sees; a corrupted IP
 * header is dropped by the host's kernel and counts as lost. */
void fidelity_spoiled(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo e;
        (void)before, (void)run;
        if (!echoes(env, &thousand, &e, f))
                return;
        unsigned bad = e.sent - e.received;
        binomial_figure(f, fc, bad, e.sent);
        if (e.corrupted)
                snprintf(
                        f->achieved, sizeof(f->achieved), "%.1f %% (%u bad checksum, %u lost, of %u)",
                        100.0 * bad / e.sent, e.corrupted, bad - e.corrupted, e.sent);
        else
                snprintf(
                        f->achieved, sizeof(f->achieved), "%.1f %% lost (%u of %u)", 100.0 * bad / e.sent,
                        bad, e.sent);
}

void fidelity_duplicated(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo e;
        (void)before, (void)run;
        if (!echoes(env, &thousand, &e, f) || e.received == 0)
                return;
        binomial_figure(f, fc, e.duplicates, e.received);
        snprintf(
                f->achieved, sizeof(f->achieved), "%.1f %% twice (%u of %u)",
                100.0 * e.duplicates / e.received, e.duplicates, e.received);
}

/* The share that went at once: answered faster than half the hold. */
void fidelity_reordered(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo_opts o = {
                .count = 1000, .interval_us = 2000, .wait_ms = 300, .fast_ms = before + REORDER_HELD_MS / 2.0
        };
        struct doctor_echo e;
        (void)run;
        if (isnan(before) || !echoes(env, &o, &e, f) || e.received == 0)
                return;
        binomial_figure(f, fc, e.fast, e.received);
        snprintf(
                f->achieved, sizeof(f->achieved), "%.1f %% at once (%u of %u)", 100.0 * e.fast / e.received,
                e.fast, e.received);
}

/* Full-size echoes at twice the rate the container may answer at: its
 * answers' frames (what its qdisc counts) per second over the steady
 * window 0.5 to 2.5 s, against test-net's ±15 %. */
void fidelity_rate(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        double frame_bits = (RATE_ECHO_LEN + DOCTOR_ECHO_HEADERS + 14) * 8.0;
        unsigned interval_us = (unsigned)(1e6 * frame_bits / (2 * fc->want * 1e6));
        struct doctor_echo_opts o = { .count = (unsigned)(2.5e6 / interval_us),
                                      .interval_us = interval_us,
                                      .wait_ms = 300,
                                      .len = RATE_ECHO_LEN,
                                      .window_ms = { 500, 2500 } };
        struct doctor_echo e;
        (void)before, (void)run;
        if (!echoes(env, &o, &e, f))
                return;
        double mbit = (double)e.window_bytes * 8 / 2.0 / 1e6;
        f->within = fabs(mbit - fc->want) <= 0.15 * fc->want;
        snprintf(f->achieved, sizeof(f->achieved), "%.2f Mbit/s", mbit);
        snprintf(f->tolerance, sizeof(f->tolerance), "±15 %%");
}

void fidelity_cut_off(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo e;
        (void)fc, (void)before, (void)run;
        if (!echoes(env, &two_hundred, &e, f))
                return;
        f->within = e.received == 0 && e.duplicates == 0;
        snprintf(
                f->achieved, sizeof(f->achieved), "%.1f %% lost (%u of %u)",
                100.0 * (e.sent - e.received) / e.sent, e.sent - e.received, e.sent);
        snprintf(f->tolerance, sizeof(f->tolerance), "every echo");
}

/* Connects to the service's port with a GET each, every one ending in
 * the errno the fault stands for (ECONNREFUSED: a reset to the SYN;
 * ECONNRESET: a reset once connected). */
static void tcp_outcomes(
        const struct fidelity_env *env, int want, const char *what, struct fidelity_figure *f) {
        unsigned hits = 0, tries = 20;
        for (unsigned i = 0; i < tries; i++, usleep(50000))
                hits += doctor_tcp_outcome(env->ip, FIDELITY_PORT, 300) == want;
        f->within = hits == tries;
        snprintf(f->achieved, sizeof(f->achieved), "%u of %u connects %s", hits, tries, what);
        snprintf(f->tolerance, sizeof(f->tolerance), "every connect");
}

void fidelity_refused(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        (void)fc, (void)before, (void)run;
        tcp_outcomes(env, -ECONNREFUSED, "refused", f);
}

void fidelity_reset(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        (void)fc, (void)before, (void)run;
        tcp_outcomes(env, -ECONNRESET, "reset", f);
}

/* Echoes of a 1500-byte IP packet: answered before the fault (the
 * baseline), lost while the container's link takes fc->want bytes (its veth
 * drops what exceeds the MTU), when echoes of exactly fc->want bytes are
 * still answered. */
static const struct doctor_echo_opts full_size = {
        .count = 50, .interval_us = 2000, .wait_ms = 300, .len = DOCTOR_ECHO_MAX_LEN
};

double fidelity_full_size_answered(const struct fidelity_env *env) {
        struct doctor_echo e;
        return doctor_echo_probe(env->ip, &full_size, &e) == 0 ? (double)e.received : NAN;
}

void fidelity_mtu(
        const struct fidelity_env *env, const struct fidelity_case *fc, double before, pid_t run,
        struct fidelity_figure *f) {
        struct doctor_echo_opts fits = full_size;
        struct doctor_echo over, under;
        (void)run;
        fits.len = (unsigned)fc->want - DOCTOR_ECHO_HEADERS;
        if (!echoes(env, &full_size, &over, f) || !echoes(env, &fits, &under, f))
                return;
        f->within = before == full_size.count && over.received == 0 && under.received == under.sent;
        snprintf(
                f->achieved, sizeof(f->achieved), "1500 B: %.0f/%u then %u/%u; %.0f B: %u/%u", before,
                full_size.count, over.received, over.sent, fc->want, under.received, under.sent);
        snprintf(f->tolerance, sizeof(f->tolerance), "1500 B none, %.0f B all", fc->want);
}
