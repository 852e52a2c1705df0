/* The ICMP engine's thread, compiled: the trains' schedule, the pacer's turns, each echo built and sent,
   the kernel's transmit and receive stamps, replies and ICMP errors matched, RTTs, late replies, timeouts
   (module.c says how it fits; probes/icmp/worker.py is the same thread in Python, rule for rule). */

#include "linkvet_icmp.h"

#include <sys/prctl.h>

/* -- reading helpers ------------------------------------------------------------------------------------ */

#define READ_BYTES 2048
#define CONTROL_BYTES 512

static int64_t timespec_ns(const unsigned char *data) {
    struct timespec ts;
    memcpy(&ts, data, sizeof ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* -- the engine ----------------------------------------------------------------------------------------- */

#define SEQ_SLOTS 65536
#define KEY_SLOTS 65536
#define MAX_SOCKS 2
#define MAX_FIFOS 64
#define READ_EVERY_NS 5000000LL      /* while sending paced echoes, read the sockets this often */
#define HANDOFF_NS 200000000LL       /* finished echoes of trains reach Python at most 5 times a second (at
                                        once when nothing is left to send or to wait for: worker.py says why) */
#define URGENT_HANDOFF_NS 1000000LL  /* single echoes (traceroute waits for them) at most every 1 ms */
#define PRECISE_SLEEP_NS 2000000LL   /* waits up to this long watch only the wake-up pipe */
#define EXPIRY_GRACE_NS 1000000LL    /* read once more this long after a timeout before calling it lost */
#define CLOCK_STEP_SLACK_NS 1000000LL /* kernel RTTs may exceed the user-space one by this much */
#define CLOCK_PAIR_MAX_SPREAD_NS 20000LL
#define MAX_READS 10000
#define READ_BATCH 32                 /* messages one recvmmsg reads at most */
#define PACKET_BYTES 65536

#ifndef SO_TIMESTAMPING
#define SO_TIMESTAMPING 37
#endif
#define OPT_ID_FLAG (1 << 7)

/* Outcome codes, as probes/icmp/compiled.py maps them to ErrorKind and TimestampSource. */
enum { E_NONE, E_LATE, E_TIMEOUT, E_SEND_FAILED, E_UNREACHABLE, E_TTL_EXCEEDED };
enum { S_NONE, S_KERNEL, S_KERNEL_RX, S_USER };
enum { R_NONE, R_ADDRESS, R_TEXT };

typedef struct Train Train;
typedef struct Echo Echo;

struct Train {
    PyObject *owner, *address; /* owned; freed with the GIL (`dead`) */
    PacerObject *pacer;         /* owned, or NULL */
    int sock, count, next_index, payload_bytes, ttl, cancelled, single;
    int64_t interval_ns, timeout_ns, due_ns, order, id;
    struct sockaddr_storage dest;
    socklen_t dest_len;
    unsigned char addr[16];
    int refs; /* the heap, echoes in flight, finished echoes not yet handed over */
};

struct Echo {
    Train *train;
    int index, urgent, done;
    uint16_t seq;
    int64_t key; /* its transmit stamp's key, -1: none */
    int64_t sent_wall_ns, sent_mono_ns, tx_wall_ns, deadline_ns;
    Echo *next; /* in its deadline queue */
};

typedef struct {
    int fd, family, raw, v6, tx_stamps, restart_errno, restart_keys, reading;
    uint16_t ident, next_seq;
    unsigned char token[8];
    int64_t next_key, awaiting;
    Echo **by_seq; /* pending echoes by sequence number (one socket sends each number once at a time) */
    Echo **keyed;  /* echoes by transmit-stamp key, modulo KEY_SLOTS */
} Sock;

typedef struct {
    Train *train; /* holds a reference */
    int index, error, source, responder, err_no;
    int64_t sent_at_us, rtt_ns, answered_ns;
    char text[INET6_ADDRSTRLEN + 16]; /* an address, with an IPv6 zone */
} Done;

typedef struct {
    Echo *head, *tail;
    int64_t timeout_ns;
} Fifo;

/* Buffers for one recvmmsg: up to READ_BATCH messages with their senders and control data. */
typedef struct {
    struct mmsghdr msgs[READ_BATCH];
    struct iovec iov[READ_BATCH];
    struct sockaddr_storage names[READ_BATCH];
    union {
        struct cmsghdr align;
        unsigned char bytes[CONTROL_BYTES * 2];
    } control[READ_BATCH];
    unsigned char data[READ_BATCH][READ_BYTES];
} Batch;

typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    Sock socks[MAX_SOCKS];
    int nsocks;
    Train **heap;
    Py_ssize_t heap_len, heap_cap;
    Fifo fifos[MAX_FIFOS];
    int nfifos;
    Done *done;
    Py_ssize_t done_len, done_cap;
    Train **dead;
    Py_ssize_t dead_len, dead_cap;
    PacerObject *slot_pacer; /* borrowed: the pacer whose slot the next train's echo holds */
    int64_t slot, order, next_id, handoff_ns, read_due_ns;
    int urgent, stopping, fault;
    int watching; /* the thread waits in ppoll on the wake-up pipe: a new echo must write to it */
    int tuned;    /* the thread's timer slack and name are set (the first run) */
    Echo *spare;  /* finished echoes' memory, for the next ones (a list through `next`) */
    Batch *replies, *errors; /* read buffers: the replies, the error queue (read while replies are handled) */
    PyObject *outcome_type, *errors_kinds, *sources, *detail_for; /* how outcomes are made (Engine(...)) */
    unsigned char packet[PACKET_BYTES];
} EngineObject;

static int grow(void **array, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap) return 0;
    Py_ssize_t cap2 = *cap ? *cap * 2 : 64;
    while (cap2 < need) cap2 *= 2;
    void *bigger = realloc(*array, (size_t)cap2 * size);
    if (bigger == NULL) return -1;
    *array = bigger;
    *cap = cap2;
    return 0;
}

/* -- trains: a heap by (due, order) -- */

static int train_before(const Train *a, const Train *b) {
    return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->order < b->order);
}

static void heap_down(EngineObject *e, Py_ssize_t i) {
    Train **h = e->heap;
    for (;;) {
        Py_ssize_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < e->heap_len && train_before(h[l], h[m])) m = l;
        if (r < e->heap_len && train_before(h[r], h[m])) m = r;
        if (m == i) return;
        Train *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_up(EngineObject *e, Py_ssize_t i) {
    Train **h = e->heap;
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (!train_before(h[i], h[p])) return;
        Train *t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int heap_push(EngineObject *e, Train *t) {
    if (grow((void **)&e->heap, &e->heap_cap, e->heap_len + 1, sizeof(Train *)) < 0) return -1;
    t->order = ++e->order;
    e->heap[e->heap_len++] = t;
    heap_up(e, e->heap_len - 1);
    return 0;
}

static void heap_pop(EngineObject *e) {
    e->heap[0] = e->heap[--e->heap_len];
    if (e->heap_len) heap_down(e, 0);
}

/* A train's last reference gone (called under the engine's mutex): its Python objects are released later,
   with the GIL (`release_dead`). Out of memory for that list, it is kept (a leak) and the run fails. */
static void train_unref(EngineObject *e, Train *t) {
    if (--t->refs > 0) return;
    if (grow((void **)&e->dead, &e->dead_cap, e->dead_len + 1, sizeof(Train *)) < 0) {
        e->fault = ENOMEM;
        return;
    }
    e->dead[e->dead_len++] = t;
}

/* -- finishing echoes -- */

static int add_done(EngineObject *e, Train *t, int index, int64_t sent_at_us) {
    if (grow((void **)&e->done, &e->done_cap, e->done_len + 1, sizeof(Done)) < 0) {
        e->fault = ENOMEM;
        return -1;
    }
    Done *d = &e->done[e->done_len++];
    memset(d, 0, sizeof *d);
    d->train = t;
    d->index = index;
    d->sent_at_us = sent_at_us;
    d->rtt_ns = d->answered_ns = -1;
    t->refs++;
    if (t->single) e->urgent = 1;
    return 0;
}

static void finish(EngineObject *e, Echo *echo, Done *outcome) {
    Sock *s = &e->socks[echo->train->sock];
    echo->done = 1;
    if (echo->key >= 0 && s->keyed[echo->key % KEY_SLOTS] == echo) s->keyed[echo->key % KEY_SLOTS] = NULL;
    if (add_done(e, echo->train, echo->index, outcome->sent_at_us) == 0) {
        Done *d = &e->done[e->done_len - 1];
        d->error = outcome->error;
        d->source = outcome->source;
        d->responder = outcome->responder;
        d->rtt_ns = outcome->rtt_ns;
        d->answered_ns = outcome->answered_ns;
        memcpy(d->text, outcome->text, sizeof d->text);
    }
    if (echo->urgent) e->urgent = 1;
    train_unref(e, echo->train); /* the echo's own reference; the Done holds another */
}

/* When an echo left (UTC µs): its kernel transmit stamp, else the time taken just before its send. */
static int64_t sent_at_us(const Echo *echo) {
    return (echo->tx_wall_ns >= 0 ? echo->tx_wall_ns : echo->sent_wall_ns) / 1000;
}

/* An echo still in flight is lost (its deadline passed, or the engine closes). */
static void time_out(EngineObject *e, Echo *echo) {
    Sock *s = &e->socks[echo->train->sock];
    if (s->by_seq[echo->seq] == echo) s->by_seq[echo->seq] = NULL;
    Done outcome;
    memset(&outcome, 0, sizeof outcome);
    outcome.sent_at_us = sent_at_us(echo);
    outcome.error = E_TIMEOUT;
    outcome.rtt_ns = outcome.answered_ns = -1;
    finish(e, echo, &outcome);
}

static void clock_pair(int64_t *mono, int64_t *wall) {
    int64_t best_spread = -1;
    for (int attempt = 0; attempt < 4; attempt++) {
        int64_t before = clock_ns(CLOCK_MONOTONIC), w = clock_ns(CLOCK_REALTIME), after = clock_ns(CLOCK_MONOTONIC);
        if (best_spread < 0 || after - before < best_spread) {
            best_spread = after - before;
            *mono = (before + after) / 2;
            *wall = w;
        }
        if (after - before < CLOCK_PAIR_MAX_SPREAD_NS) break;
    }
}

static int64_t wall_to_monotonic(int64_t wall_ns) {
    int64_t mono, now_wall;
    clock_pair(&mono, &now_wall);
    int64_t queued = now_wall - wall_ns;
    return (queued >= 0 && queued < 10000000000LL) ? mono - queued : mono;
}

static void read_errqueue(EngineObject *e, Sock *s);

/* An echo (already out of `by_seq`) got an answer: a reply (error E_NONE) or an ICMP error about it, from
`responder` (NULL: the echo's own address; "": nobody named). */
static void answer(EngineObject *e, Echo *echo, int64_t rx_wall_ns, int error, const char *responder) {
    Sock *s = &e->socks[echo->train->sock];
    /* The stamp precedes the reply: it may have come in since (an error queue being read has it already). */
    if (echo->key >= 0 && echo->tx_wall_ns < 0 && !s->reading) read_errqueue(e, s);
    int64_t user_ns = clock_ns(CLOCK_MONOTONIC) - echo->sent_mono_ns;
    int64_t answered = user_ns;
    int source = S_USER;
    if (rx_wall_ns >= 0) {
        int64_t tx = echo->tx_wall_ns;
        if (tx >= 0 && rx_wall_ns - tx >= 0 && rx_wall_ns - tx <= user_ns + CLOCK_STEP_SLACK_NS) {
            answered = rx_wall_ns - tx;
            source = S_KERNEL;
        } else {
            int64_t rx_mono = wall_to_monotonic(rx_wall_ns);
            if (rx_mono >= echo->sent_mono_ns) {
                answered = rx_mono - echo->sent_mono_ns;
                source = S_KERNEL_RX;
            }
        }
    }
    Done outcome;
    memset(&outcome, 0, sizeof outcome);
    outcome.sent_at_us = sent_at_us(echo);
    outcome.answered_ns = answered;
    outcome.source = source;
    if (responder == NULL) {
        outcome.responder = R_ADDRESS;
    } else if (responder[0]) {
        outcome.responder = R_TEXT;
        snprintf(outcome.text, sizeof outcome.text, "%s", responder);
    }
    if (answered > echo->train->timeout_ns) {
        outcome.error = E_LATE;
        outcome.rtt_ns = -1;
    } else {
        outcome.error = error;
        outcome.rtt_ns = error ? -1 : answered;
    }
    finish(e, echo, &outcome);
}

static int addr_matches(const Echo *echo, const struct sockaddr_storage *source, int v6) {
    if (v6) {
        return source->ss_family == AF_INET6 &&
               memcmp(&((const struct sockaddr_in6 *)source)->sin6_addr, echo->train->addr, 16) == 0;
    }
    return source->ss_family == AF_INET &&
           memcmp(&((const struct sockaddr_in *)source)->sin_addr, echo->train->addr, 4) == 0;
}

static Echo *take_pending(Sock *s, uint16_t seq, const struct sockaddr_storage *dest) {
    Echo *echo = s->by_seq[seq];
    if (echo == NULL || !addr_matches(echo, dest, s->v6)) return NULL;
    s->by_seq[seq] = NULL;
    return echo;
}

static int icmp_error_code(int v6, int type) {
    if (type == (v6 ? 1 : 3)) return E_UNREACHABLE;
    if (type == (v6 ? 3 : 11)) return E_TTL_EXCEEDED;
    return E_NONE;
}

/* -- reading -- */

static void read_errqueue_now(EngineObject *e, Sock *s);

static void read_errqueue(EngineObject *e, Sock *s) {
    if (s->raw && s->awaiting <= 0) return; /* a raw socket's error queue holds only our stamps */
    s->reading = 1;
    read_errqueue_now(e, s);
    s->reading = 0;
}

/* One recvmmsg of at most `want` messages (want <= READ_BATCH) into `b`, without waiting: how many came,
   or -1 with errno (EAGAIN: none). A batch costs one system call where a recvmsg per message cost one
   each: at fping's rate that was two calls per echo (its reply and its transmit stamp). */
static int read_batch(int fd, Batch *b, int want, int flags) {
    for (int i = 0; i < want; i++) {
        struct msghdr *m = &b->msgs[i].msg_hdr;
        b->iov[i].iov_base = b->data[i];
        b->iov[i].iov_len = READ_BYTES;
        m->msg_name = &b->names[i];
        m->msg_namelen = sizeof b->names[i];
        m->msg_iov = &b->iov[i];
        m->msg_iovlen = 1;
        m->msg_control = b->control[i].bytes;
        m->msg_controllen = sizeof b->control[i].bytes;
        m->msg_flags = 0;
        b->msgs[i].msg_len = 0;
    }
    int got;
    do {
        got = recvmmsg(fd, b->msgs, (unsigned int)want, flags | MSG_DONTWAIT, NULL);
    } while (got < 0 && errno == EINTR);
    return got;
}

/* One message of the error queue: a transmit stamp, or (unprivileged sockets) an ICMP error about one of
   our requests. */
static void errqueue_message(EngineObject *e, Sock *s, Batch *b, int i, int64_t *stamps) {
    struct msghdr *msg = &b->msgs[i].msg_hdr;
    const unsigned char *data = b->data[i];
    const struct sockaddr_storage *dest = &b->names[i];
    size_t length = b->msgs[i].msg_len < READ_BYTES ? b->msgs[i].msg_len : READ_BYTES;
    int64_t wall_ns = -1;
    const struct sock_extended_err *ee = NULL;
    size_t ee_room = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        size_t room = c->cmsg_len - CMSG_LEN(0);
        if (c->cmsg_level == SOL_SOCKET && (c->cmsg_type == SCM_TIMESTAMPING || c->cmsg_type == SCM_TIMESTAMPNS)) {
            if (wall_ns < 0 && room >= sizeof(struct timespec)) wall_ns = timespec_ns(CMSG_DATA(c));
        } else if (((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) &&
                   room >= sizeof(struct sock_extended_err)) {
            ee = (const struct sock_extended_err *)CMSG_DATA(c);
            ee_room = room;
        }
    }
    if (ee == NULL) return;
    if (ee->ee_origin == SO_EE_ORIGIN_TIMESTAMPING) {
        if (wall_ns <= 0) return;
        (*stamps)++;
        int64_t key = ee->ee_data, now_wall = clock_ns(CLOCK_REALTIME);
        Echo *echo = s->keyed[key % KEY_SLOTS];
        if (echo != NULL && echo->key != key) echo = NULL;
        if (echo != NULL && echo->tx_wall_ns < 0) {
            if (echo->sent_wall_ns <= wall_ns && wall_ns <= now_wall) {
                echo->tx_wall_ns = wall_ns;
                return;
            }
        } else if (echo == NULL && key < s->next_key) {
            return; /* the stamp of an echo that has already finished */
        }
        s->restart_keys = 1; /* a stamp that cannot be that echo's: the count is off */
    } else if (ee->ee_origin == SO_EE_ORIGIN_ICMP || ee->ee_origin == SO_EE_ORIGIN_ICMP6) {
        /* An ICMP error about one of our requests (unprivileged sockets): `data` is its echo header. */
        if (length < 8 || msg->msg_namelen == 0) return;
        Echo *echo = take_pending(s, (uint16_t)((data[6] << 8) | data[7]), dest);
        if (echo == NULL) return;
        char offender[INET6_ADDRSTRLEN] = "";
        const struct sockaddr *who = SO_EE_OFFENDER(ee);
        size_t room = ee_room - sizeof *ee;
        if (who->sa_family == AF_INET && room >= sizeof(struct sockaddr_in))
            inet_ntop(AF_INET, &((const struct sockaddr_in *)who)->sin_addr, offender, sizeof offender);
        else if (who->sa_family == AF_INET6 && room >= sizeof(struct sockaddr_in6))
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)who)->sin6_addr, offender, sizeof offender);
        int error = icmp_error_code(s->v6, ee->ee_type);
        answer(e, echo, wall_ns, error ? error : E_UNREACHABLE, offender);
    }
}

static void read_errqueue_now(EngineObject *e, Sock *s) {
    /* A raw socket's error queue holds only the stamps of our sends: at most `awaiting` messages. */
    int64_t limit = s->raw ? s->awaiting : INT64_MAX, stamps = 0;
    for (int64_t reads = 0; reads < limit;) {
        int want = limit - reads < READ_BATCH ? (int)(limit - reads) : READ_BATCH;
        int got = read_batch(s->fd, e->errors, want, MSG_ERRQUEUE);
        if (got <= 0) break; /* empty (EAGAIN), or unreadable: reads as empty */
        reads += got;
        for (int i = 0; i < got; i++) errqueue_message(e, s, e->errors, i, &stamps);
        if (s->raw && got < want) break; /* it held fewer than asked: it is empty */
    }
    s->awaiting = stamps >= s->awaiting ? 0 : s->awaiting - stamps;
}

/* Who sent a packet, as Python's socket module words it (getnameinfo, NI_NUMERICHOST: a link-local IPv6
   router keeps its zone); "" when it cannot be said. */
static void source_text(const struct sockaddr_storage *source, socklen_t length, char *text, size_t size) {
    if (getnameinfo((const struct sockaddr *)source, length, text, (socklen_t)size, NULL, 0, NI_NUMERICHOST) != 0)
        text[0] = 0;
}

/* One message read from the socket: a reply to one of our echoes, or (raw sockets) an ICMP error quoting
   one of our requests, as probes.icmp.wire.EchoWire.parse reads them; anything else is left alone. */
static void reply_message(EngineObject *e, Sock *s, Batch *b, int i) {
    struct msghdr *msg = &b->msgs[i].msg_hdr;
    const unsigned char *data = b->data[i];
    const struct sockaddr_storage *source = &b->names[i];
    int reply_type = s->v6 ? 129 : 0, request_type = s->v6 ? 128 : 8;
    if (msg->msg_namelen == 0) return;
    size_t length = b->msgs[i].msg_len < READ_BYTES ? b->msgs[i].msg_len : READ_BYTES;
    int64_t rx_wall_ns = -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
            rx_wall_ns = timespec_ns(CMSG_DATA(c));
            break;
        }
    }
    size_t offset = 0;
    if (s->raw && !s->v6) { /* raw IPv4 sockets deliver the IP header too */
        if (length < 20) return;
        offset = (size_t)(data[0] & 0x0F) * 4;
    }
    if (length < offset + 8) return;
    const unsigned char *icmp = data + offset;
    size_t icmp_len = length - offset;
    int type = icmp[0];
    if (type == reply_type) {
        if (s->raw && ((icmp[4] << 8) | icmp[5]) != s->ident) return;
        size_t payload = icmp_len - 8 < 8 ? icmp_len - 8 : 8;
        if (payload && memcmp(icmp + 8, s->token, payload) != 0) return; /* another program's echo */
        Echo *echo = take_pending(s, (uint16_t)((icmp[6] << 8) | icmp[7]), source);
        if (echo != NULL) answer(e, echo, rx_wall_ns, E_NONE, NULL);
        return;
    }
    int error = icmp_error_code(s->v6, type);
    if (!error || !s->raw) return;
    /* An ICMP error quoting our request: the original destination, identifier and sequence. */
    const unsigned char *inner = icmp + 8, *quoted;
    size_t inner_len = icmp_len - 8, quoted_len;
    struct sockaddr_storage dest;
    memset(&dest, 0, sizeof dest);
    if (s->v6) {
        if (inner_len < 48) return;
        dest.ss_family = AF_INET6;
        memcpy(&((struct sockaddr_in6 *)&dest)->sin6_addr, inner + 24, 16);
        quoted = inner + 40;
        quoted_len = inner_len - 40;
    } else {
        if (inner_len < 20) return;
        size_t ihl = (size_t)(inner[0] & 0x0F) * 4;
        if (inner_len < ihl) return;
        dest.ss_family = AF_INET;
        memcpy(&((struct sockaddr_in *)&dest)->sin_addr, inner + 16, 4);
        quoted = inner + ihl;
        quoted_len = inner_len - ihl;
    }
    if (quoted_len < 8 || quoted[0] != request_type || ((quoted[4] << 8) | quoted[5]) != s->ident) return;
    Echo *echo = take_pending(s, (uint16_t)((quoted[6] << 8) | quoted[7]), &dest);
    if (echo == NULL) return;
    char router[NI_MAXHOST];
    source_text(source, msg->msg_namelen, router, sizeof router);
    answer(e, echo, rx_wall_ns, error, router);
}

/* Everything the socket holds: its error queue (stamps, ICMP errors), then its replies (and, on raw
   sockets, ICMP errors quoting our requests), READ_BATCH messages to a system call. */
static void drain(EngineObject *e, Sock *s) {
    read_errqueue(e, s);
    for (int reads = 0; reads < MAX_READS;) {
        int got = read_batch(s->fd, e->replies, READ_BATCH, 0);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            read_errqueue(e, s); /* a pending socket error (unprivileged sockets report ICMP errors so) */
            reads++;
            continue;
        }
        reads += got > 0 ? got : 1;
        for (int i = 0; i < got; i++) reply_message(e, s, e->replies, i);
        /* Fewer than asked: the socket held no more (a later reply, or a socket error reported after these
           messages, is read at the next drain), so no call is spent hearing EAGAIN. */
        if (got < READ_BATCH) return;
    }
}

/* An echo's memory: a finished one's where there is one (a paced run frees one per send), else new. */
static Echo *new_echo(EngineObject *e) {
    Echo *echo = e->spare;
    if (echo == NULL) return calloc(1, sizeof(Echo));
    e->spare = echo->next;
    memset(echo, 0, sizeof *echo);
    return echo;
}

static void free_echo(EngineObject *e, Echo *echo) {
    echo->next = e->spare;
    e->spare = echo;
}

/* Echoes past their deadline are lost; returns the next deadline (-1: nothing in flight). */
static int64_t expire(EngineObject *e) {
    int64_t now = clock_ns(CLOCK_MONOTONIC), earliest = -1;
    for (int i = 0; i < e->nfifos; i++) {
        Fifo *q = &e->fifos[i];
        while (q->head != NULL) {
            Echo *echo = q->head;
            if (!echo->done) {
                if (echo->deadline_ns > now) {
                    if (earliest < 0 || echo->deadline_ns < earliest) earliest = echo->deadline_ns;
                    break;
                }
                time_out(e, echo);
            }
            q->head = echo->next;
            if (q->head == NULL) q->tail = NULL;
            free_echo(e, echo);
        }
    }
    return earliest;
}

/* -- sending -- */

static void restart_keys(Sock *s) {
    s->restart_keys = 0;
    memset(s->keyed, 0, KEY_SLOTS * sizeof(Echo *));
    s->next_key = 0;
    s->awaiting = 0;
    /* OPT_ID cleared and set again: the kernel starts its count of sends from 0. */
    int flags = 0, cleared;
    socklen_t len = sizeof flags;
    int failed = getsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, &len) < 0;
    cleared = flags & ~OPT_ID_FLAG;
    failed = failed || setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &cleared, sizeof cleared) < 0;
    failed = failed || setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) < 0;
    if (failed) {
        s->restart_errno = errno ? errno : EINVAL;
        s->tx_stamps = 0;
    }
}

static int set_hop_limit(Sock *s, int ttl) {
    return s->v6 ? setsockopt(s->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof ttl)
                 : setsockopt(s->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
}

static uint16_t checksum(const unsigned char *data, size_t length) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < length; i += 2) sum += (uint32_t)((data[i] << 8) | data[i + 1]);
    if (length & 1) sum += (uint32_t)(data[length - 1] << 8);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

/* One sendto with the echo's stamp key taken just before (after a refused send, whether the kernel counted
   it is not knowable: the next send starts the keys again from 0). 0, or the errno. */
static int send_packet(EngineObject *e, Sock *s, Echo *echo, size_t length) {
    if (s->restart_keys) {
        read_errqueue(e, s);
        restart_keys(s);
    }
    echo->key = -1;
    if (s->tx_stamps) {
        echo->key = s->next_key++;
        s->awaiting++;
        s->keyed[echo->key % KEY_SLOTS] = echo;
    }
    echo->sent_wall_ns = clock_ns(CLOCK_REALTIME);
    echo->sent_mono_ns = clock_ns(CLOCK_MONOTONIC);
    ssize_t r;
    do {
        r = sendto(s->fd, e->packet, length, 0, (const struct sockaddr *)&echo->train->dest, echo->train->dest_len);
    } while (r < 0 && errno == EINTR);
    if (r >= 0) return 0;
    int err = errno;
    if (echo->key >= 0) {
        s->restart_keys = 1;
        if (s->keyed[echo->key % KEY_SLOTS] == echo) s->keyed[echo->key % KEY_SLOTS] = NULL;
        echo->key = -1;
    }
    read_errqueue(e, s);
    return err;
}

static int pending_error(int err) {
    return err == EHOSTUNREACH || err == ENETUNREACH || err == ECONNREFUSED || err == EPROTO;
}

static Fifo *fifo_for(EngineObject *e, int64_t timeout_ns) {
    for (int i = 0; i < e->nfifos; i++)
        if (e->fifos[i].timeout_ns == timeout_ns) return &e->fifos[i];
    if (e->nfifos == MAX_FIFOS) return NULL;
    Fifo *q = &e->fifos[e->nfifos++];
    q->head = q->tail = NULL;
    q->timeout_ns = timeout_ns;
    return q;
}

/* Send a train's echo number `index`; returns when it left (monotonic ns). A send this machine refuses
   becomes its outcome (E_SEND_FAILED with the errno) at once. */
static int64_t send_echo(EngineObject *e, Train *t, int index) {
    Sock *s = &e->socks[t->sock];
    int64_t now = clock_ns(CLOCK_MONOTONIC);
    Fifo *q = fifo_for(e, t->timeout_ns);
    Echo *echo = q != NULL ? new_echo(e) : NULL;
    int seq = -1;
    for (int tries = 0; echo != NULL && tries < SEQ_SLOTS; tries++) {
        uint16_t candidate = s->next_seq++;
        if (s->by_seq[candidate] == NULL) {
            seq = candidate;
            break;
        }
    }
    if (seq < 0) { /* out of memory, or 65,536 echoes in flight on one socket */
        if (echo != NULL) free_echo(e, echo);
        if (add_done(e, t, index, clock_ns(CLOCK_REALTIME) / 1000) == 0) {
            e->done[e->done_len - 1].error = E_SEND_FAILED;
            e->done[e->done_len - 1].err_no = ENOBUFS;
        }
        return now;
    }
    echo->train = t;
    echo->index = index;
    echo->seq = (uint16_t)seq;
    echo->tx_wall_ns = -1;
    echo->urgent = t->single;
    size_t length = 8 + (size_t)t->payload_bytes;
    unsigned char *p = e->packet;
    p[0] = (unsigned char)(s->v6 ? 128 : 8);
    p[1] = p[2] = p[3] = 0;
    p[4] = (unsigned char)(s->ident >> 8);
    p[5] = (unsigned char)(s->ident & 0xFF);
    p[6] = (unsigned char)(seq >> 8);
    p[7] = (unsigned char)(seq & 0xFF);
    for (int i = 0; i < t->payload_bytes; i++) p[8 + i] = s->token[i % 8];
    if (s->raw && !s->v6) { /* the kernel fills in the checksum elsewhere (and, unprivileged, the id) */
        uint16_t sum = checksum(p, length);
        p[2] = (unsigned char)(sum >> 8);
        p[3] = (unsigned char)(sum & 0xFF);
    }
    if (t->ttl >= 0) set_hop_limit(s, t->ttl);
    int err = send_packet(e, s, echo, length);
    /* An unprivileged socket also reports an earlier echo's ICMP error on the next send. That error belongs
       to the earlier echo and waits on the error queue (send_packet has read it): send this echo again. */
    if (err && !s->raw && pending_error(err)) err = send_packet(e, s, echo, length);
    if (t->ttl >= 0) set_hop_limit(s, -1); /* back to the route's default */
    if (err) {
        int64_t sent_at_us = echo->sent_wall_ns / 1000;
        free_echo(e, echo);
        if (add_done(e, t, index, sent_at_us) == 0) {
            e->done[e->done_len - 1].error = E_SEND_FAILED;
            e->done[e->done_len - 1].err_no = err;
        }
        return now;
    }
    echo->deadline_ns = echo->sent_mono_ns + t->timeout_ns + EXPIRY_GRACE_NS;
    s->by_seq[echo->seq] = echo;
    if (q->tail) q->tail->next = echo;
    else q->head = echo;
    q->tail = echo;
    t->refs++;
    return echo->sent_mono_ns;
}

/* Send every echo whose turn has come; when the next one is due (-1: nothing to send). */
static int64_t send_due(EngineObject *e) {
    while (e->heap_len) {
        Train *t = e->heap[0];
        if (t->cancelled) {
            heap_pop(e);
            train_unref(e, t);
            continue;
        }
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (t->due_ns > now) return t->due_ns;
        if (t->pacer != NULL) {
            int64_t slot = e->slot_pacer == t->pacer ? e->slot : -1;
            int64_t at = pacer_turn(t->pacer, &slot);
            if (at) {
                e->slot_pacer = t->pacer;
                e->slot = slot;
                return at;
            }
            e->slot_pacer = NULL;
        }
        int index = t->next_index++;
        int64_t started = send_echo(e, t, index);
        if (e->fault) return -1;
        if (t->next_index < t->count) {
            t->due_ns = started + t->interval_ns;
            t->order = ++e->order;
            heap_down(e, 0);
        } else {
            heap_pop(e);
            train_unref(e, t);
        }
        if (t->pacer != NULL) {
            /* Tell the pacer the packet left; if the next train is due already, take its slot now. */
            int64_t after = clock_ns(CLOCK_MONOTONIC);
            Train *following = e->heap_len && e->heap[0]->due_ns <= after ? e->heap[0] : NULL;
            int64_t slot = pacer_sent(t->pacer, after, following != NULL && following->pacer == t->pacer);
            if (slot >= 0) {
                e->slot_pacer = t->pacer;
                e->slot = slot;
                return slot;
            }
        }
    }
    return -1;
}

/* -- the Python side -- */

/* Engine(outcome_type, errors, sources, detail_for): how finished echoes are handed over. `outcome_type` is
   probes.icmp.echoes.EchoOutcome (a tuple subclass: each outcome is made here, without calling Python code);
   `errors` and `sources` the values of its `error` and `timestamps` fields by the outcome codes above;
   `detail_for(errno)` the words for a send this machine refused (called for those only). */
static int Engine_init(EngineObject *self, PyObject *args, PyObject *kwds) {
    PyObject *type, *errors, *sources, *detail_for;
    if (!PyArg_ParseTuple(args, "O!O!O!O", &PyType_Type, &type, &PyTuple_Type, &errors, &PyTuple_Type, &sources,
                          &detail_for))
        return -1;
    PyTypeObject *t = (PyTypeObject *)type;
    if (!PyType_IsSubtype(t, &PyTuple_Type) || t->tp_basicsize != PyTuple_Type.tp_basicsize ||
        t->tp_itemsize != PyTuple_Type.tp_itemsize) {
        PyErr_SetString(PyExc_TypeError, "the outcome type must be a tuple subclass without fields of its own");
        return -1;
    }
    if (PyTuple_GET_SIZE(errors) != E_TTL_EXCEEDED + 1 || PyTuple_GET_SIZE(sources) != S_USER + 1 ||
        !PyCallable_Check(detail_for)) {
        PyErr_SetString(PyExc_ValueError, "one error per outcome code, one source per source code, and a callable");
        return -1;
    }
    if (self->replies == NULL) self->replies = malloc(sizeof(Batch));
    if (self->errors == NULL) self->errors = malloc(sizeof(Batch));
    if (self->replies == NULL || self->errors == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_XSETREF(self->outcome_type, Py_NewRef(type));
    Py_XSETREF(self->errors_kinds, Py_NewRef(errors));
    Py_XSETREF(self->sources, Py_NewRef(sources));
    Py_XSETREF(self->detail_for, Py_NewRef(detail_for));
    return 0;
}

static PyObject *Engine_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    EngineObject *self = (EngineObject *)type->tp_alloc(type, 0);
    if (self != NULL) pthread_mutex_init(&self->mutex, NULL);
    return (PyObject *)self;
}

/* The engine's mutex, taken from Python (with the GIL): the GIL is let go while waiting for it, since the
   engine's thread holds the mutex without the GIL. */
static void lock_engine(EngineObject *e) {
    if (pthread_mutex_trylock(&e->mutex) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&e->mutex);
    Py_END_ALLOW_THREADS
}

/* Release the trains nobody refers to any more (with the GIL, not holding the mutex: dropping an owner may
   run Python code, which may call the engine). */
static void release_dead(EngineObject *e) {
    lock_engine(e);
    Train **dead = e->dead;
    Py_ssize_t n = e->dead_len;
    e->dead = NULL;
    e->dead_len = e->dead_cap = 0;
    pthread_mutex_unlock(&e->mutex);
    for (Py_ssize_t i = 0; i < n; i++) {
        Train *t = dead[i];
        Py_XDECREF(t->owner);
        Py_XDECREF(t->address);
        Py_XDECREF((PyObject *)t->pacer);
        free(t);
    }
    free(dead);
}

static void Engine_dealloc(EngineObject *self) {
    /* Everything still held (close() was not called): the trains' references, then the memory. */
    for (Py_ssize_t i = 0; i < self->heap_len; i++) train_unref(self, self->heap[i]);
    for (Py_ssize_t i = 0; i < self->done_len; i++) train_unref(self, self->done[i].train);
    for (int i = 0; i < self->nfifos; i++) {
        for (Echo *echo = self->fifos[i].head; echo != NULL;) {
            Echo *next = echo->next;
            if (!echo->done) train_unref(self, echo->train);
            free(echo);
            echo = next;
        }
    }
    for (int i = 0; i < self->nsocks; i++) {
        free(self->socks[i].by_seq);
        free(self->socks[i].keyed);
    }
    while (self->spare != NULL) {
        Echo *next = self->spare->next;
        free(self->spare);
        self->spare = next;
    }
    free(self->replies);
    free(self->errors);
    free(self->heap);
    free(self->done);
    release_dead(self);
    Py_XDECREF(self->outcome_type);
    Py_XDECREF(self->errors_kinds);
    Py_XDECREF(self->sources);
    Py_XDECREF(self->detail_for);
    pthread_mutex_destroy(&self->mutex);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Whether Engine(...) was initialised (its read buffers and how outcomes are made); else says so. */
static int initialised(EngineObject *e) {
    if (e->replies != NULL && e->errors != NULL && e->outcome_type != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "the engine was not initialised (Engine.__init__ was not called)");
    return 0;
}

static PyObject *Engine_add_socket(EngineObject *self, PyObject *args) {
    if (!initialised(self)) return NULL;
    int fd, family, raw, tx_stamps, ident;
    const char *token;
    Py_ssize_t token_len;
    if (!PyArg_ParseTuple(args, "iipiy#p", &fd, &family, &raw, &ident, &token, &token_len, &tx_stamps)) return NULL;
    if (token_len != 8) {
        PyErr_SetString(PyExc_ValueError, "the token must be 8 bytes");
        return NULL;
    }
    lock_engine(self);
    int index = self->nsocks;
    PyObject *result = NULL;
    if (index == MAX_SOCKS) {
        PyErr_SetString(PyExc_ValueError, "one socket per address family");
    } else {
        Sock *s = &self->socks[index];
        memset(s, 0, sizeof *s);
        s->by_seq = calloc(SEQ_SLOTS, sizeof(Echo *));
        s->keyed = calloc(KEY_SLOTS, sizeof(Echo *));
        if (s->by_seq == NULL || s->keyed == NULL) {
            free(s->by_seq);
            free(s->keyed);
            PyErr_NoMemory();
        } else {
            s->fd = fd;
            s->family = family;
            s->v6 = family == AF_INET6;
            s->raw = raw;
            s->tx_stamps = tx_stamps;
            s->ident = (uint16_t)ident;
            memcpy(s->token, token, 8);
            s->next_seq = (uint16_t)(clock_ns(CLOCK_REALTIME) ^ (fd << 7));
            self->nsocks++;
            result = PyLong_FromLong(index);
        }
    }
    pthread_mutex_unlock(&self->mutex);
    return result;
}

/* submit(owner, sock, sockaddr, address, count, interval_ns, timeout_ns, payload_bytes, pacer, ttl, single)
   -> (id, wake). `single`: one echo sent now, in the caller's thread (traceroute; ttl >= 0 limits its hops),
   its outcome handed over promptly. `wake`: the thread waits on the wake-up pipe (a long wait): write to
   it; otherwise it is in a short sleep and sees the new work within PRECISE_SLEEP_NS. */
static PyObject *Engine_submit(EngineObject *self, PyObject *args) {
    PyObject *owner, *address, *pacer_arg;
    const char *dest;
    Py_ssize_t dest_len;
    int sock, count, payload, ttl, single;
    long long interval, timeout;
    if (!PyArg_ParseTuple(args, "Oiy#UiLLiOip", &owner, &sock, &dest, &dest_len, &address, &count, &interval,
                          &timeout, &payload, &pacer_arg, &ttl, &single))
        return NULL;
    if (pacer_arg != Py_None && !PyObject_TypeCheck(pacer_arg, &PacerType)) {
        PyErr_SetString(PyExc_TypeError, "pacer must be a _linkvet_icmp.Pacer or None");
        return NULL;
    }
    if ((dest_len != sizeof(struct sockaddr_in) && dest_len != sizeof(struct sockaddr_in6)) || count <= 0 ||
        payload < 0 || payload > PACKET_BYTES - 8) {
        PyErr_SetString(PyExc_ValueError, "a bad destination, count or payload size");
        return NULL;
    }
    Train *t = calloc(1, sizeof(Train));
    if (t == NULL) return PyErr_NoMemory();
    Py_INCREF(owner);
    Py_INCREF(address);
    Py_XINCREF(pacer_arg == Py_None ? NULL : pacer_arg);
    t->owner = owner;
    t->address = address;
    t->pacer = pacer_arg == Py_None ? NULL : (PacerObject *)pacer_arg;
    t->count = count;
    t->interval_ns = interval < 0 ? 0 : interval;
    t->timeout_ns = timeout < 0 ? 0 : timeout;
    t->payload_bytes = payload;
    t->ttl = ttl;
    t->single = single;
    memcpy(&t->dest, dest, (size_t)dest_len);
    t->dest_len = (socklen_t)dest_len;
    if (dest_len == sizeof(struct sockaddr_in6)) memcpy(t->addr, &((struct sockaddr_in6 *)&t->dest)->sin6_addr, 16);
    else memcpy(t->addr, &((struct sockaddr_in *)&t->dest)->sin_addr, 4);
    lock_engine(self);
    int taken = 0; /* the engine holds the train now (it frees it: read nothing of it after unlocking) */
    int wake = self->watching;
    long long id = 0;
    if (sock < 0 || sock >= self->nsocks) {
        PyErr_SetString(PyExc_ValueError, "no such socket");
    } else {
        t->sock = sock;
        t->id = id = ++self->next_id;
        t->due_ns = clock_ns(CLOCK_MONOTONIC);
        if (single) {
            t->count = t->next_index = 1;
            t->refs = 1;
            send_echo(self, t, 0);
            self->urgent = 1;
            train_unref(self, t); /* its echo in flight, or its outcome, holds it now */
            taken = 1;
        } else if (heap_push(self, t) < 0) {
            PyErr_NoMemory();
        } else {
            t->refs = 1;
            taken = 1;
        }
    }
    pthread_mutex_unlock(&self->mutex);
    PyObject *result = taken ? Py_BuildValue("(LO)", id, wake ? Py_True : Py_False) : NULL;
    if (!taken) {
        Py_DECREF(owner);
        Py_DECREF(address);
        Py_XDECREF((PyObject *)t->pacer);
        free(t);
    }
    return result;
}

static PyObject *Engine_cancel(EngineObject *self, PyObject *args) {
    long long id;
    if (!PyArg_ParseTuple(args, "L", &id)) return NULL;
    lock_engine(self);
    for (Py_ssize_t i = 0; i < self->heap_len; i++)
        if (self->heap[i]->id == id) self->heap[i]->cancelled = 1;
    pthread_mutex_unlock(&self->mutex);
    Py_RETURN_NONE;
}

static PyObject *Engine_stop(EngineObject *self, PyObject *args) {
    lock_engine(self);
    self->stopping = 1;
    pthread_mutex_unlock(&self->mutex);
    Py_RETURN_NONE;
}

static PyObject *optional_ms(int64_t ns) {
    if (ns < 0) Py_RETURN_NONE;
    return PyFloat_FromDouble((double)ns / 1e6);
}

/* One finished echo as an EchoOutcome (sent_at_us, rtt_ms, error, responder, answered_ms, timestamps,
   detail), made as tuple.__new__ makes a tuple subclass's instance. */
static PyObject *outcome(EngineObject *e, const Done *d) {
    PyTypeObject *type = (PyTypeObject *)e->outcome_type;
    PyObject *o = type->tp_alloc(type, 7);
    if (o == NULL) return NULL;
    PyObject *responder;
    if (d->responder == R_ADDRESS) responder = Py_NewRef(d->train->address);
    else if (d->responder == R_TEXT) responder = PyUnicode_FromString(d->text);
    else responder = Py_NewRef(Py_None);
    PyObject *detail = d->err_no ? PyObject_CallFunction(e->detail_for, "i", d->err_no) : Py_NewRef(Py_None);
    PyTuple_SET_ITEM(o, 0, PyLong_FromLongLong(d->sent_at_us));
    PyTuple_SET_ITEM(o, 1, optional_ms(d->rtt_ns));
    PyTuple_SET_ITEM(o, 2, Py_NewRef(PyTuple_GET_ITEM(e->errors_kinds, d->error)));
    PyTuple_SET_ITEM(o, 3, responder);
    PyTuple_SET_ITEM(o, 4, optional_ms(d->answered_ns));
    PyTuple_SET_ITEM(o, 5, Py_NewRef(PyTuple_GET_ITEM(e->sources, d->source)));
    PyTuple_SET_ITEM(o, 6, detail);
    for (Py_ssize_t i = 0; i < 7; i++) {
        if (PyTuple_GET_ITEM(o, i) == NULL) { /* an item could not be made: the error is set */
            Py_DECREF(o);
            return NULL;
        }
    }
    return o;
}

/* The finished echoes, as (owner, index, outcome); releases their trains. Called with the GIL, on arrays
   taken out of the engine under its mutex. */
static PyObject *outcomes(EngineObject *e, Done *done, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Done *d = &done[i];
        PyObject *o = outcome(e, d), *item = NULL;
        if (o != NULL) item = PyTuple_New(3);
        if (item == NULL) {
            Py_XDECREF(o);
            Py_DECREF(list);
            return NULL;
        }
        PyTuple_SET_ITEM(item, 0, Py_NewRef(d->train->owner));
        PyTuple_SET_ITEM(item, 1, PyLong_FromLong(d->index));
        PyTuple_SET_ITEM(item, 2, o);
        if (PyTuple_GET_ITEM(item, 1) == NULL) {
            Py_DECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* Take what finished out of the engine (under its mutex): the caller turns it into Python objects. */
static void take_done(EngineObject *e, Done **done, Py_ssize_t *n) {
    *done = e->done;
    *n = e->done_len;
    e->done = NULL;
    e->done_len = e->done_cap = 0;
    e->urgent = 0;
}

static PyObject *finish_outcomes(EngineObject *self, Done *done, Py_ssize_t n) {
    PyObject *list = outcomes(self, done, n);
    lock_engine(self);
    for (Py_ssize_t i = 0; i < n; i++) train_unref(self, done[i].train);
    pthread_mutex_unlock(&self->mutex);
    free(done);
    return list;
}

static PyObject *refusals(EngineObject *self) {
    PyObject *list = PyList_New(0);
    for (int i = 0; list != NULL && i < self->nsocks; i++) {
        if (self->socks[i].restart_errno) {
            PyObject *pair = Py_BuildValue("(ii)", i, self->socks[i].restart_errno);
            if (pair == NULL || PyList_Append(list, pair) < 0) Py_CLEAR(list);
            Py_XDECREF(pair);
        }
    }
    return list;
}

/* run(wake_fd) -> (outcomes, stopping, refused): the thread's loop, without the GIL, until finished echoes
   are due to be handed over or stop() was called. `refused`: (socket, errno) where the stamp keys could not
   be restarted (that socket's sends are timed in user space from then on). */
static PyObject *Engine_run(EngineObject *self, PyObject *args) {
    if (!initialised(self)) return NULL;
    int wake_fd;
    if (!PyArg_ParseTuple(args, "i", &wake_fd)) return NULL;
    Done *done = NULL;
    Py_ssize_t n = 0;
    int stopping = 0, fault = 0;
    if (!self->tuned) {
        /* The calling thread is the engine's: 1 ns of timer slack (the kernel's default lets a 1 ms sleep
           overrun by 50 µs and more), and its name, as top and perf show it. */
        prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
        prctl(PR_SET_NAME, "linkvet-icmp", 0, 0, 0);
        self->tuned = 1;
    }
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&self->mutex);
    int woken = 1;
    int64_t deadline = -1;
    for (;;) {
        if (self->stopping || self->fault) break;
        int64_t wake_at = send_due(self);
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (woken || now >= self->read_due_ns || (deadline >= 0 && now >= deadline)) {
            for (int i = 0; i < self->nsocks; i++) drain(self, &self->socks[i]);
            deadline = expire(self);
            self->read_due_ns = now + READ_EVERY_NS;
        }
        if (self->fault) break;
        if (deadline >= 0) {
            int64_t soon = deadline < self->read_due_ns ? deadline : self->read_due_ns;
            if (wake_at < 0 || soon < wake_at) wake_at = soon;
        }
        if (self->done_len) {
            int64_t handoff_at = self->handoff_ns + (self->urgent ? URGENT_HANDOFF_NS : HANDOFF_NS);
            int idle = deadline < 0 && self->heap_len == 0; /* nothing to send, nothing in flight */
            if (now >= handoff_at || idle) {
                self->handoff_ns = now;
                break;
            }
            if (wake_at < 0 || handoff_at < wake_at) wake_at = handoff_at;
        }
        int64_t delay = wake_at < 0 ? -1 : wake_at - clock_ns(CLOCK_MONOTONIC); /* -1: nothing to wait for */
        if (wake_at >= 0 && delay <= 0) {
            woken = 0;
            continue;
        }
        if (delay <= PRECISE_SLEEP_NS && delay >= 0) {
            /* A short wait (a paced stream at a 1 ms gap waits once per packet): a precise sleep to the
               instant (1 ns timer slack), nothing watched; what comes meanwhile waits at most this long. */
            struct timespec until = {.tv_sec = wake_at / 1000000000, .tv_nsec = wake_at % 1000000000};
            pthread_mutex_unlock(&self->mutex);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {
            }
            pthread_mutex_lock(&self->mutex);
            woken = 0;
            continue;
        }
        /* A long wait ends when a reply comes, or the wake-up pipe says there is something new. */
        struct pollfd fds[1 + MAX_SOCKS];
        int nfds = 1;
        fds[0].fd = wake_fd;
        fds[0].events = POLLIN;
        for (int i = 0; i < self->nsocks; i++) {
            fds[nfds].fd = self->socks[i].fd;
            fds[nfds].events = POLLIN;
            nfds++;
        }
        self->watching = 1;
        pthread_mutex_unlock(&self->mutex);
        struct timespec ts = {.tv_sec = delay / 1000000000, .tv_nsec = delay % 1000000000};
        int r = ppoll(fds, (nfds_t)nfds, delay < 0 ? NULL : &ts, NULL);
        pthread_mutex_lock(&self->mutex);
        self->watching = 0;
        woken = 1;
        if (r > 0 && (fds[0].revents & POLLIN)) {
            char sink[256];
            while (read(wake_fd, sink, sizeof sink) > 0) {
            }
        }
    }
    stopping = self->stopping;
    fault = self->fault;
    take_done(self, &done, &n);
    pthread_mutex_unlock(&self->mutex);
    Py_END_ALLOW_THREADS
    PyObject *list = finish_outcomes(self, done, n);
    release_dead(self);
    lock_engine(self);
    PyObject *refused = refusals(self);
    pthread_mutex_unlock(&self->mutex);
    if (list == NULL || refused == NULL) {
        Py_XDECREF(list);
        Py_XDECREF(refused);
        return NULL;
    }
    if (fault) {
        Py_DECREF(list);
        Py_DECREF(refused);
        errno = fault;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    return Py_BuildValue("(NON)", list, stopping ? Py_True : Py_False, refused);
}

/* close() -> (outcomes, unsent): after the thread has stopped: what was in flight, as timed out, plus what
   finished and was not handed over; and the owners of trains with echoes not yet sent. */
static PyObject *Engine_close(EngineObject *self, PyObject *args) {
    if (!initialised(self)) return NULL;
    lock_engine(self);
    for (int i = 0; i < self->nfifos; i++) {
        for (Echo *echo = self->fifos[i].head; echo != NULL; echo = echo->next) {
            if (!echo->done) time_out(self, echo);
        }
    }
    PyObject *unsent = PyList_New(0);
    for (Py_ssize_t i = 0; unsent != NULL && i < self->heap_len; i++) {
        Train *t = self->heap[i];
        if (!t->cancelled && PyList_Append(unsent, t->owner) < 0) Py_CLEAR(unsent);
    }
    for (Py_ssize_t i = 0; i < self->heap_len; i++) train_unref(self, self->heap[i]);
    self->heap_len = 0;
    self->stopping = 1;
    Done *done;
    Py_ssize_t n;
    take_done(self, &done, &n);
    pthread_mutex_unlock(&self->mutex);
    PyObject *list = finish_outcomes(self, done, n);
    release_dead(self);
    if (list == NULL || unsent == NULL) {
        Py_XDECREF(list);
        Py_XDECREF(unsent);
        return NULL;
    }
    return Py_BuildValue("(NN)", list, unsent);
}

static PyMethodDef Engine_methods[] = {
    {"add_socket", (PyCFunction)Engine_add_socket, METH_VARARGS,
     "add_socket(fd, family, raw, ident, token, tx_stamps) -> index"},
    {"submit", (PyCFunction)Engine_submit, METH_VARARGS,
     "submit(owner, sock, sockaddr, address, count, interval_ns, timeout_ns, payload_bytes, pacer, ttl, single)\n"
     "-> (id, wake): a train of echoes, or with single one echo sent at once; wake: write the wake-up pipe"},
    {"cancel", (PyCFunction)Engine_cancel, METH_VARARGS, "cancel(id): send no more of that train's echoes"},
    {"stop", (PyCFunction)Engine_stop, METH_NOARGS, "stop(): make run() return (within PRECISE_SLEEP_NS, or\n"
     "at once once the wake-up pipe is written)"},
    {"run", (PyCFunction)Engine_run, METH_VARARGS, "run(wake_fd) -> (outcomes, stopping, refused)"},
    {"close", (PyCFunction)Engine_close, METH_NOARGS, "close() -> (outcomes, unsent owners)"},
    {NULL},
};

PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_linkvet_icmp.Engine",
    .tp_doc = "The ICMP engine's sending and reading thread's state (probes/icmp/compiled.py drives it).",
    .tp_basicsize = sizeof(EngineObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Engine_new,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};
