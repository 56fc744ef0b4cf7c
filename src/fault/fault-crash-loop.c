#include "fault.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* process.crash_loop: the container is killed and started again, restarts
 * times, one every interval, by a thread of the process that applied it,
 * until crash_loop.stop (the first undo op) or the process exits. A recovery
 * in a new process finds no loop to stop and simply starts the container. */

#define CRASH_LOOPS_MAX 64

struct crash_loop {
        char container_id[ENGINE_ID_MAX];
        struct engine *engine;
        int restarts;
        double interval_ms;
        bool stop;
        pthread_t thread;
};

static pthread_mutex_t loops_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t loops_wake = PTHREAD_COND_INITIALIZER;
static struct crash_loop *loops[CRASH_LOOPS_MAX];

/* Waits ms unless the loop is told to stop; false when stopping. */
static bool loop_wait(struct crash_loop *l, double ms) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long long ns = (long long)ts.tv_nsec + (long long)(ms * 1e6);
        ts.tv_sec += (time_t)(ns / 1000000000LL);
        ts.tv_nsec = (long)(ns % 1000000000LL);
        pthread_mutex_lock(&loops_lock);
        while (!l->stop && pthread_cond_timedwait(&loops_wake, &loops_lock, &ts) == 0)
                ;
        bool go_on = !l->stop;
        pthread_mutex_unlock(&loops_lock);
        return go_on;
}

static void *crash_loop_thread(void *arg) {
        struct crash_loop *l = arg;
        for (int i = 0; i < l->restarts; i++) {
                engine_container_kill(l->engine, l->container_id, "SIGKILL", NULL);
                bool go_on = loop_wait(l, l->interval_ms / 2);
                engine_container_start(l->engine, l->container_id, NULL); /* never leave it down */
                if (!go_on || !loop_wait(l, l->interval_ms / 2))
                        break;
        }
        return NULL;
}

int fault_apply_crash_loop(struct fault_exec *fx, struct mh_error *reterr) {
        struct crash_loop *l = calloc(1, sizeof(*l));
        size_t slot = CRASH_LOOPS_MAX;
        if (!l)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        memcpy(l->container_id, fx->target.container_id, sizeof(l->container_id));
        l->engine = fx->engine;
        l->restarts = (int)fault_param_num(fx, "restarts", 10);
        l->interval_ms = fault_param_num(fx, "interval", 2000);
        pthread_mutex_lock(&loops_lock);
        for (size_t i = 0; i < CRASH_LOOPS_MAX && slot == CRASH_LOOPS_MAX; i++)
                if (!loops[i] || strcmp(loops[i]->container_id, l->container_id) == 0)
                        slot = loops[i] ? CRASH_LOOPS_MAX + 1 : i;
        int e = slot < CRASH_LOOPS_MAX ? pthread_create(&l->thread, NULL, crash_loop_thread, l) : EBUSY;
        if (e == 0)
                loops[slot] = l;
        pthread_mutex_unlock(&loops_lock);
        if (e != 0) {
                free(l);
                return mh_error_fail(
                        reterr, -e, "crash_loop", "cannot start a crash loop on %s: %s",
                        fx->target.container_name,
                        e == EBUSY ? "one is already running or too many are" : strerror(e));
        }
        return 0;
}

int crash_loop_stop(const char *container_id) {
        struct crash_loop *l = NULL;
        pthread_mutex_lock(&loops_lock);
        for (size_t i = 0; i < CRASH_LOOPS_MAX && !l; i++)
                if (loops[i] && strcmp(loops[i]->container_id, container_id) == 0) {
                        l = loops[i];
                        loops[i] = NULL;
                        l->stop = true;
                        pthread_cond_broadcast(&loops_wake);
                }
        pthread_mutex_unlock(&loops_lock);
        if (!l)
                return 0; /* never started here, or already stopped: nothing to do */
        pthread_join(l->thread, NULL);
        free(l);
        return 0;
}
