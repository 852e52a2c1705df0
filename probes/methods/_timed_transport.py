"""An httpx transport whose connections tell a `TtfbClock` when the request went and the response came.

httpcore (under httpx) reads and writes through a network backend. This one opens the same anyio TCP
streams and anyio TLS streams as httpcore's own `AnyIOBackend`, with two thin layers of our own:

    httpcore ── TimedNetworkStream ── [anyio TLSStream] ── TimedByteStream ── anyio SocketStream ── socket
                (plaintext: the first        (https)        (the raw bytes: reads the socket itself, and
                 write arms the clock; the                   while the first response byte is awaited
                 first data read stops it)                   stamps them the moment they arrive)

`TimedByteStream` reads the socket itself (anyio's socket stream keeps its transport's reading paused from
the connection on, and only sends and closes), so bytes wait in the kernel's receive queue until it has
peeked at them.

Which instant is "the response's first byte":
    http    the first TCP segment that arrives after the request.
    https   the first TCP segment of the first TLS record that holds response bytes. Records the server sends
            before the response (TLS 1.3 session tickets, sent right after the handshake and often arriving
            just before the response) are not the response: while the response is awaited the TLS layer is
            handed one record at a time, so the record whose decryption yields the first response bytes is
            known, and the segment its first byte arrived in (found by peeking) is the one timed.

httpx 0.28 takes no network backend, so `timed_transport` gives its transport a connection pool built with
ours (the transport's `_pool`, the attribute httpx's own constructor sets); if that attribute is missing
the transport is httpx's own and the clock reports that it never reached a socket.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import select
import ssl
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import anyio
import anyio.abc
import anyio.streams.tls
import httpcore
import httpx

from probes.methods._kernel_times import TtfbClock

_TLS_HEADER = 5  # content type, version (2), length (2)


@contextlib.contextmanager
def _mapped(mapping: dict[type[Exception], type[Exception]]) -> Iterator[None]:
    """anyio's and the socket's exceptions as httpcore's, as httpcore's own backend maps them (httpx then
    maps httpcore's to its own)."""
    try:
        yield
    except Exception as exc:
        for source, target in mapping.items():
            if isinstance(exc, source):
                raise target(exc) from exc
        raise


class _RecordStarts:
    """Where TLS records begin in a byte stream fed chunk by chunk."""

    def __init__(self) -> None:
        self._left = 0  # bytes of the current record's body still to come
        self._header = b""  # the part of a record header seen so far

    def feed(self, chunk: bytes) -> list[int]:
        starts: list[int] = []
        pos = 0
        while pos < len(chunk):
            if self._left:
                step = min(self._left, len(chunk) - pos)
                pos += step
                self._left -= step
                continue
            if not self._header:
                starts.append(pos)
            take = chunk[pos : pos + _TLS_HEADER - len(self._header)]
            self._header += take
            pos += len(take)
            if len(self._header) == _TLS_HEADER:
                self._left = int.from_bytes(self._header[3:5], "big")
                self._header = b""
        return starts


class TimedByteStream(anyio.abc.ByteStream):
    """The connection's raw byte stream. Reads go through the clock (see `_kernel_times`); while the
    response is awaited each read first peeks at the arrival stamps of what is queued."""

    def __init__(self, inner: anyio.abc.SocketStream, clock: TtfbClock) -> None:
        self._inner = inner  # sends and closes; it reads only where the clock has no socket
        self._clock = clock
        self._records: _RecordStarts | None = None  # set when TLS starts over this stream
        self._pieces: deque[tuple[bytes, int | None, bool]] = deque()  # (bytes, stamp, starts a record)
        self.first_stamp: int | None = None  # plain: the first response segment's arrival
        self.record_stamp: int | None = None  # TLS: the arrival of the last handed record's first segment

    def start_tls(self) -> None:
        self._records = _RecordStarts()

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self._pieces:
            return self._hand(max_bytes)
        clock = self._clock
        if not clock.attached:
            return await self._inner.receive(max_bytes)
        while True:
            await clock.wait_readable()
            awaiting = clock.awaiting_response
            records = self._records if not clock.done else None
            queued = b"" if not awaiting else clock.peek(1 if records is None else 65536)
            starts = [0] if records is None else copy.copy(records).feed(queued)
            stamps = clock.peek_stamps(starts) if queued else {}
            try:
                chunk = clock.recv(max_bytes)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise anyio.BrokenResourceError from exc
            break
        if not chunk:
            raise anyio.EndOfStream
        if records is None:
            if awaiting and self.first_stamp is None:
                self.first_stamp = stamps.get(0)
            return chunk
        # TLS before the response: one record per read, so the record yielding plaintext is known.
        starts = records.feed(chunk)
        cuts = [0, *[s for s in starts if s], len(chunk)]
        for begin, end in itertools.pairwise(cuts):
            starts_record = begin in starts
            self._pieces.append((chunk[begin:end], stamps.get(begin), starts_record))
        return self._hand(max_bytes)

    def _hand(self, max_bytes: int) -> bytes:
        data, stamp, starts_record = self._pieces.popleft()
        if len(data) > max_bytes:
            self._pieces.appendleft((data[max_bytes:], None, False))
            data = data[:max_bytes]
        if starts_record:
            self.record_stamp = stamp
        return data

    async def send(self, item: bytes) -> None:
        await self._inner.send(item)

    async def send_eof(self) -> None:
        await self._inner.send_eof()

    async def aclose(self) -> None:
        self._clock.close()
        await self._inner.aclose()

    @property
    def extra_attributes(self) -> Mapping[Any, Callable[[], Any]]:
        return self._inner.extra_attributes


class TimedNetworkStream(httpcore.AsyncNetworkStream):
    """What httpcore reads and writes: plaintext over `stream` (the raw stream, or TLS over it)."""

    def __init__(self, stream: anyio.abc.ByteStream, raw: TimedByteStream, clock: TtfbClock) -> None:
        self._stream = stream
        self._raw = raw
        self._clock = clock
        self._tls = stream is not raw

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        mapping = {
            TimeoutError: httpcore.ReadTimeout,
            anyio.BrokenResourceError: httpcore.ReadError,
            anyio.ClosedResourceError: httpcore.ReadError,
            anyio.EndOfStream: httpcore.ReadError,
        }
        with _mapped(mapping), anyio.fail_after(timeout):
            try:
                data = await self._stream.receive(max_bytes=max_bytes)
            except anyio.EndOfStream:
                data = b""
        if data and self._clock.awaiting_response:
            self._clock.response_started(self._raw.record_stamp if self._tls else self._raw.first_stamp)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._clock.arm()  # httpcore's first write on a connection is the request
        mapping = {
            TimeoutError: httpcore.WriteTimeout,
            anyio.BrokenResourceError: httpcore.WriteError,
            anyio.ClosedResourceError: httpcore.WriteError,
        }
        with _mapped(mapping), anyio.fail_after(timeout):
            await self._stream.send(item=buffer)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        mapping = {
            TimeoutError: httpcore.ConnectTimeout,
            anyio.BrokenResourceError: httpcore.ConnectError,
            anyio.EndOfStream: httpcore.ConnectError,
            ssl.SSLError: httpcore.ConnectError,
        }
        self._raw.start_tls()
        try:
            with _mapped(mapping), anyio.fail_after(timeout):
                tls = await anyio.streams.tls.TLSStream.wrap(
                    self._stream,
                    ssl_context=ssl_context,
                    hostname=server_hostname,
                    standard_compatible=False,
                    server_side=False,
                )
        except Exception:
            await self.aclose()
            raise
        return TimedNetworkStream(tls, self._raw, self._clock)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._stream.extra(anyio.streams.tls.TLSAttribute.ssl_object, None)
        if info == "client_addr":
            return self._stream.extra(anyio.abc.SocketAttribute.local_address, None)
        if info == "server_addr":
            return self._stream.extra(anyio.abc.SocketAttribute.remote_address, None)
        if info == "socket":
            return self._stream.extra(anyio.abc.SocketAttribute.raw_socket, None)
        if info == "is_readable":
            sock = self._stream.extra(anyio.abc.SocketAttribute.raw_socket, None)
            return sock is not None and bool(select.select([sock], [], [], 0)[0])
        return None


class TimedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's TCP connections, each tied to `clock` (one request per client, so one per clock)."""

    def __init__(self, clock: TtfbClock) -> None:
        self._clock = clock

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        mapping = {
            TimeoutError: httpcore.ConnectTimeout,
            OSError: httpcore.ConnectError,
            anyio.BrokenResourceError: httpcore.ConnectError,
        }
        with _mapped(mapping), anyio.fail_after(timeout):
            stream = await anyio.connect_tcp(host, port, local_host=local_address)
            sock = stream.extra(anyio.abc.SocketAttribute.raw_socket)
            for option in socket_options or ():
                sock.setsockopt(*option)
        self._clock.attach(sock)
        raw = TimedByteStream(stream, self._clock)
        return TimedNetworkStream(raw, raw, self._clock)

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)


def timed_transport(ssl_context: ssl.SSLContext, clock: TtfbClock) -> httpx.AsyncHTTPTransport:
    """httpx's transport (its request and exception mapping) over a pool of `TimedBackend` connections."""
    transport = httpx.AsyncHTTPTransport(verify=ssl_context, trust_env=False)
    if hasattr(transport, "_pool"):
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context, network_backend=TimedBackend(clock)
        )
    return transport
