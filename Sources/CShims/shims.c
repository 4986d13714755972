// recvmmsg, sendmmsg, struct mmsghdr and accept4 are declared only under _GNU_SOURCE; it is
// defined here, before any system header, and not in CShims.h (see there why).
#define _GNU_SOURCE 1
#include <sys/socket.h>
#include <netinet/in.h>
#include "CShims.h"
#include "mmsg_batch.h"
#include <stdlib.h>
#include <string.h>

sluice_mmsg_batch *sluice_mmsg_batch_create(unsigned int slots) {
    sluice_mmsg_batch *b = calloc(1, sizeof(*b));
    if (!b) return NULL;
    b->slots = slots;
    b->msgs = calloc(slots, sizeof(struct mmsghdr));
    b->iovs = calloc(slots, sizeof(struct iovec));
    if (!b->msgs || !b->iovs || sluice_segments_init(&b->segments, slots) != 0) {
        free(b->msgs); free(b->iovs); sluice_segments_free(&b->segments); free(b);
        return NULL;
    }
    for (unsigned int i = 0; i < slots; i++) {
        b->msgs[i].msg_hdr.msg_iov = &b->iovs[i];
        b->msgs[i].msg_hdr.msg_iovlen = 1;
    }
    return b;
}

void sluice_mmsg_batch_destroy(sluice_mmsg_batch *b) {
    if (!b) return;
    sluice_segments_free(&b->segments);
    free(b->msgs); free(b->iovs); free(b);
}

void sluice_mmsg_set(sluice_mmsg_batch *b, unsigned int i, void *buf, size_t len,
                     struct sockaddr_storage *addr) {
    if (i >= b->slots) return;
    b->iovs[i].iov_base = buf;
    b->iovs[i].iov_len = len;
    b->msgs[i].msg_hdr.msg_name = addr;
    b->msgs[i].msg_hdr.msg_namelen = addr ? (addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                                        : (addr->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_storage)))
                                          : 0;
    b->msgs[i].msg_len = 0;
}

size_t sluice_mmsg_len(const sluice_mmsg_batch *b, unsigned int i) {
    return i < b->slots ? b->msgs[i].msg_len : 0;
}

int sluice_recvmmsg(int fd, sluice_mmsg_batch *b, unsigned int count) {
    if (count > b->slots) count = b->slots;
    for (unsigned int i = 0; i < count; i++)
        b->msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
    return recvmmsg(fd, b->msgs, count, MSG_DONTWAIT, NULL);
}

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

int sluice_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int sluice_epoll_add(int epfd, int fd, uint64_t tag) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int sluice_epoll_del(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int sluice_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void sluice_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t r = write(fd, &one, sizeof(one));
    (void)r;
}

void sluice_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t r = read(fd, &value, sizeof(value));
    (void)r;
}

static uint32_t sluice_epoll_mask(uint32_t events) {
    uint32_t mask = 0;
    if (events & SLUICE_EPOLL_IN) mask |= EPOLLIN | EPOLLRDHUP;
    if (events & SLUICE_EPOLL_OUT) mask |= EPOLLOUT;
    return mask;
}

int sluice_epoll_add_events(int epfd, int fd, uint64_t tag, uint32_t events) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = sluice_epoll_mask(events);
    ev.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

int sluice_epoll_mod(int epfd, int fd, uint64_t tag, uint32_t events) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = sluice_epoll_mask(events);
    ev.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

int sluice_epoll_wait_events(int epfd, uint64_t *tags, uint32_t *flags, int max, int timeout_ms) {
    struct epoll_event evs[64];
    if (max > 64) max = 64;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tags[i] = evs[i].data.u64;
        uint32_t f = 0;
        if (evs[i].events & EPOLLIN) f |= SLUICE_EPOLL_IN;
        if (evs[i].events & EPOLLOUT) f |= SLUICE_EPOLL_OUT;
        if (evs[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) f |= SLUICE_EPOLL_HUP;
        flags[i] = f;
    }
    return n;
}

#include <errno.h>
#include <netinet/tcp.h>
#include <sys/uio.h>

static socklen_t sluice_addr_len(const struct sockaddr_storage *addr) {
    return addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static void sluice_nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int sluice_tcp_listen(const struct sockaddr_storage *addr, int backlog) {
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (const struct sockaddr *)addr, sluice_addr_len(addr)) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int sluice_tcp_accept(int fd, struct sockaddr_storage *peer) {
    socklen_t len = sizeof(*peer);
    int conn = accept4(fd, (struct sockaddr *)peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (conn >= 0) sluice_nodelay(conn);
    return conn;
}

int sluice_tcp_connect(const struct sockaddr_storage *addr, int *in_progress) {
    *in_progress = 0;
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sluice_nodelay(fd);
    if (connect(fd, (const struct sockaddr *)addr, sluice_addr_len(addr)) != 0) {
        if (errno != EINPROGRESS) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        *in_progress = 1;
    }
    return fd;
}

int sluice_socket_error(int fd) {
    int error = 0;
    socklen_t len = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) return errno;
    return error;
}

void sluice_set_send_buffer(int fd, int bytes) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
}

long sluice_tcp_write2(int fd, const void *a, size_t alen, const void *b, size_t blen) {
    struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = iov;
    msg.msg_iovlen = blen > 0 ? 2 : 1;
    for (;;) {
        ssize_t n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) return (long)n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return -1;
    }
}

long sluice_tcp_read(int fd, void *buf, size_t len) {
    for (;;) {
        ssize_t n = recv(fd, buf, len, MSG_DONTWAIT);
        if (n >= 0) return (long)n;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return -2;
        return -1;
    }
}

#include <malloc.h>
#include <dlfcn.h>
#include <stdbool.h>

int sluice_malloc_trim(void) {
    return malloc_trim(0);
}

typedef int (*sluice_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static sluice_mallctl_fn sluice_mallctl(void) {
    return (sluice_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
}

const char *sluice_jemalloc_version(void) {
    sluice_mallctl_fn mallctl = sluice_mallctl();
    const char *version = NULL;
    size_t length = sizeof(version);
    if (!mallctl || mallctl("version", &version, &length, NULL, 0) != 0) return NULL;
    return version;
}

int sluice_jemalloc_background_purge(void) {
    sluice_mallctl_fn mallctl = sluice_mallctl();
    bool on = true;
    if (!mallctl) return -1;
    return mallctl("background_thread", NULL, NULL, &on, sizeof(on)) == 0 ? 0 : -1;
}

void sluice_malloc_tune(int mmap_threshold) {
    /* A fixed threshold: glibc otherwise raises it after each large free (up to 32 MiB), and
       a join's buffers of tens of KiB then come from an arena, whose holes stay resident. */
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}
