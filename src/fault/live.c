#include "live.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"

struct record {
        char lease_id[64];
        const struct fault_mechanism *mech;
        void *live;
};

struct fault_lives {
        pthread_mutex_t lock;
        struct record records[FAULT_LIVES_MAX];
};

struct fault_lives *fault_lives_new(void) {
        struct fault_lives *l = calloc(1, sizeof(*l));
        if (!l)
                return NULL;
        pthread_mutex_init(&l->lock, NULL);
        return l;
}

static struct record *find_locked(struct fault_lives *l, const char *lease_id) {
        for (size_t i = 0; i < FAULT_LIVES_MAX; i++)
                if (l->records[i].live && strcmp(l->records[i].lease_id, lease_id) == 0)
                        return &l->records[i];
        return NULL;
}

int fault_live_put(
        struct fault_lives *l, const char *lease_id, const struct fault_mechanism *m, void *live) {
        int r = -ENOSPC;
        pthread_mutex_lock(&l->lock);
        if (find_locked(l, lease_id))
                r = -EEXIST;
        for (size_t i = 0; i < FAULT_LIVES_MAX && r == -ENOSPC; i++)
                if (!l->records[i].live) {
                        l->records[i] = (struct record){ .mech = m, .live = live };
                        snprintf(l->records[i].lease_id, sizeof(l->records[i].lease_id), "%s", lease_id);
                        r = 0;
                }
        pthread_mutex_unlock(&l->lock);
        return r;
}

void *fault_live_take(struct fault_lives *l, const char *lease_id) {
        void *live = NULL;
        pthread_mutex_lock(&l->lock);
        struct record *rec = find_locked(l, lease_id);
        if (rec) {
                live = rec->live;
                *rec = (struct record){ 0 };
        }
        pthread_mutex_unlock(&l->lock);
        return live;
}

bool fault_live_with(
        struct fault_lives *l, const char *lease_id, void (*fn)(void *live, void *arg), void *arg) {
        pthread_mutex_lock(&l->lock);
        struct record *rec = find_locked(l, lease_id);
        if (rec && fn)
                fn(rec->live, arg);
        pthread_mutex_unlock(&l->lock);
        return rec != NULL;
}

size_t fault_lives_count(struct fault_lives *l) {
        size_t n = 0;
        pthread_mutex_lock(&l->lock);
        for (size_t i = 0; i < FAULT_LIVES_MAX; i++)
                n += l->records[i].live != NULL;
        pthread_mutex_unlock(&l->lock);
        return n;
}

struct fault_lives *fault_lives_free(struct fault_lives *l) {
        if (!l)
                return NULL;
        for (size_t i = 0; i < FAULT_LIVES_MAX; i++) {
                pthread_mutex_lock(&l->lock);
                struct record rec = l->records[i];
                l->records[i] = (struct record){ 0 };
                pthread_mutex_unlock(&l->lock);
                if (rec.live && rec.mech && rec.mech->release)
                        rec.mech->release(rec.live);
        }
        pthread_mutex_destroy(&l->lock);
        free(l);
        return NULL;
}
