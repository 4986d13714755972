// The system calls of the media worker that Swift cannot make well by itself: the glibc
// mmsghdr batch calls (recvmmsg/sendmmsg are declared only under _GNU_SOURCE), epoll (glibc's
// epoll_event is packed on x86_64) and non-blocking TCP.
// _GNU_SOURCE is defined in shims.c only, never here: this header includes no system header
// that glibc's Swift module also declares, so a Swift compile job that loads CShims next to
// another C module never sees a glibc struct (fd_set) declared two ways.
#ifndef SLUICE_CSHIMS_H
#define SLUICE_CSHIMS_H

#include <stddef.h>
#include <stdint.h>

struct sockaddr_storage;

// Batched UDP I/O. One message per slot; each slot has its own buffer and address.
typedef struct sluice_mmsg_batch sluice_mmsg_batch;
sluice_mmsg_batch *sluice_mmsg_batch_create(unsigned int slots);
void sluice_mmsg_batch_destroy(sluice_mmsg_batch *batch);
// Points slot i at buf/len; addr is written on receive and read on send.
void sluice_mmsg_set(sluice_mmsg_batch *batch, unsigned int i, void *buf, size_t len,
                     struct sockaddr_storage *addr);
size_t sluice_mmsg_len(const sluice_mmsg_batch *batch, unsigned int i);
int sluice_recvmmsg(int fd, sluice_mmsg_batch *batch, unsigned int count);
// Sends slots start..<start+count in sendmmsg calls, where datagrams to one address travel
// together as UDP GSO messages (segmented_send.c; plain datagrams with segmentation off). Returns how many datagrams were sent;
// *dropped gets how many were not (a full socket, an unreachable peer), *messages how many
// messages carried those sent.
int sluice_sendmmsg_segmented(int fd, sluice_mmsg_batch *batch, unsigned int start, unsigned int count,
                              unsigned int *dropped, unsigned int *messages);
// Segmentation is on from creation; off when the kernel refused it (EIO) or when set off.
void sluice_mmsg_set_segmentation(sluice_mmsg_batch *batch, int enabled);
int sluice_mmsg_segmentation(const sluice_mmsg_batch *batch);
// Segmented messages the kernel refused and that went out one datagram at a time.
unsigned long sluice_mmsg_segmentation_refused(const sluice_mmsg_batch *batch);

// epoll and eventfd: glibc's epoll_event is packed on x86_64, so keep it on the C side.
int sluice_epoll_create(void);
int sluice_epoll_add(int epfd, int fd, uint64_t tag);   // level-triggered EPOLLIN
int sluice_epoll_del(int epfd, int fd);
int sluice_eventfd_create(void);

/// glibc's malloc_trim(0): gives the free pages of every arena back to the system (the
/// server's MemoryTrim, twice a minute). Glibc's Swift module does not export <malloc.h>.
int sluice_malloc_trim(void);

/// mallopt(M_MMAP_THRESHOLD, mmap_threshold): allocations of that size or more get pages of
/// their own, given back the moment they are freed (the server's MemoryTrim sets it at start).
void sluice_malloc_tune(int mmap_threshold);

/// jemalloc's version string when the process's malloc is jemalloc (the `sluice` executable
/// links it), else NULL. Looked up at run time (dlsym of `mallctl`), so the library that asks
/// does not link jemalloc itself.
const char *sluice_jemalloc_version(void);

/// Starts jemalloc's background threads, which give dirty pages back on their decay time
/// (10 s) even while nothing allocates. 0 when they run; -1 without jemalloc.
int sluice_jemalloc_background_purge(void);
void sluice_eventfd_signal(int fd);
void sluice_eventfd_drain(int fd);

// epoll for TCP media connections, which also wait for room to write.
enum { SLUICE_EPOLL_IN = 1, SLUICE_EPOLL_OUT = 2, SLUICE_EPOLL_HUP = 4 };
// Level-triggered; `events` is a mask of SLUICE_EPOLL_IN and SLUICE_EPOLL_OUT.
int sluice_epoll_add_events(int epfd, int fd, uint64_t tag, uint32_t events);
int sluice_epoll_mod(int epfd, int fd, uint64_t tag, uint32_t events);
// Waits up to timeout_ms; writes the ready tags and each one's SLUICE_EPOLL_* mask; returns
// the count or -1 (errno).
int sluice_epoll_wait_events(int epfd, uint64_t *tags, uint32_t *flags, int max, int timeout_ms);

// TCP (ICE-TCP, RFC 6544): non-blocking sockets with TCP_NODELAY.
// A listening socket bound to addr (SO_REUSEADDR); -1 with errno on failure.
int sluice_tcp_listen(const struct sockaddr_storage *addr, int backlog);
// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC and TCP_NODELAY; the peer goes to *peer.
int sluice_tcp_accept(int fd, struct sockaddr_storage *peer);
// A non-blocking connect to addr; *in_progress is 1 while it completes in the background.
int sluice_tcp_connect(const struct sockaddr_storage *addr, int *in_progress);
// The pending error of a socket (SO_ERROR): 0 once a background connect succeeded.
int sluice_socket_error(int fd);
// Sets SO_SNDBUF (the kernel doubles it); bounds how much a slow reader can hold.
void sluice_set_send_buffer(int fd, int bytes);
// Writes up to two pieces (a ring's two halves) without blocking, without SIGPIPE.
// Returns bytes written, 0 when the socket is full (EAGAIN), -1 on a connection error.
long sluice_tcp_write2(int fd, const void *a, size_t alen, const void *b, size_t blen);
// Reads without blocking: bytes read, 0 at end of stream, -1 on error, -2 when nothing is there.
long sluice_tcp_read(int fd, void *buf, size_t len);

#endif
