#include "net-live.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "sys/nft-rule.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct net_live *live[NET_LIVE_MAX];

static int find_locked(const char *lease_id) {
        for (int i = 0; i < NET_LIVE_MAX; i++)
                if (live[i] && strcmp(live[i]->lease_id, lease_id) == 0)
                        return i;
        return -ENOENT;
}

struct net_live *net_live_add(const char *lease_id) {
        struct net_live *l = NULL;
        pthread_mutex_lock(&lock);
        for (int i = 0; i < NET_LIVE_MAX && find_locked(lease_id) < 0; i++)
                if (!live[i]) {
                        l = live[i] = calloc(1, sizeof(*l));
                        if (l) {
                                snprintf(l->lease_id, sizeof(l->lease_id), "%s", lease_id);
                                l->guard_fd = -EBADF;
                        }
                        break;
                }
        pthread_mutex_unlock(&lock);
        return l;
}

struct net_live *net_live_take(const char *lease_id) {
        struct net_live *l = NULL;
        pthread_mutex_lock(&lock);
        int i = find_locked(lease_id);
        if (i >= 0) {
                l = live[i];
                live[i] = NULL;
        }
        pthread_mutex_unlock(&lock);
        return l;
}

bool net_live_has(const char *lease_id, uint16_t *ret_queue) {
        pthread_mutex_lock(&lock);
        int i = find_locked(lease_id);
        if (i >= 0 && ret_queue)
                *ret_queue = live[i]->queue;
        pthread_mutex_unlock(&lock);
        return i >= 0;
}

/* The guardian exits at once on "release"; it is reaped here, and killed if
 * it does not go within a second. */
static void guard_release(struct net_live *l) {
        if (l->guard_fd >= 0) {
                static const char msg[] = "release\n";
                ssize_t n = write(l->guard_fd, msg, sizeof(msg) - 1);
                (void)n;
                close(l->guard_fd);
                l->guard_fd = -EBADF;
        }
        for (double until = monotonic_ms() + 1000; l->guard_pid > 0;) {
                pid_t r = waitpid(l->guard_pid, NULL, WNOHANG);
                if (r == l->guard_pid || (r < 0 && errno != EINTR))
                        l->guard_pid = 0;
                else if (monotonic_ms() > until) {
                        kill(l->guard_pid, SIGKILL);
                        waitpid(l->guard_pid, NULL, 0);
                        l->guard_pid = 0;
                } else
                        sleep_ms(2);
        }
}

/* The tables are deleted by the time this returns; their sockets are closed
 * off this path (nft_owner_table_free_later()), since the kernel's release of
 * an nftables socket waits for the deletion's RCU grace period. */
static void tables_delete(struct net_live *l) {
        for (size_t i = 0; i < l->n_tables; i++) {
                nft_owner_table_delete(l->tables[i], NULL);
                nft_owner_table_free_later(l->tables[i]);
        }
        l->n_tables = 0;
}

void net_live_free(struct net_live *l) {
        if (!l)
                return;
        if (l->flap_started) {
                atomic_store(&l->flap_stop, true);
                pthread_join(l->flap_thread, NULL);
        }
        l->shaper = shaper_free(l->shaper);
        tables_delete(l);
        guard_release(l);
        json_decref(l->params);
        free(l);
}
