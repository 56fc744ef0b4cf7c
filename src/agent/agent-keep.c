/* recovery: false, on the agent's side: a fault kept in force on purpose
 * stays in force after the run (docs/internals/agent-rpc.md, lease.keep).
 *
 * A fault the kernel or the engine holds by itself (a paused container, a
 * CPU quota) is simply let go: the agent no longer holds the lease and
 * never undoes it. A network fault lives in what the agent holds (nftables
 * owner tables the kernel deletes when their socket closes, the NFQUEUE
 * shaper, a guardian of qdiscs): for those the agent outlives its run as
 * their keeper, detached from the controller, until `mayhem recover execute`
 * stops it through the pid and start time its record names, or until
 * AGENT_KEEP_MAX_S. Either way the agent's own record says kept, so a fresh
 * agent acts on what this one recorded, never on what a request claims. */

#include "server-internal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent/agent-journal.h"
#include "agent/rpc.h"
#include "fault/live.h"
#include "sys/process.h"

#define KEEPER_STOP_MS (AGENT_RELEASE_MS + 10000) /* its undos, then its exit */

static struct held_lease *find_held_locked(struct agent_state *s, const char *id) {
        for (size_t i = 0; i < AGENT_HELD_MAX; i++)
                if (s->held[i].used && strcmp(s->held[i].lease.id, id) == 0)
                        return &s->held[i];
        return NULL;
}

/* A copy of the held lease (new references); false when not held. */
static bool held_lease_copy(struct agent_state *s, const char *id, struct agent_lease *ret) {
        pthread_mutex_lock(&s->lock);
        struct held_lease *h = find_held_locked(s, id);
        if (h) {
                *ret = h->lease;
                json_incref(ret->params);
                json_incref(ret->net);
                json_incref(ret->restore);
        }
        pthread_mutex_unlock(&s->lock);
        return h != NULL;
}

/* The record first, then the lease is kept (live) or let go: an agent that
 * dies in between leaves a record a fresh agent can act on. */
static int record_kept(
        struct agent_state *s, const struct agent_lease *l, bool live, char *msg, size_t size) {
        struct proc_identity self;
        struct mh_error e = { 0 };
        int r = live ? proc_identity_read(getpid(), &self, &e) : 0;
        if (r >= 0 && s->opt->journal)
                r = agent_journal_keep(
                        s->opt->journal, l->id, l->def, &l->target, l->restore, live ? &self : NULL, &e);
        if (r < 0)
                snprintf(msg, size, "lease %s cannot be kept: %s; it is still held", l->id, e.msg);
        return r;
}

int agent_lease_keep(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *id = json_string_value(json_object_get(params, "lease_id"));
        struct agent_lease l;
        if (!id) {
                snprintf(msg, size, "lease.keep needs a string lease_id");
                return RPC_INVALID_PARAMS;
        }
        if (!held_lease_copy(s, id, &l)) {
                snprintf(msg, size, "no lease %s is held by this agent", id);
                return RPC_INVALID_PARAMS;
        }
        bool live = fault_live_with(s->lives, id, NULL, NULL);
        int r = record_kept(s, &l, live, msg, size);
        agent_lease_done(&l);
        if (r < 0)
                return RPC_TASK_FAILED;
        pthread_mutex_lock(&s->lock);
        struct held_lease *h = find_held_locked(s, id);
        if (h && live)
                h->kept = true;
        else if (h) {
                h->used = false;
                agent_lease_done(&h->lease);
        }
        pthread_mutex_unlock(&s->lock);
        *ret = json_pack("{s:s, s:b, s:b}", "lease_id", id, "kept", 1, "keeper", live);
        return 0;
}

size_t agent_kept_count(struct agent_state *s) {
        size_t n = 0;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX; i++)
                n += s->held[i].used && s->held[i].kept;
        pthread_mutex_unlock(&s->lock);
        return n;
}

/* The controller's pipes and terminal are let go: its reader sees the end
 * of the agent's output, and no harness waits on a keeper's stderr. */
static void detach(void) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0)
                return;
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
}

const char *agent_keeper_hold(struct agent_state *s, int sfd) {
        agent_log(
                s,
                "keeping %zu fault(s) in force (recovery: false) as pid %d, for at most %d h: "
                "`mayhem recover execute` stops this keeper and undoes them",
                agent_kept_count(s), (int)getpid(), AGENT_KEEP_MAX_S / 3600);
        detach();
        double until = monotonic_ms() + AGENT_KEEP_MAX_S * 1000.0;
        for (;;) {
                double left = until - monotonic_ms();
                if (left <= 0)
                        return "kept for the longest a keeper holds a fault";
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                if (poll(&p, sfd >= 0 ? 1 : 0, (int)MIN(left, 60000.0)) <= 0)
                        continue;
                struct signalfd_siginfo si;
                if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si) && si.ssi_signo == SIGHUP)
                        continue; /* a closed ssh session or terminal ends no kept fault */
                return "the keeper was stopped";
        }
}

int agent_keeper_stop(struct agent_state *s, const char *lease_id, char *msg, size_t size) {
        struct proc_identity k;
        int fd = -EBADF;
        if (!s->opt->journal || agent_journal_keeper(s->opt->journal, lease_id, &k) <= 0 ||
            k.pid == getpid())
                return 0;
        if (proc_pidfd_open(&k, &fd, NULL) < 0)
                return 0; /* gone (or the pid is another process now): what it held went with it */
        if (syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0) < 0 && errno != ESRCH) {
                snprintf(
                        msg, size, "cannot stop the keeper of lease %s (pid %d): %s", lease_id, (int)k.pid,
                        strerror(errno));
                close(fd);
                return RPC_TASK_FAILED;
        }
        int r = proc_pidfd_wait_exit(fd, KEEPER_STOP_MS);
        close(fd);
        if (r != 1) {
                snprintf(
                        msg, size, "the keeper of lease %s (pid %d) did not exit within %d s of SIGTERM",
                        lease_id, (int)k.pid, KEEPER_STOP_MS / 1000);
                return RPC_TASK_FAILED;
        }
        agent_log(s, "stopped the keeper of lease %s (pid %d): it undid what it kept", lease_id, (int)k.pid);
        return 0;
}
