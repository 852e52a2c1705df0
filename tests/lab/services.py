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
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from tests.httpbody import read_body

PR_SET_PDEATHSIG = 1


class QuietHandler(SimpleHTTPRequestHandler):
    """The files under the root, plus `GET /paced/<kB per second>/<seconds>` (a body sent at that pace, in
    4 KiB writes: a load that never fills a faster link) and `POST /upload` (a body read and discarded, the
    byte count answered: an upload endpoint)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) == 3 and parts[0] == "paced":
            self._paced(int(parts[1]) * 1000, float(parts[2]))
            return
        super().do_GET()

    def do_POST(self) -> None:
        if self.path.split("?")[0] != "/upload":
            self.send_error(405)
            return
        try:
            received = read_body(self)
        except (ConnectionError, ValueError):
            return
        body = str(received).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _paced(self, bytes_per_s: int, seconds: float) -> None:
        block = b"\0" * 4096
        total = int(bytes_per_s * seconds)
        self.send_response(200)
        self.send_header("Content-Length", str(total))
        self.end_headers()
        start = time.monotonic()
        sent = 0
        try:
            while sent < total:
                due = start + sent / bytes_per_s
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                chunk = block[: total - sent]
                self.wfile.write(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
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
