#include "shaper/shaper.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/capability.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "shaper/shaper-internal.h"
#include "sys/netlink-port.h"

/* Opening and configuring the queue. The socket buffer holds packets the thread has not read yet; on
 * overflow the kernel accepts them (fail-open) and recv() says ENOBUFS once. */
#define RCVBUF_BYTES    (16 << 20)
#define RECV_TIMEOUT_S  5
#define OPEN_SEQ        1u
#define CONFIG_BUF_SIZE 512
#define OPEN_MSGS_MAX   4096u
#define RECV_BUF_SIZE   8192u
#define QUEUE_FLAGS     (NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_GSO)

static bool have_net_admin(void) {
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
        if (syscall(SYS_capget, &hdr, data) < 0)
                return false;
        return data[CAP_NET_ADMIN / 32].effective & (1u << (CAP_NET_ADMIN % 32));
}

static int socket_open(int *ret_fd) {
        _cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
        struct timeval tv = { .tv_sec = RECV_TIMEOUT_S };
        int size = RCVBUF_BYTES, r;

        if (fd < 0)
                return negative_errno();
        /* A port id this process never hands out again (sys/netlink-port.h):
         * the kernel destroys the queues of a port id released. */
        if ((r = nl_port_bind(fd)) < 0)
                return r;
        /* FORCE needs CAP_NET_ADMIN, which binding a queue needs anyway. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
                return negative_errno();
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return negative_errno();
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* One message: bind, copy range, maxlen and flags together, so the queue
 * never runs with half a config for longer than this call. */
static int send_bind(int fd, uint16_t queue_num) {
        char buf[CONFIG_BUF_SIZE];
        struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue_num);
        nlh->nlmsg_flags |= NLM_F_ACK;
        nlh->nlmsg_seq = OPEN_SEQ;
        nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
        nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, SHAPER_COPY_RANGE);
        nfq_nlmsg_cfg_put_qmaxlen(nlh, SHAPER_QUEUE_MAXLEN);
        mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(QUEUE_FLAGS));
        mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(QUEUE_FLAGS));
        return shaper_send_all(fd, nlh, nlh->nlmsg_len);
}

struct open_wait {
        int fd;
        struct shaper_vbuf *vbuf;
        bool done;
        int error;
};

/* Packets can arrive between the bind and its ACK: they pass at once. */
static int open_cb(const struct shaper_msg *m, void *data) {
        struct open_wait *w = data;
        if (m->kind == SHAPER_MSG_PACKET)
                return shaper_vbuf_accept(w->vbuf, w->fd, m->id, false);
        if ((m->kind == SHAPER_MSG_ACK || m->kind == SHAPER_MSG_ERROR) && m->seq == OPEN_SEQ) {
                w->done = true;
                w->error = m->error;
        }
        return 0;
}

static int wait_ack(int fd, uint16_t queue_num) {
        _cleanup_free_ struct shaper_vbuf *vbuf = calloc(1, sizeof(*vbuf));
        char buf[RECV_BUF_SIZE];
        struct open_wait w = { .fd = fd, .vbuf = vbuf };

        if (!vbuf)
                return -ENOMEM;
        vbuf->queue_num = queue_num;
        for (unsigned i = 0; i < OPEN_MSGS_MAX && !w.done; i++) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                if (n < 0 && (errno == EINTR || errno == ENOBUFS))
                        continue;
                if (n < 0)
                        return negative_errno();
                int r = shaper_msg_walk(buf, (size_t)n, open_cb, &w);
                if (r >= 0)
                        r = shaper_vbuf_flush(vbuf, fd);
                if (r < 0)
                        return r;
        }
        if (!w.done)
                return -ETIMEDOUT;
        return w.error;
}

static int open_error(int r, uint16_t queue_num, struct mh_error *reterr) {
        /* The kernel answers EPERM both without CAP_NET_ADMIN and for a queue
         * bound to another socket (nfqnl_recv_config checks the port id first). */
        if (r == -EPERM && have_net_admin())
                r = -EBUSY;
        if (r == -EBUSY)
                return mh_error_fail(
                        reterr, r, "nfqueue", "NFQUEUE queue %u is held by another socket", queue_num);
        if (r == -EPERM)
                return mh_error_fail(
                        reterr, r, "permission", "NFQUEUE queue %u: %s (needs CAP_NET_ADMIN)", queue_num,
                        strerror(-r));
        if (r == -EOPNOTSUPP)
                return mh_error_fail(
                        reterr, r, "kernel_feature",
                        "NFQUEUE queue %u: this kernel has no fail-open queues (Linux 3.6 or newer), so a "
                        "stalled shaper would drop traffic; refusing",
                        queue_num);
        return mh_error_fail(reterr, r, "nfqueue", "NFQUEUE queue %u: %s", queue_num, strerror(-r));
}

int shaper_queue_open(uint16_t queue_num, int *ret_fd, struct mh_error *reterr) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = socket_open(&fd);
        if (r < 0)
                return open_error(r, queue_num, reterr);
        r = send_bind(fd, queue_num);
        if (r >= 0)
                r = wait_ack(fd, queue_num);
        if (r < 0)
                return open_error(r, queue_num, reterr);
        *ret_fd = TAKE_FD(fd);
        return 0;
}
