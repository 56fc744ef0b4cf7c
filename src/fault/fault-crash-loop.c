#include "fault-internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault/live.h"

/* process.crash_loop: the container is killed and started again, restarts
 * times, one every interval, by a thread the agent holds for the lease (its
 * record in fault_lives) until crash_loop.stop (the first undo op) or the
 * agent exits. A recovery in a new agent finds no loop to stop and simply
 * starts the container (engine.start, the second undo op). */

struct crash_loop {
        char container_id[ENGINE_ID_MAX];
        struct engine *engine;
        int64_t restarts, interval_ms;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        bool stop;
        pthread_t thread;
};

/* Waits ms unless the loop is told to stop; false when stopping. */
static bool loop_wait(struct crash_loop *l, int64_t ms) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)ms * 1000000LL;
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        pthread_mutex_lock(&l->lock);
        while (!l->stop && pthread_cond_timedwait(&l->wake, &l->lock, &ts) == 0)
                ;
        bool go_on = !l->stop;
        pthread_mutex_unlock(&l->lock);
        return go_on;
}

static void *loop_main(void *arg) {
        struct crash_loop *l = arg;
        for (int64_t i = 0; i < l->restarts; i++) {
                engine_container_kill(l->engine, l->container_id, "SIGKILL", NULL);
                bool go_on = loop_wait(l, l->interval_ms / 2);
                engine_container_start(l->engine, l->container_id, NULL); /* never leave it down */
                if (!go_on || !loop_wait(l, l->interval_ms / 2))
                        break;
        }
        return NULL;
}

/* Stops the cadence and joins it; the container is left started. */
static void loop_release(void *live) {
        struct crash_loop *l = live;
        pthread_mutex_lock(&l->lock);
        l->stop = true;
        pthread_cond_broadcast(&l->wake);
        pthread_mutex_unlock(&l->lock);
        pthread_join(l->thread, NULL);
        pthread_cond_destroy(&l->wake);
        pthread_mutex_destroy(&l->lock);
        free(l);
}

extern const struct fault_mechanism fault_crash_loop;

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        if (!fx->engine)
                return mh_error_fail(
                        reterr, -EINVAL, "no_engine", "process.crash_loop needs a container engine");
        struct crash_loop *l = calloc(1, sizeof(*l));
        if (!l)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        memcpy(l->container_id, fx->target.container_id, sizeof(l->container_id));
        l->engine = fx->engine;
        l->restarts = fault_param(fx, "restarts")->i;
        l->interval_ms = fault_param(fx, "interval")->i;
        pthread_mutex_init(&l->lock, NULL);
        pthread_cond_init(&l->wake, NULL);
        int e = pthread_create(&l->thread, NULL, loop_main, l);
        if (e != 0) {
                pthread_cond_destroy(&l->wake);
                pthread_mutex_destroy(&l->lock);
                free(l);
                return mh_error_fail(
                        reterr, -e, "crash_loop", "cannot start a crash loop on %s: %s",
                        fx->target.container_name, strerror(e));
        }
        int r = fault_live_put(fx->lives, fx->lease_id, &fault_crash_loop, l);
        if (r < 0) {
                loop_release(l);
                return mh_error_fail(
                        reterr, r, "crash_loop", "lease %s: %s", fx->lease_id,
                        r == -EEXIST ? "already applied" : "too many faults in force");
        }
        return 0;
}

/* Never started here, or already stopped: nothing to do. */
static int undo_stop(const struct fault_exec *fx, struct mh_error *reterr) {
        void *l = fault_live_take(fx->lives, fx->lease_id);
        if (l)
                loop_release(l);
        return 0;
}

const struct fault_mechanism fault_crash_loop = {
        .name = "crash-loop",
        .apply = apply,
        .undo = { { "crash_loop.stop", undo_stop }, { "engine.start", fault_engine_start } },
        .verify = { { "container.running", fault_container_running } },
        .effect = { { "container.restarted", fault_container_restarted } },
        .release = loop_release,
};
