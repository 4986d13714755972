// The mmsghdr batch behind sluice_mmsg_batch, shared by shims.c (plain batches) and
// segmented_send.c (UDP GSO). Private to CShims: it needs _GNU_SOURCE, which only the .c
// files define (see CShims.h why).
#ifndef SLUICE_MMSG_BATCH_H
#define SLUICE_MMSG_BATCH_H

#include <sys/socket.h>

// Scratch for regrouping a send batch by destination into UDP GSO messages (segmented_send.c).
// Sized once for the batch's slots, so a flush allocates nothing.
struct sluice_segments {
    int enabled;                 // 0 once the kernel refused UDP_SEGMENT (EIO): plain sends from then on
    unsigned long refused;       // messages the kernel refused as segmented, resent one by one
    struct mmsghdr *out;         // the messages actually sent: one per run of datagrams
    struct iovec *out_iovs;      // their pieces, in send order
    unsigned int *out_datagrams; // datagrams per message
    unsigned char *controls;     // one UDP_SEGMENT cmsg per message
    int *next;                   // per slot: the next slot to the same address, or -1
    // Open-addressing table from destination address to its chain (first and last slot).
    int *heads, *tails;
    unsigned int *stamps;        // a slot of the table is in use when its stamp is the flush's
    unsigned int stamp, mask;
    int *order;                  // the chains' first slots, in order of first appearance
};

struct sluice_mmsg_batch {
    unsigned int slots;
    struct mmsghdr *msgs;
    struct iovec *iovs;
    struct sluice_segments segments;
};

int sluice_segments_init(struct sluice_segments *s, unsigned int slots);
void sluice_segments_free(struct sluice_segments *s);

#endif
