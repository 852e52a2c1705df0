"""The ICMP engine: many echoes in flight at once, paced, kernel-timed at both ends.

Where things are
    engine.py       `IcmpEngine`: one socket per address family, echo trains and single echoes for the
                    methods (`probes/methods/icmp.py`) and traceroute; results handed to the event loop
    worker.py       the engine's thread in Python: sends at the pacer's turns, reads replies, transmit stamps
                    and ICMP errors, times echoes out (the reference the compiled thread follows rule for rule)
    compiled.py     the engine's thread with its per-packet work in C (`_linkvet_icmp.Engine`, Linux)
    native/         the compiled part: its C sources (`engine.c`, `pacer.c`, `module.c`, `linkvet_icmp.h`) and
                    `native/__init__.py`, which loads the built module or says why it is not used
    echoes.py       one echo as the thread keeps it (`Echo`), a train of echoes (`Train`), what it hands back
                    (`EchoOutcome`)
    socket.py       the engine's sockets (raw where allowed, else unprivileged "ping" sockets)
    wire.py         echo requests and what comes back (replies, ICMP errors quoting a request), IPv4 and IPv6
"""
