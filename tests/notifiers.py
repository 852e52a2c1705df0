"""Loopback peers that alerts and reports are delivered to (a pytest plugin loaded by tests/conftest.py): a
webhook receiver (an HTTP server thread on 127.0.0.1 that records every request and answers as it is told)
and a mail server (aiosmtpd on 127.0.0.1: STARTTLS with a trustme certificate, AUTH LOGIN/PLAIN required,
only after TLS)."""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import trustme

SMTP_USER = "alerts@office.test"
SMTP_PASSWORD = "s3cret-smtp-password"


@dataclass
class Received:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """What the webhook receiver got, and what it answers: `statuses` are used up first (one per request),
    then `status`; `answer` is the body (a bot's JSON)."""

    base: str
    requests: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    status: int = 200
    answer: bytes = b'{"errcode":0,"errmsg":"ok","code":0}'
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.requests) >= count:
                    return list(self.requests)
            time.sleep(0.02)
        with self.lock:
            return list(self.requests)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state: Receiver

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            parts = urlsplit(self.path)
            with state.lock:
                state.requests.append(
                    Received(
                        parts.path,
                        parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                status = state.statuses.pop(0) if state.statuses else state.status
            answer = state.answer if status == 200 else b"failing on purpose"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state = Receiver(f"http://127.0.0.1:{server.server_port}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass
class Mailbox:
    host: str
    port: int
    ca_file: Path
    messages: list[Message] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    tls_sessions: list[bool] = field(default_factory=list)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.messages) < count:
            time.sleep(0.02)
        return list(self.messages)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def mailbox(tmp_path: Path) -> Iterator[Mailbox]:
    controller_module = pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd (pip install '.[test]')")
    from aiosmtpd.smtp import AuthResult, LoginPassword

    authority = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    box = Mailbox("127.0.0.1", _free_port(), ca_file)

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.tls_sessions.append(session.ssl is not None)
            box.messages.append(message_from_bytes(envelope.original_content or envelope.content))
            return "250 OK"

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword) and (data.login, data.password) == (
            SMTP_USER.encode(),
            SMTP_PASSWORD.encode(),
        ):
            box.logins.append(data.login.decode())
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    controller = controller_module.Controller(
        Handler(),
        hostname="127.0.0.1",
        port=box.port,
        tls_context=context,
        require_starttls=True,
        auth_required=True,
        auth_require_tls=True,
        authenticator=authenticate,
        server_hostname="127.0.0.1",
    )
    controller.start()
    try:
        yield box
    finally:
        controller.stop()
