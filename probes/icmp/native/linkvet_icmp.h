/* _linkvet_icmp's parts, shared: the includes, the clock, the pacer's state and the two types
   (module.c holds the module and what it is for; pacer.c the pacer, engine.c the engine). */

#ifndef LINKVET_ICMP_H
#define LINKVET_ICMP_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef __linux__
#error "_linkvet_icmp uses Linux's error queue and SO_TIMESTAMPING; other systems use the Python path"
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define API_VERSION 3

#ifndef SCM_TIMESTAMPNS
#define SCM_TIMESTAMPNS 35
#endif
#ifndef SCM_TIMESTAMPING
#define SCM_TIMESTAMPING 37
#endif

static inline int64_t clock_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The run's pacer state (probes/pacing.py): packets at least gap_ns apart, turns first come, first served. */
typedef struct {
    PyObject_HEAD
    pthread_mutex_t mutex;
    int64_t gap_ns;
    int64_t next_free_ns;
    int64_t last_sent_ns;
} PacerObject;

int64_t pacer_turn(PacerObject *p, int64_t *slot);
int64_t pacer_sent(PacerObject *p, int64_t at, int reserve);

extern PyTypeObject PacerType;
extern PyTypeObject EngineType;

#endif
