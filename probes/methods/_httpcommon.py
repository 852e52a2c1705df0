"""What the http and download methods share: pinning a request to an address we resolved ourselves (so DNS
time is measured apart from connect time), the client settings, and the one place where httpx's exceptions
become linkvet error kinds."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import importlib
import ssl
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import certifi
import httpx

from probes.errors import ErrorKind, ResolveFailed
from probes.i18n import _
from probes.methods._kernel_times import TtfbClock
from probes.methods._timed_transport import timed_transport
from probes.resolve import Resolved, resolve
from probes.sockets import kernel_handshake_rtt_ms
from probes.target import ProbeOptions

USER_AGENT = "linkvet (line-quality probe)"


@dataclass(frozen=True, slots=True)
class PinnedRequest:
    """A request to `url` sent to an already resolved address; TLS still verifies the URL's host name."""

    url: str
    resolved: Resolved
    pinned_url: str
    headers: dict[str, str]
    extensions: dict[str, Any]


async def pin(url: str) -> PinnedRequest:
    """Resolve the URL's host (raises ResolveFailed) and build the request that connects to that address."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    resolved = await resolve(host)
    address = f"[{resolved.address}]" if ":" in resolved.address else resolved.address
    netloc = address if parts.port is None else f"{address}:{parts.port}"
    pinned = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    host_header = parts.netloc.rpartition("@")[2]
    extensions: dict[str, Any] = {}
    if parts.scheme == "https":
        extensions["sni_hostname"] = host
    headers = {"Host": host_header, "User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    return PinnedRequest(url, resolved, pinned, headers, extensions)


# TLS contexts by "verify or not": loading the CA bundle takes tens of milliseconds, too long to do per attempt
# on the event loop (it delayed other targets' replies). Built once, in a worker thread, then shared.
_TLS_CONTEXTS: dict[bool, ssl.SSLContext] = {}


def _make_tls_context(verify: bool) -> ssl.SSLContext:
    if verify:
        return ssl.create_default_context(cafile=certifi.where())
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _prepare(verify: bool) -> ssl.SSLContext:
    context = _make_tls_context(verify)
    # httpx imports its transport's machinery when the first client is built, and httpcore its network
    # backend (anyio) at the first connection: ~130 ms here, paid now rather than inside the first attempt.
    httpx.AsyncClient(verify=context, trust_env=False)
    for module in ("httpcore._backends.anyio", "anyio._backends._asyncio"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    return context


async def prepare_tls(verify: bool) -> None:
    """Build the shared TLS context (and warm httpx up) off the event loop, once per process."""
    if verify not in _TLS_CONTEXTS:
        context = await asyncio.get_running_loop().run_in_executor(None, _prepare, verify)
        _TLS_CONTEXTS.setdefault(verify, context)


def client(options: ProbeOptions, clock: TtfbClock) -> httpx.AsyncClient:
    """A fresh client (a fresh connection per attempt, so every attempt pays and measures connect and TLS),
    whose connection reports its request's and response's kernel timestamps to `clock`.

    Environment proxies are ignored: linkvet measures the office's own line to the target.
    """
    verify = options.verify_tls
    context = _TLS_CONTEXTS.get(verify)
    if context is None:
        context = _TLS_CONTEXTS.setdefault(verify, _make_tls_context(verify))
    return httpx.AsyncClient(
        transport=timed_transport(context, clock),
        timeout=httpx.Timeout(options.timeout_s),
        follow_redirects=False,
        trust_env=False,
    )


def classify(exc: BaseException, url: str) -> tuple[ErrorKind, str]:
    """The error kind and a one-line message for an exception raised while fetching `url`."""
    if isinstance(exc, ResolveFailed):
        return ErrorKind.DNS, str(exc)
    if isinstance(exc, httpx.TimeoutException):
        timed_out = {
            httpx.ConnectTimeout: _("{url}: timed out connecting"),
            httpx.ReadTimeout: _("{url}: timed out waiting for data"),
            httpx.WriteTimeout: _("{url}: timed out sending"),
            httpx.PoolTimeout: _("{url}: timed out waiting for a connection"),
        }.get(type(exc), _("{url}: timed out waiting"))
        return ErrorKind.TIMEOUT, timed_out.format(url=url)
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return ErrorKind.TLS, _("{url}: TLS certificate not trusted ({reason})").format(
                url=url, reason=cause.verify_message or cause
            )
        if isinstance(cause, ssl.SSLError):
            return ErrorKind.TLS, _("{url}: TLS handshake failed ({reason})").format(
                url=url, reason=cause.reason or cause
            )
        if isinstance(cause, ConnectionRefusedError):
            return ErrorKind.REFUSED, _("{url}: connection refused").format(url=url)
        if isinstance(cause, OSError) and cause.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
            return ErrorKind.UNREACHABLE, f"{url}: {cause.strerror}"
    if isinstance(exc, httpx.RemoteProtocolError | httpx.LocalProtocolError | httpx.DecodingError):
        return ErrorKind.PROTOCOL, f"{url}: {exc}"
    if isinstance(exc, httpx.TransportError | OSError):
        return ErrorKind.CONNECT, f"{url}: {str(exc) or _describe(exc)}"
    raise exc


def _describe(exc: BaseException) -> str:
    """Words for an exception that carries no message of its own (e.g. the peer closed the connection)."""
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return _("the server closed the connection without an HTTP answer (plain HTTP to a TLS port?)")
    names = [type(e).__name__ for e in _causes(exc)]
    return " ← ".join(names)


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def ttfb_source(sources: list[str | None]) -> str | None:
    """How the attempts' TTFBs were timed: `kernel`, `user-space`, or `mixed` (None: no TTFB at all)."""
    present = {s for s in sources if s is not None}
    if not present:
        return None
    return present.pop() if len(present) == 1 else "mixed"


def status_error(status: int, reason: str, url: str) -> str:
    return f"{url}: HTTP {status} {reason}".rstrip()


@dataclass
class PhaseTimer:
    """Marks of httpcore's trace events (monotonic ns), the handshake RTT the kernel measured, and the
    kernel's stamps of the request and the response (`clock`, given to the client that sends it)."""

    marks: dict[str, int] = field(default_factory=dict)
    handshake_rtt_ms: float | None = None
    socket: Any = None  # the connection's socket (asyncio's TransportSocket), for TCP_INFO
    clock: TtfbClock = field(default_factory=TtfbClock)

    async def trace(self, name: str, info: Mapping[str, Any]) -> None:
        self.marks.setdefault(name, time.perf_counter_ns())
        if name == "connection.connect_tcp.complete" and self.handshake_rtt_ms is None:
            stream = info.get("return_value")
            # asyncio hands out a TransportSocket wrapper here, not a socket.socket: it has getsockopt.
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                self.socket = sock
                self.handshake_rtt_ms = kernel_handshake_rtt_ms(sock)

    def span_ms(self, start: str, end: str) -> float | None:
        if start in self.marks and end in self.marks:
            return (self.marks[end] - self.marks[start]) / 1e6
        return None

    @property
    def ttfb_ms(self) -> float | None:
        """Request sent → response's first byte: from the kernel's timestamps (the request's segment leaving,
        the response's first segment arriving; see `_timed_transport` for HTTPS), else from httpcore's trace
        events (request written → response headers parsed), which the event loop's delays lengthen."""
        kernel = self.clock.ttfb_ms
        if kernel is not None:
            return kernel
        return self.span_ms("http11.send_request_body.complete", "http11.receive_response_headers.complete")

    @property
    def ttfb_source(self) -> str | None:
        """`kernel` or `user-space`: how `ttfb_ms` was timed (None when there is none)."""
        if self.clock.ttfb_ms is not None:
            return "kernel"
        return None if self.ttfb_ms is None else "user-space"
