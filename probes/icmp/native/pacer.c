/* The pacer's state, compiled (probes/pacing.py has the rules and PythonPacerState, the same in Python): the
   ICMP engine's C loop takes its turns here without the interpreter (pacer_turn, pacer_sent), and the event
   loop's methods through the same state (Pacer.turn_ns, Pacer.sent), behind one mutex. */

#include "linkvet_icmp.h"

/* -- Pacer ---------------------------------------------------------------------------------------------- */


/* One try at a turn (probes/pacing.py, Pacer.turn_ns): 0 when the caller may send now (*slot becomes -1),
   else the monotonic ns to try again at, with the caller's slot in *slot (-1: none reserved yet). */
int64_t pacer_turn(PacerObject *p, int64_t *slot) {
    int64_t at = 0;
    pthread_mutex_lock(&p->mutex);
    int64_t now = clock_ns(CLOCK_MONOTONIC);
    if (*slot < 0) {
        *slot = now > p->next_free_ns ? now : p->next_free_ns;
        p->next_free_ns = *slot + p->gap_ns;
    }
    if (*slot > now) {
        at = *slot;
    } else if (p->last_sent_ns + p->gap_ns > now) {
        at = p->last_sent_ns + p->gap_ns;
    } else {
        p->last_sent_ns = now;
        if (p->next_free_ns < now + p->gap_ns) p->next_free_ns = now + p->gap_ns;
        *slot = -1;
    }
    pthread_mutex_unlock(&p->mutex);
    return at;
}

/* The caller's packet left at `at` (Pacer.sent); with `reserve`, the caller's next slot, else -1. */
int64_t pacer_sent(PacerObject *p, int64_t at, int reserve) {
    int64_t slot = -1;
    pthread_mutex_lock(&p->mutex);
    if (at > p->last_sent_ns) {
        p->last_sent_ns = at;
        if (p->next_free_ns < at + p->gap_ns) p->next_free_ns = at + p->gap_ns;
    }
    if (reserve) {
        slot = at > p->next_free_ns ? at : p->next_free_ns;
        p->next_free_ns = slot + p->gap_ns;
    }
    pthread_mutex_unlock(&p->mutex);
    return slot;
}

static int Pacer_init(PacerObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"gap_ns", NULL};
    long long gap = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L", kwlist, &gap)) return -1;
    if (gap < 0) gap = 0;
    self->gap_ns = gap;
    self->next_free_ns = 0;
    self->last_sent_ns = -gap;
    return 0;
}

static PyObject *Pacer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PacerObject *self = (PacerObject *)type->tp_alloc(type, 0);
    if (self != NULL) pthread_mutex_init(&self->mutex, NULL);
    return (PyObject *)self;
}

static void Pacer_dealloc(PacerObject *self) {
    pthread_mutex_destroy(&self->mutex);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int optional_ns(PyObject *value, int64_t *out) {
    if (value == NULL || value == Py_None) {
        *out = -1;
        return 0;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v < 0 ? 0 : v;
    return 0;
}

static PyObject *ns_or_none(int64_t value) {
    if (value < 0) Py_RETURN_NONE;
    return PyLong_FromLongLong(value);
}

static PyObject *Pacer_turn_ns(PacerObject *self, PyObject *args) {
    PyObject *slot_arg = Py_None;
    int64_t slot;
    if (!PyArg_ParseTuple(args, "|O", &slot_arg) || optional_ns(slot_arg, &slot) < 0) return NULL;
    int64_t at = pacer_turn(self, &slot);
    PyObject *s = ns_or_none(slot);
    if (s == NULL) return NULL;
    return Py_BuildValue("(LN)", (long long)at, s);
}

static PyObject *Pacer_sent(PacerObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"at_ns", "reserve", NULL};
    PyObject *at_arg = Py_None;
    int reserve = 0;
    int64_t at;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$p", kwlist, &at_arg, &reserve)) return NULL;
    if (optional_ns(at_arg, &at) < 0) return NULL;
    if (at < 0) at = clock_ns(CLOCK_MONOTONIC);
    return ns_or_none(pacer_sent(self, at, reserve));
}

static PyObject *Pacer_get_gap_ns(PacerObject *self, void *closure) {
    return PyLong_FromLongLong(self->gap_ns);
}

static PyMethodDef Pacer_methods[] = {
    {"turn_ns", (PyCFunction)Pacer_turn_ns, METH_VARARGS,
     "turn_ns(slot=None) -> (at_ns, slot): 0 when the caller may send now, else when to try again."},
    {"sent", (PyCFunction)(void (*)(void))Pacer_sent, METH_VARARGS | METH_KEYWORDS,
     "sent(at_ns=None, *, reserve=False) -> slot or None: the caller's packet left at at_ns."},
    {NULL},
};

static PyGetSetDef Pacer_getset[] = {
    {"gap_ns", (getter)Pacer_get_gap_ns, NULL, "the least time between two packets, ns", NULL},
    {NULL},
};

PyTypeObject PacerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_linkvet_icmp.Pacer",
    .tp_doc = "The run's pacer state: packets at least gap_ns apart, turns first come, first served.",
    .tp_basicsize = sizeof(PacerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Pacer_new,
    .tp_init = (initproc)Pacer_init,
    .tp_dealloc = (destructor)Pacer_dealloc,
    .tp_methods = Pacer_methods,
    .tp_getset = Pacer_getset,
};
