#include <usrsctp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

// The few usrsctp calls Sluice makes, wrapped so that Swift sees plain integers: the stack's
// init takes a C-variadic debug printer (Swift cannot import that type), and socket options
// and send/receive go through sockaddr and SCTP structs that are clearer set here.

typedef int (*sluice_sctp_output_fn)(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df);
typedef void (*sluice_sctp_upcall_fn)(struct socket *socket, void *arg, int flags);

// usrsctp with no threads of its own: no timer thread, no raw-socket or UDP receive threads.
// The caller drives timers with usrsctp_handle_timers from its one thread.
static inline void sluice_sctp_init(sluice_sctp_output_fn output) {
    usrsctp_init_nothreads(0, output, NULL);
    // No ECN: the SCTP packets ride in DTLS records, with no IP header of their own to mark.
    usrsctp_sysctl_set_sctp_ecn_enable(0);
    // Browsers offer and expect partial reliability (RFC 3758) and stream reset (RFC 6525).
    usrsctp_sysctl_set_sctp_pr_enable(1);
    usrsctp_sysctl_set_sctp_reconfig_enable(1);
}

// One association's socket: one-to-one style (SOCK_STREAM) on AF_CONN, non-blocking, with
// the options a WebRTC data channel transport needs. Returns NULL on failure.
static inline struct socket *sluice_sctp_socket(sluice_sctp_upcall_fn upcall, void *arg,
                                                int send_buffer, int receive_buffer, uint32_t mtu) {
    struct socket *so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
    if (so == NULL) return NULL;
    if (usrsctp_set_non_blocking(so, 1) < 0) goto fail;
    // Close aborts at once: a handle that ends owes its peer no graceful shutdown.
    struct linger linger = {.l_onoff = 1, .l_linger = 0};
    if (usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &linger, sizeof(linger)) < 0) goto fail;
    if (usrsctp_setsockopt(so, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof(send_buffer)) < 0) goto fail;
    if (usrsctp_setsockopt(so, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer)) < 0) goto fail;
    int on = 1;
    if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on)) < 0) goto fail;
    if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof(on)) < 0) goto fail;
    struct sctp_assoc_value reset = {.assoc_id = SCTP_ALL_ASSOC, .assoc_value = SCTP_ENABLE_RESET_STREAM_REQ};
    if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset, sizeof(reset)) < 0) goto fail;
    struct sctp_initmsg init = {.sinit_num_ostreams = 1024, .sinit_max_instreams = 1024};
    if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof(init)) < 0) goto fail;
    uint16_t events[] = {SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT};
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
        struct sctp_event event = {.se_assoc_id = SCTP_ALL_ASSOC, .se_type = events[i], .se_on = 1};
        if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_EVENT, &event, sizeof(event)) < 0) goto fail;
    }
    // The DTLS record carries the SCTP packet: no path MTU discovery underneath, a fixed size
    // that fits a DTLS record in one UDP datagram on any path.
    struct sctp_paddrparams params;
    memset(&params, 0, sizeof(params));
    params.spp_address.ss_family = AF_CONN;
    params.spp_flags = SPP_PMTUD_DISABLE;
    params.spp_pathmtu = mtu;
    (void)usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &params, sizeof(params));
    usrsctp_set_upcall(so, upcall, arg);
    return so;
fail:
    usrsctp_close(so);
    return NULL;
}

static inline struct sockaddr_conn sluice_sctp_address(void *addr, uint16_t port) {
    struct sockaddr_conn sconn;
    memset(&sconn, 0, sizeof(sconn));
    sconn.sconn_family = AF_CONN;
    sconn.sconn_port = htons(port);
    sconn.sconn_addr = addr;
    return sconn;
}

// Binds the local port and starts the association to the peer's port (both from the SDP).
// Returns 0, or the errno.
static inline int sluice_sctp_bind_connect(struct socket *so, void *addr, uint16_t local_port, uint16_t remote_port) {
    struct sockaddr_conn local = sluice_sctp_address(addr, local_port);
    if (usrsctp_bind(so, (struct sockaddr *)&local, sizeof(local)) < 0) return errno ? errno : EINVAL;
    struct sockaddr_conn remote = sluice_sctp_address(addr, remote_port);
    if (usrsctp_connect(so, (struct sockaddr *)&remote, sizeof(remote)) < 0 && errno != EINPROGRESS) {
        return errno ? errno : EINVAL;
    }
    return 0;
}

// Sends one whole message on stream `sid`. policy: SCTP_PR_SCTP_NONE, _RTX (value: the
// retransmissions) or _TTL (value: milliseconds). Returns 0, or the errno (EWOULDBLOCK when
// the send buffer has no room for the whole message).
static inline int sluice_sctp_send(struct socket *so, uint16_t sid, uint32_t ppid, int unordered,
                                   uint16_t policy, uint32_t value, const void *data, size_t length) {
    struct sctp_sendv_spa spa;
    memset(&spa, 0, sizeof(spa));
    spa.sendv_flags = SCTP_SEND_SNDINFO_VALID;
    spa.sendv_sndinfo.snd_sid = sid;
    spa.sendv_sndinfo.snd_ppid = htonl(ppid);
    // Without SCTP_EXPLICIT_EOR, each send is one whole message.
    spa.sendv_sndinfo.snd_flags = unordered ? SCTP_UNORDERED : 0;
    if (policy != SCTP_PR_SCTP_NONE) {
        spa.sendv_flags |= SCTP_SEND_PRINFO_VALID;
        spa.sendv_prinfo.pr_policy = policy;
        spa.sendv_prinfo.pr_value = value;
    }
    // An empty message cannot be sent: WebRTC sends one zero byte with the "empty" PPID.
    static const uint8_t zero = 0;
    if (length == 0) { data = &zero; length = 1; }
    errno = 0;
    ssize_t sent = usrsctp_sendv(so, data, length, NULL, 0, &spa, sizeof(spa), SCTP_SENDV_SPA, 0);
    if (sent < 0) return errno ? errno : EIO;
    return 0;
}

// What one usrsctp_recvv call gave.
struct sluice_sctp_received {
    long length;          // bytes in the buffer; -1 when nothing (error in `error`)
    int error;            // errno when length < 0 (EWOULDBLOCK: nothing more now)
    int notification;     // 1: the bytes are an SCTP notification
    int end_of_record;    // 1: the last piece of a message
    uint16_t sid;
    uint32_t ppid;        // host order
};

static inline struct sluice_sctp_received sluice_sctp_receive(struct socket *so, void *buffer, size_t capacity) {
    struct sluice_sctp_received out;
    memset(&out, 0, sizeof(out));
    struct sctp_rcvinfo info;
    memset(&info, 0, sizeof(info));
    socklen_t info_length = sizeof(info);
    unsigned int info_type = 0;
    int flags = 0;
    struct sockaddr_conn from;
    socklen_t from_length = sizeof(from);
    errno = 0;
    ssize_t n = usrsctp_recvv(so, buffer, capacity, (struct sockaddr *)&from, &from_length,
                              &info, &info_length, &info_type, &flags);
    if (n < 0) {
        out.length = -1;
        out.error = errno ? errno : EIO;
        return out;
    }
    out.length = (long)n;
    out.notification = (flags & MSG_NOTIFICATION) ? 1 : 0;
    out.end_of_record = (flags & MSG_EOR) ? 1 : 0;
    if (info_type == SCTP_RECVV_RCVINFO) {
        out.sid = info.rcv_sid;
        out.ppid = ntohl(info.rcv_ppid);
    }
    return out;
}

// Messages (DATA chunks) the association holds for the peer: sent and not yet acknowledged,
// plus not yet sent; -1 if usrsctp cannot tell. usrsctp bounds its send buffer by payload
// bytes only, so a flood of tiny messages needs this count as a second bound.
static inline int sluice_sctp_queued_chunks(struct socket *so) {
    struct sctp_status status;
    memset(&status, 0, sizeof(status));
    socklen_t length = sizeof(status);
    if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &status, &length) < 0) return -1;
    return (int)status.sstat_unackdata + (int)status.sstat_penddata;
}

// Resets our outgoing stream `sid` (the answer to a peer that closed its data channel, so
// the peer's channel reaches "closed"). Returns 0, or the errno.
static inline int sluice_sctp_reset_stream(struct socket *so, uint16_t sid) {
    size_t size = sizeof(struct sctp_reset_streams) + sizeof(uint16_t);
    struct sctp_reset_streams *reset = calloc(1, size);
    if (reset == NULL) return ENOMEM;
    reset->srs_assoc_id = SCTP_ALL_ASSOC;
    reset->srs_flags = SCTP_STREAM_RESET_OUTGOING;
    reset->srs_number_streams = 1;
    reset->srs_stream_list[0] = sid;
    int result = usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_RESET_STREAMS, reset, (socklen_t)size) < 0 ? (errno ? errno : EIO) : 0;
    free(reset);
    return result;
}

// A notification's type (SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT...), 0 if too short.
static inline uint16_t sluice_sctp_notification_type(const void *bytes, size_t length) {
    if (length < sizeof(struct sctp_tlv)) return 0;
    return ((const union sctp_notification *)bytes)->sn_header.sn_type;
}

// SCTP_ASSOC_CHANGE: the new state (SCTP_COMM_UP, SCTP_COMM_LOST...), 0 if too short.
static inline uint16_t sluice_sctp_assoc_change_state(const void *bytes, size_t length) {
    if (length < sizeof(struct sctp_assoc_change)) return 0;
    return ((const struct sctp_assoc_change *)bytes)->sac_state;
}

// SCTP_STREAM_RESET_EVENT: its flags, and how many stream ids follow.
static inline uint16_t sluice_sctp_reset_flags(const void *bytes, size_t length) {
    if (length < sizeof(struct sctp_stream_reset_event)) return 0;
    return ((const struct sctp_stream_reset_event *)bytes)->strreset_flags;
}

static inline size_t sluice_sctp_reset_count(const void *bytes, size_t length) {
    if (length < sizeof(struct sctp_stream_reset_event)) return 0;
    return (length - sizeof(struct sctp_stream_reset_event)) / sizeof(uint16_t);
}

static inline uint16_t sluice_sctp_reset_stream_id(const void *bytes, size_t index) {
    return ((const struct sctp_stream_reset_event *)bytes)->strreset_stream_list[index];
}
