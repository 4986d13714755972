// UDP GSO for the media worker's send batch (Linux UDP_SEGMENT, 4.18+).
//
// Why: on a fan-out, each received packet is sent to every player, so a batch holds several
// datagrams to each player (the packets of one frame). The kernel's per-datagram send path
// (route, IP output, loopback or driver) is most of a forwarded packet's cost; a GSO message
// carries up to 64 datagrams to one address through it once and is split at the end (by the
// NIC, or by the kernel's software GSO). Measured on loopback: 4 datagrams per message cost
// 1.9 us each against 3.7 us as separate datagrams (docs/benchmarks.md, "Benchmarks").
//
// The kernel's rule: every datagram of a message has the message's segment size, except the
// last, which may be shorter. So a run to one address continues while lengths are equal, ends
// after a shorter one, and a longer one starts the next run.
//
// Order: small datagrams (audio, RTCP, STUN) to an address form a chain apart from its large
// ones (video), so an audio packet that arrived between two video packets does not cut the
// video run in two. Within a chain the order is kept, so one RTP stream is never reordered;
// only an audio packet may pass a video packet to the same player, by microseconds, which
// receivers take as the network reordering it does anyway.
#define _GNU_SOURCE 1
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "CShims.h"
#include "mmsg_batch.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
// The kernel's UDP_MAX_SEGMENTS (64 through Linux 6.x; some later kernels take more).
enum { MAX_SEGMENTS = 64 };
// A segment must fit the path MTU with its IP and UDP headers (1500 - 40 - 8 for IPv6), and
// a message must fit one IP datagram's 64 KiB.
enum { MAX_SEGMENT_SIZE = 1452, MAX_MESSAGE_BYTES = 65000 };
enum { CONTROL_SPACE = CMSG_SPACE(sizeof(uint16_t)) };
// Below this a datagram is "small" (audio, RTCP, STUN) and chains apart from the large ones.
enum { SMALL_DATAGRAM = 400 };

int sluice_segments_init(struct sluice_segments *s, unsigned int slots) {
    unsigned int size = 16;
    while (size < 2 * slots) size <<= 1;
    s->enabled = 1;
    s->mask = size - 1;
    s->out = calloc(slots, sizeof(struct mmsghdr));
    s->out_iovs = calloc(slots, sizeof(struct iovec));
    s->out_datagrams = calloc(slots, sizeof(unsigned int));
    s->controls = calloc(slots, CONTROL_SPACE);
    s->next = calloc(slots, sizeof(int));
    s->heads = calloc(size, sizeof(int));
    s->tails = calloc(size, sizeof(int));
    s->stamps = calloc(size, sizeof(unsigned int));
    s->order = calloc(slots, sizeof(int));
    if (!s->out || !s->out_iovs || !s->out_datagrams || !s->controls || !s->next || !s->heads ||
        !s->tails || !s->stamps || !s->order)
        return -1;
    return 0;
}

void sluice_segments_free(struct sluice_segments *s) {
    free(s->out); free(s->out_iovs); free(s->out_datagrams); free(s->controls); free(s->next);
    free(s->heads); free(s->tails); free(s->stamps); free(s->order);
    memset(s, 0, sizeof(*s));
}

void sluice_mmsg_set_segmentation(sluice_mmsg_batch *b, int enabled) { b->segments.enabled = enabled; }
int sluice_mmsg_segmentation(const sluice_mmsg_batch *b) { return b->segments.enabled; }
unsigned long sluice_mmsg_segmentation_refused(const sluice_mmsg_batch *b) { return b->segments.refused; }

static int is_small(const struct msghdr *m) { return m->msg_iov[0].iov_len < SMALL_DATAGRAM; }

// A multiplicative hash over the address's words (the packet path: a byte loop cost about
// 60 instructions per datagram). IPv4: family, port and address are the first 8 bytes;
// IPv6 adds the address's 16 bytes at offset 8.
static uint32_t chain_hash(const struct msghdr *m) {
    const unsigned char *p = m->msg_name;
    uint64_t a, b = 0, c = 0;
    memcpy(&a, p, 8);
    if (m->msg_namelen >= 24) { memcpy(&b, p + 8, 8); memcpy(&c, p + 16, 8); }
    uint64_t h = (a ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull) ^ (uint64_t)is_small(m))
                 * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static int same_chain(const struct msghdr *a, const struct msghdr *b) {
    return is_small(a) == is_small(b) && a->msg_namelen == b->msg_namelen &&
           memcmp(a->msg_name, b->msg_name, a->msg_namelen) == 0;
}

// Links slots start..<end into chains, one per destination and size class; returns how many.
static unsigned int chain_by_address(sluice_mmsg_batch *b, unsigned int start, unsigned int end) {
    struct sluice_segments *s = &b->segments;
    if (++s->stamp == 0) { memset(s->stamps, 0, (s->mask + 1) * sizeof(unsigned int)); s->stamp = 1; }
    unsigned int chains = 0;
    for (unsigned int i = start; i < end; i++) {
        const struct msghdr *m = &b->msgs[i].msg_hdr;
        s->next[i] = -1;
        unsigned int at = chain_hash(m) & s->mask;
        for (;;) {
            if (s->stamps[at] != s->stamp) {
                s->stamps[at] = s->stamp;
                s->heads[at] = s->tails[at] = (int)i;
                s->order[chains++] = (int)i;
                break;
            }
            if (same_chain(&b->msgs[s->heads[at]].msg_hdr, m)) {
                s->next[s->tails[at]] = (int)i;
                s->tails[at] = (int)i;
                break;
            }
            at = (at + 1) & s->mask;
        }
    }
    return chains;
}

// Cuts the chains into messages in s->out; returns how many.
static unsigned int build_messages(sluice_mmsg_batch *b, unsigned int chains) {
    struct sluice_segments *s = &b->segments;
    unsigned int messages = 0, pieces = 0;
    for (unsigned int c = 0; c < chains; c++) {
        int slot = s->order[c];
        while (slot >= 0) {
            struct msghdr *first = &b->msgs[slot].msg_hdr;
            size_t size = first->msg_iov[0].iov_len;
            struct mmsghdr *out = &s->out[messages];
            struct iovec *iovs = &s->out_iovs[pieces];
            unsigned int count = 0;
            size_t bytes = 0;
            int segmentable = s->enabled && size <= MAX_SEGMENT_SIZE;
            do {
                size_t length = b->msgs[slot].msg_hdr.msg_iov[0].iov_len;
                if (count > 0 && (length > size || count == MAX_SEGMENTS || bytes + length > MAX_MESSAGE_BYTES)) break;
                iovs[count++] = b->msgs[slot].msg_hdr.msg_iov[0];
                bytes += length;
                slot = s->next[slot];
                if (length < size) break;   // a shorter datagram ends the run
            } while (segmentable && slot >= 0);
            memset(out, 0, sizeof(*out));
            out->msg_hdr.msg_name = first->msg_name;
            out->msg_hdr.msg_namelen = first->msg_namelen;
            out->msg_hdr.msg_iov = iovs;
            out->msg_hdr.msg_iovlen = count;
            if (count > 1) {
                unsigned char *control = &s->controls[messages * CONTROL_SPACE];
                memset(control, 0, CONTROL_SPACE);
                out->msg_hdr.msg_control = control;
                out->msg_hdr.msg_controllen = CONTROL_SPACE;
                struct cmsghdr *cm = CMSG_FIRSTHDR(&out->msg_hdr);
                cm->cmsg_level = SOL_UDP;
                cm->cmsg_type = UDP_SEGMENT;
                cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
                uint16_t segment = (uint16_t)size;
                memcpy(CMSG_DATA(cm), &segment, sizeof(segment));
            }
            s->out_datagrams[messages++] = count;
            pieces += count;
        }
    }
    return messages;
}

// A message the kernel would not take as segmented goes out one datagram at a time.
static unsigned int send_one_by_one(int fd, const struct msghdr *m) {
    unsigned int sent = 0;
    for (size_t i = 0; i < m->msg_iovlen; i++) {
        struct msghdr single;
        memset(&single, 0, sizeof(single));
        single.msg_name = m->msg_name;
        single.msg_namelen = m->msg_namelen;
        single.msg_iov = &m->msg_iov[i];
        single.msg_iovlen = 1;
        if (sendmsg(fd, &single, MSG_DONTWAIT) >= 0) sent++;
    }
    return sent;
}

int sluice_sendmmsg_segmented(int fd, sluice_mmsg_batch *b, unsigned int start, unsigned int count,
                              unsigned int *dropped, unsigned int *messages_sent) {
    *dropped = 0;
    *messages_sent = 0;
    if (start >= b->slots) return 0;
    if (count > b->slots - start) count = b->slots - start;
    struct sluice_segments *s = &b->segments;
    unsigned int messages = build_messages(b, chain_by_address(b, start, start + count));
    unsigned int sent = 0, next = 0;
    while (next < messages) {
        int result = sendmmsg(fd, s->out + next, messages - next, MSG_DONTWAIT);
        if (result > 0) {
            *messages_sent += (unsigned int)result;
            for (int i = 0; i < result; i++) sent += s->out_datagrams[next + i];
            next += (unsigned int)result;
            continue;
        }
        int error = errno;
        if (error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS) break;  // full: drop the rest
        // EIO: this socket's route cannot segment (no checksum offload, IPsec); EINVAL: this
        // message does not fit its path's MTU. Either way its datagrams go one at a time.
        if (s->out_datagrams[next] > 1 && (error == EIO || error == EINVAL || error == ENOPROTOOPT)) {
            s->refused++;
            if (error != EINVAL) s->enabled = 0;
            unsigned int alone = send_one_by_one(fd, &s->out[next].msg_hdr);
            sent += alone;
            *messages_sent += alone;
        }
        next++;   // any other error (an unreachable peer) costs that message only
    }
    *dropped = count - sent;
    return (int)sent;
}
