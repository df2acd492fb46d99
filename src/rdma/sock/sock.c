/*
 * The stream-socket channel (sock.h): one TCP connection per peer of
 * another job, packets framed by a length. send() writes the packet straight
 * from the caller's buffers when nothing is queued before it, and copies
 * into the connection's output only what the socket did not take (written
 * by progress); it answers AGAIN only while OUT_MAX bytes wait already. No
 * put/get, so the device moves large messages as rendezvous DATA packets.
 * progress() reads what arrived on every connection straight into its input
 * buffer (up to READ_BUDGET a pass) and hands each whole frame up. The wait
 * primitive is an epoll set of the connections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <fcntl.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/sock/sock.h"

struct sock_buf {
    unsigned char *p;
    size_t head, len, cap;      /* bytes [head, len) are pending */
};

struct sock_conn {
    int fd;
    int bye_in;                 /* the peer said it sends nothing more */
    int gone;                   /* closed (end of stream, failure) */
    struct sock_buf out, in;
};

struct rch_rdma_chan {
    struct rch_rdma_upcalls up;
    struct rch_rdma_caps caps;
    int epfd;
    struct sock_conn **conn;    /* [nconn], indexed by world index; NULL: not ours */
    int nconn;
};

static rdmach_status_t buf_reserve(struct sock_buf *b, size_t n);

static rdmach_status_t buf_append(struct sock_buf *b, const void *data, size_t n)
{
    if (b->head == b->len)
        b->head = b->len = 0;
    rdmach_status_t st = buf_reserve(b, n);
    if (st != RDMACH_OK)
        return st;
    memcpy(b->p + b->len, data, n);
    b->len += n;
    return RDMACH_OK;
}

static rdmach_status_t sock_query(void)
{
    return RDMACH_OK;
}

static rdmach_status_t sock_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    struct rch_rdma_chan *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "sock: no memory for the channel");
    ch->up = args->up;
    ch->caps = (struct rch_rdma_caps){
        .max_msg = RCH_SOCK_MAX_MSG, .inline_size = RCH_SOCK_MAX_MSG, .in_order = 1, .rma = 0,
        .needs_credits = 0, .onload = 1,
    };
    ch->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ch->epfd < 0) {
        free(ch);
        return rch_base_errno(errno, "sock: epoll_create1");
    }
    *out = ch;
    return RDMACH_OK;
}

static void conn_close(struct rch_rdma_chan *ch, struct sock_conn *c)
{
    if (c->fd >= 0) {
        epoll_ctl(ch->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
    c->gone = 1;
}

/* Write what the socket takes now; -1 when the connection failed. */
static int flush_out(struct sock_conn *c)
{
    while (c->out.head < c->out.len) {
        /* MSG_NOSIGNAL: a peer gone is a failure to report, not our SIGPIPE */
        ssize_t n = send(c->fd, c->out.p + c->out.head, c->out.len - c->out.head, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        c->out.head += (size_t)n;
    }
    return 0;
}

/* A connection closing says BYE behind what it still has to send, then
 * gets up to 5 s to write it (the peer may be busy, not reading). */
static void conn_end(struct rch_rdma_chan *ch, struct sock_conn *c)
{
    uint32_t bye = htonl(RCH_SOCK_BYE);
    if (!c->gone && buf_append(&c->out, &bye, sizeof(bye)) == RDMACH_OK) {
        int fl = fcntl(c->fd, F_GETFL);
        struct timeval tv = { .tv_sec = 5 };
        fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
        setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        flush_out(c);
    }
    conn_close(ch, c);
    free(c->out.p);
    free(c->in.p);
    free(c);
}

static void sock_close(struct rch_rdma_chan *ch)
{
    for (int i = 0; i < ch->nconn; i++)
        if (ch->conn[i])
            conn_end(ch, ch->conn[i]);
    free(ch->conn);
    close(ch->epfd);
    free(ch);
}

static rdmach_status_t sock_publish(struct rch_rdma_chan *ch)
{
    return RDMACH_OK;
}

static rdmach_status_t sock_connect(struct rch_rdma_chan *ch, int peer)
{
    return RDMACH_OK;
}

rdmach_status_t rch_rdma_sock_attach(struct rch_rdma_chan *ch, int peer, int fd)
{
    if (peer >= ch->nconn) {
        int n = peer + 16;
        struct sock_conn **a = realloc(ch->conn, (size_t)n * sizeof(*a));
        if (!a)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "sock: no memory for connection %d", peer);
        memset(a + ch->nconn, 0, (size_t)(n - ch->nconn) * sizeof(*a));
        ch->conn = a;
        ch->nconn = n;
    }
    struct sock_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "sock: no memory for connection %d", peer);
    c->fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)peer };
    if (epoll_ctl(ch->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        free(c);
        return rch_base_errno(errno, "sock: epoll_ctl add connection %d", peer);
    }
    ch->conn[peer] = c;
    return RDMACH_OK;
}

static struct sock_conn *conn_of(struct rch_rdma_chan *ch, int peer)
{
    return peer >= 0 && peer < ch->nconn ? ch->conn[peer] : NULL;
}

void rch_rdma_sock_detach(struct rch_rdma_chan *ch, int peer)
{
    struct sock_conn *c = conn_of(ch, peer);
    if (c) {
        ch->conn[peer] = NULL;
        conn_end(ch, c);
    }
}

/* Output a connection may hold before send() answers AGAIN: a few frames,
 * so a long stream waits in the device's queue rather than being copied
 * here whole. */
#define OUT_MAX (4u * RCH_SOCK_MAX_MSG)

/* Writes what the socket takes of frame {hdr, iov} at once (no copy); 0 or
 * -1 when the connection failed, *sent the bytes written. */
static int write_direct(struct sock_conn *c, uint32_t *hdr, const struct iovec *iov, int iovcnt, size_t *sent)
{
    struct iovec v[RCH_SOCK_MAX_IOV + 1];
    v[0] = (struct iovec){ .iov_base = hdr, .iov_len = sizeof(*hdr) };
    for (int i = 0; i < iovcnt; i++)
        v[i + 1] = iov[i];
    struct msghdr m = { .msg_iov = v, .msg_iovlen = (size_t)iovcnt + 1 };
    ssize_t n;
    do
        n = sendmsg(c->fd, &m, MSG_NOSIGNAL);   /* a peer gone is a failure to report, not our SIGPIPE */
    while (n < 0 && errno == EINTR);
    *sent = n > 0 ? (size_t)n : 0;
    return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK ? -1 : 0;
}

/* Queues the bytes of {hdr, iov} from offset `skip` on behind the output. */
static rdmach_status_t queue_rest(struct sock_conn *c, uint32_t *hdr, const struct iovec *iov, int iovcnt,
                                  size_t skip)
{
    rdmach_status_t st = RDMACH_OK;
    for (int i = -1; st == RDMACH_OK && i < iovcnt; i++) {
        const char *b = i < 0 ? (const char *)hdr : iov[i].iov_base;
        size_t l = i < 0 ? sizeof(*hdr) : iov[i].iov_len;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        st = buf_append(&c->out, b + skip, l - skip);
        skip = 0;
    }
    return st;
}

static rdmach_status_t sock_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    struct sock_conn *c = conn_of(ch, peer);
    if (!c || c->gone)
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "sock: process %d is disconnected", peer);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > RCH_SOCK_MAX_MSG || iovcnt > RCH_SOCK_MAX_IOV)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "sock: packet of %zu bytes in %d pieces exceeds %u bytes, %d pieces",
                            len, iovcnt, RCH_SOCK_MAX_MSG, RCH_SOCK_MAX_IOV);
    if (c->out.len - c->out.head >= OUT_MAX && flush_out(c) == 0 && c->out.len - c->out.head >= OUT_MAX)
        return RDMACH_AGAIN;   /* the device keeps it queued: no copy of a flood into our buffer */
    uint32_t hdr = htonl((uint32_t)len);
    /* Behind queued output the frame must wait its turn; otherwise the
     * socket takes it straight from the caller's buffers and only what it
     * does not take now is copied. */
    size_t sent = 0;
    int failed = c->out.head < c->out.len ? flush_out(c) : 0;
    if (!failed && c->out.head == c->out.len)
        failed = write_direct(c, &hdr, iov, iovcnt, &sent);
    if (failed) {
        int e = errno;
        conn_close(ch, c);
        ch->up.peer_failed(ch->up.ctx, peer, RDMACH_ERR_PEER_DEAD);
        return rch_base_errno(e, "sock: writing to process %d", peer);
    }
    return sent == sizeof(hdr) + len ? RDMACH_OK : queue_rest(c, &hdr, iov, iovcnt, sent);
}

/* Hand up every whole frame in c->in; the events handled. */
static unsigned deliver(struct rch_rdma_chan *ch, int peer, struct sock_conn *c)
{
    unsigned n = 0;
    struct sock_buf *b = &c->in;
    while (b->len - b->head >= 4) {
        uint32_t flen;
        memcpy(&flen, b->p + b->head, 4);
        flen = ntohl(flen);
        if (flen == RCH_SOCK_BYE) {
            c->bye_in = 1;
            b->head += 4;
            continue;
        }
        if (flen > RCH_SOCK_MAX_MSG) {
            RCH_WARN("sock", "process %d sent a frame of %u bytes (max %u): connection closed", peer, flen,
                     RCH_SOCK_MAX_MSG);
            conn_close(ch, c);
            ch->up.peer_failed(ch->up.ctx, peer, RDMACH_ERR_PEER_DEAD);
            return n;
        }
        if (b->len - b->head < 4 + (size_t)flen)
            break;
        /* the upcall may send, which never touches c->in */
        size_t at = b->head + 4;
        b->head = at + flen;
        ch->up.recv(ch->up.ctx, peer, b->p + at, flen);
        n++;
        if (c->gone)
            return n;
    }
    if (b->head == b->len)
        b->head = b->len = 0;
    return n;
}

/* Bytes one progress pass reads from a connection at most: enough for
 * several whole frames, few enough that one busy peer does not starve the
 * others. */
#define READ_BUDGET (4u * RCH_SOCK_MAX_MSG)

/* Room for n more bytes at the end of b. */
static rdmach_status_t buf_reserve(struct sock_buf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return RDMACH_OK;
    size_t have = b->len - b->head;
    if (b->head > 0 && have + n <= b->cap) {
        memmove(b->p, b->p + b->head, have);
        b->head = 0;
        b->len = have;
        return RDMACH_OK;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "sock: no memory for %zu buffered bytes", cap);
    b->p = p;
    b->cap = cap;
    return RDMACH_OK;
}

static unsigned conn_progress(struct rch_rdma_chan *ch, int peer, struct sock_conn *c)
{
    if (flush_out(c) != 0) {
        conn_close(ch, c);
        ch->up.peer_failed(ch->up.ctx, peer, RDMACH_ERR_PEER_DEAD);
        return 1;
    }
    /* read straight into the input buffer, whole frames at a time */
    unsigned n = 0;
    for (size_t got = 0; got < READ_BUDGET;) {
        if (buf_reserve(&c->in, RCH_SOCK_MAX_MSG + 4) != RDMACH_OK)
            return n;
        ssize_t r = read(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len);
        if (r > 0) {
            c->in.len += (size_t)r;
            got += (size_t)r;
            n += deliver(ch, peer, c) + 1;
            if (c->gone)
                return n;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return n;
        int bye = c->bye_in;
        conn_close(ch, c);
        if (!bye)
            ch->up.peer_failed(ch->up.ctx, peer, RDMACH_ERR_PEER_DEAD);
        return n + 1;
    }
    return n;
}

static unsigned sock_progress(struct rch_rdma_chan *ch, unsigned max)
{
    unsigned n = 0;
    for (int i = 0; i < ch->nconn && n < max; i++) {
        struct sock_conn *c = ch->conn[i];
        if (c && !c->gone)
            n += conn_progress(ch, i, c);
    }
    return n;
}

static rdmach_status_t sock_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w)
{
    for (int i = 0; i < ch->nconn; i++) {
        struct sock_conn *c = ch->conn[i];
        if (c && !c->gone && c->out.head < c->out.len)
            return RDMACH_AGAIN;   /* output waits: keep polling rather than sleep */
    }
    w->fd = ch->epfd;
    return RDMACH_OK;
}

static void sock_wait_disarm(struct rch_rdma_chan *ch)
{
}

static const struct rch_rdma_caps *sock_caps(const struct rch_rdma_chan *ch)
{
    return &ch->caps;
}

static rdmach_status_t sock_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                    struct rch_rdma_mr **mr)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static void sock_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr)
{
}

static rdmach_status_t sock_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                     struct rch_rdma_rkey *rkey)
{
    return RDMACH_ERR_UNSUPPORTED;
}

const struct rch_rdma_ops rch_rdma_sock_ops = {
    .name = "sock",
    .query = sock_query,
    .open = sock_open,
    .close = sock_close,
    .publish = sock_publish,
    .connect = sock_connect,
    .mem_reg = sock_mem_reg,
    .mem_dereg = sock_mem_dereg,
    .mem_rkey = sock_mem_rkey,
    .send = sock_send,
    .send_zc = rch_rdma_no_send_zc,
    .put = rch_rdma_no_put,
    .get = rch_rdma_no_get,
    .progress = sock_progress,
    .wait_arm = sock_wait_arm,
    .wait_disarm = sock_wait_disarm,
    .caps = sock_caps,
    .wake = rch_rdma_no_wake,
    .recv_peek = rch_rdma_no_recv_peek,
    .recv_done = rch_rdma_no_recv_done,
};
