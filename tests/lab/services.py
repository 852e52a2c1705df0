"""Services the lab runs inside a region namespace (the kernel answers ICMP echo; iperf3 runs as itself).

`python -m tests.lab.services tcp ADDRESS PORT` accepts connections and closes them (a TCP port to probe);
`python -m tests.lab.services http ADDRESS PORT ROOT` serves the files under ROOT over HTTP/1.1.
Each prints `ready` once it listens, and dies with the process that started it.
"""

from __future__ import annotations

import ctypes
import signal
import socket
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

PR_SET_PDEATHSIG = 1


class QuietHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_tcp(address: str, port: int) -> None:
    listener = socket.create_server((address, port), backlog=4096, reuse_port=False)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        conn.close()


def serve_http(address: str, port: int, root: str) -> None:
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 1024
    server = ThreadingHTTPServer((address, port), partial(QuietHandler, directory=root))
    print("ready", flush=True)
    server.serve_forever()


def main(argv: list[str]) -> int:
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    kind, address, port, *rest = argv
    if kind == "tcp":
        serve_tcp(address, int(port))
    elif kind == "http":
        serve_http(address, int(port), rest[0])
    else:
        print(f"unknown service {kind!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
