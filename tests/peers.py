"""Real loopback peers for tests (a pytest plugin loaded by tests/conftest.py): TCP listeners (accepting,
closed, silent), an HTTP(S) server with test paths."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme

from tests.httpbody import read_body

FILE_BYTES = 8 * 1024 * 1024
PAUSE_BYTES = 1_000 + 200_000  # /pause: 1,000 bytes, 400 ms of nothing, the rest


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/ok":
            self._send(200, b"hello")
        elif path == "/missing":
            self._send(404, b"no such thing")
        elif path == "/broken":
            self._send(503, b"try later")
        elif path.startswith("/redirect/"):
            remaining = int(path.rsplit("/", 1)[1])
            self.send_response(302)
            self.send_header("Location", "/ok" if remaining <= 1 else f"/redirect/{remaining - 1}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/slow":
            time.sleep(1.5)
            self._send(200, b"late")
        elif path.startswith("/wait/"):  # answers after waiting N ms (the request read, nothing sent yet)
            time.sleep(int(path.rsplit("/", 1)[1]) / 1000)
            self._send(200, b"waited")
        elif path == "/file":
            self.send_response(200)
            self.send_header("Content-Length", str(FILE_BYTES))
            self.end_headers()
            block = bytes(range(256)) * 256
            sent = 0
            try:
                while sent < FILE_BYTES:
                    chunk = block[: FILE_BYTES - sent]
                    self.wfile.write(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif path == "/pause":
            self.send_response(200)
            self.send_header("Content-Length", str(PAUSE_BYTES))
            self.end_headers()
            try:
                self.wfile.write(b"x" * 1_000)
                self.wfile.flush()
                time.sleep(0.4)
                self.wfile.write(b"y" * (PAUSE_BYTES - 1_000))
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif path == "/trickle":  # ~1 MB/s for up to 30 s
            self.send_response(200)
            self.send_header("Content-Length", str(30 * 1024 * 1024))
            self.end_headers()
            try:
                for _ in range(300):
                    self.wfile.write(b"x" * 102400)
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            self._send(404, b"unknown test path")

    def do_POST(self) -> None:
        """`/upload` takes a body (chunked or with a length), discards it and says how many bytes it read;
        any other path refuses the method (405), as a download-only server does."""
        if self.path.split("?")[0] != "/upload":
            self._send(405, b"POST not allowed here")
            return
        try:
            received = read_body(self)
        except (ConnectionError, ValueError):
            return
        self._send(200, str(received).encode())

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # Probes close connections early on purpose (byte caps, timeouts): not worth a traceback.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def _serve(server: ThreadingHTTPServer) -> Iterator[str]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def http_server() -> Iterator[str]:
    """'127.0.0.1:PORT' of a plain HTTP test server."""
    yield from _serve(_Server(("127.0.0.1", 0), _Handler))


@pytest.fixture(scope="session")
def tls_authority() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def https_server(tls_authority: trustme.CA) -> Iterator[str]:
    """'127.0.0.1:PORT' of an HTTPS test server whose certificate (for 127.0.0.1 and localhost) is signed
    by a throwaway CA no system trusts."""
    server = _Server(("127.0.0.1", 0), _Handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls_authority.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    yield from _serve(server)


@pytest.fixture
def tcp_listener() -> Iterator[int]:
    """The port of a TCP listener on 127.0.0.1 that accepts (the kernel completes handshakes)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound then released)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that silently drops SYNs: a listener (backlog 0) whose accept queue is already full,
    so the kernel neither answers nor refuses new handshakes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = [socket.create_connection(("127.0.0.1", port))]
    extra = socket.socket()
    extra.setblocking(False)
    extra.connect_ex(("127.0.0.1", port))
    fillers.append(extra)
    time.sleep(0.1)
    try:
        yield port
    finally:
        for sock in fillers:
            sock.close()
        listener.close()
