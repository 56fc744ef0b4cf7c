#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "basic/clock.h"
#include "fault/payload.h"

/* cpu.saturate: busy threads in the target's cgroup. FIRST CUT (framework
 * check): open loop, one thread per online CPU busy percent of each 10 ms.
 * To be replaced by the closed loop on the cgroup's own usage. */

#define SLICE_MS 10.0

static atomic_bool stopping;
static double duty;

static void *burn(void *arg) {
        (void)arg;
        while (!atomic_load(&stopping)) {
                double start = monotonic_ms();
                while (monotonic_ms() - start < SLICE_MS * duty)
                        ;
                sleep_ms((int)(SLICE_MS * (1.0 - duty)));
        }
        return NULL;
}

static int body(struct payload_ctx *c, struct mh_error *reterr) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        pthread_t t[64];
        size_t n = 0;
        duty = fault_param(c->fx, "percent")->f / 100.0;
        for (long i = 0; i < cpus && n < 64; i++)
                if (pthread_create(&t[n], NULL, burn, NULL) == 0)
                        n++;
        if (n == 0)
                return mh_error_fail(reterr, -EAGAIN, "payload", "no burner thread could be created");
        payload_ready(c, "%zu burner threads at %.0f%%", n, duty * 100);
        while (!payload_stopped(c, 1000))
                ;
        atomic_store(&stopping, true);
        for (size_t i = 0; i < n; i++)
                pthread_join(t[i], NULL);
        return 0;
}

const struct fault_mechanism fault_payload_cpu = {
        .name = "payload.cpu",
        .apply = fault_payload_apply,
        .undo = { { "payload.kill", fault_payload_kill } },
        .verify = { { "payload.gone", fault_payload_gone } },
        .effect = { { "payload.running", fault_payload_running } },
        .release = fault_payload_release,
        .payload = body,
};
