/* _linkvet_icmp: the ICMP engine's sending and reading thread, compiled (Linux).

   probes/icmp/worker.py is the engine's thread in Python; this is the same thread's work in C, for the
   platform where it runs once per packet at fping's rate: the trains' schedule, the pacer's turns, sequence
   numbers, building and sending each echo, the kernel's transmit stamps (error queue, OPT_ID keys) and
   receive stamps (SO_TIMESTAMPNS), matching replies and ICMP errors to echoes, RTTs, late replies and
   timeouts. probes/icmp/compiled.py drives it from a Python thread that wakes only to hand finished echoes
   to the event loop (at most 5 times a second; a single echo within 1 ms); the interpreter is not entered
   per packet, and the GIL is released while it works.

   - `Pacer`: the run's pacer state (probes/pacing.py) behind a mutex: the compiled sends take their turns
     in it while the event loop's methods take theirs through the same state.
   - `Engine`: add_socket, submit (a train, or a single echo sent at once), cancel, run (the loop, until
     finished echoes are due to be handed over), stop, close.

   pacer.c holds the first, engine.c the second, linkvet_icmp.h what they share; this file the module.

   The rules are the Python thread's, rule for rule (its docstrings say why); tests/probes/test_icmp_engine.py
   runs every engine test on both. `API` changes whenever a signature or a result's shape does, so that a
   stale build is not used with newer Python code (probes/icmp/native/__init__.py). Packets read are untrusted: every
   length is checked before a byte is read. */

#include "linkvet_icmp.h"

/* -- the module ----------------------------------------------------------------------------------------- */

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_linkvet_icmp", "linkvet's ICMP engine: its per-packet work, compiled.", -1, NULL,
};

PyMODINIT_FUNC PyInit__linkvet_icmp(void) {
    if (PyType_Ready(&PacerType) < 0 || PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "API", API_VERSION) < 0 ||
        PyModule_AddObjectRef(module, "Pacer", (PyObject *)&PacerType) < 0 ||
        PyModule_AddObjectRef(module, "Engine", (PyObject *)&EngineType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
