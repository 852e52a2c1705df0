"""The Windows backend: ICMP echo through the system's ICMP API (`IcmpSendEcho2` / `Icmp6SendEcho2` in
iphlpapi.dll, via ctypes; no administrator rights and no raw socket), each echo a blocking call in one of
the engine's threads, timed around the call on the monotonic high-resolution clock
(`time.perf_counter_ns`, QueryPerformanceCounter: `timestamps` = `user`); the API's own RoundTripTime is
whole milliseconds, so it is not used. Traceroute sends echoes with the API's TTL option. TCP connect
times are taken in user space. At most `MAX_IN_FLIGHT` echoes wait for their answer at once: more wait
for a thread, so very large runs are paced more slowly than asked (their RTTs are unaffected, each timed
from its own call).

Written to the API's documentation; it runs on the hosted CI's Windows job, not on this project's
machines. Its structures and reply parsing (`probes.backends.windows_api`) and this engine's outcome rules
(`outcome_of`) are tested on Linux (`tests/probes/test_backends.py`); the calls into iphlpapi.dll are not.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import math
import secrets
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from probes.backends import windows_api as api
from probes.backends.base import EchoEngine, OutcomeHook, ProbeBackend, no_kernel_handshake_rtt
from probes.errors import ErrorKind, IcmpNotPermitted
from probes.i18n import _
from probes.icmp.echoes import EchoOutcome
from probes.pacing import Pacer
from probes.timestamps import TimestampSource

MAX_IN_FLIGHT = 64
_INVALID_HANDLE = ctypes.c_void_p(-1).value


def outcome_of(
    status: int, responder: str | None, sent_wall_ns: int, elapsed_ns: int, timeout_ns: int
) -> EchoOutcome:
    """One echo's outcome from what the API said (an IP_STATUS and who answered) and the time the call
    took; an answer after the timeout is late (lost)."""
    answered, error = api.answer_kind(status)
    sent_at_us = sent_wall_ns // 1000
    if not answered:
        detail = (
            _("IcmpSendEcho2 status {status}").format(status=status)
            if error is ErrorKind.SEND_FAILED
            else None
        )
        return EchoOutcome(sent_at_us, None, error, detail=detail)
    elapsed_ms = elapsed_ns / 1e6
    if elapsed_ns > timeout_ns:
        return EchoOutcome(sent_at_us, None, ErrorKind.LATE, responder, elapsed_ms, TimestampSource.USER)
    rtt = None if error else elapsed_ms
    return EchoOutcome(sent_at_us, rtt, error, responder, elapsed_ms, TimestampSource.USER)


def _last_error() -> int:
    """GetLastError as ctypes saved it after the call (Windows only)."""
    get: Any = getattr(ctypes, "get_last_error")  # noqa: B009 - absent from ctypes off Windows
    return int(get())


class _Api:
    """iphlpapi.dll's functions, typed (Windows only)."""

    def __init__(self) -> None:
        dll: Any = ctypes.WinDLL("iphlpapi.dll", use_last_error=True)  # type: ignore[attr-defined]
        self.options, self.reply = api.native()
        handle, dword, word, pvoid = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint16, ctypes.c_void_p
        dll.IcmpCreateFile.restype = dll.Icmp6CreateFile.restype = handle
        dll.IcmpCloseHandle.argtypes = [handle]
        dll.IcmpSendEcho2.restype = dword
        dll.IcmpSendEcho2.argtypes = [
            handle,
            handle,
            pvoid,
            pvoid,
            dword,
            pvoid,
            word,
            ctypes.POINTER(self.options),
            pvoid,
            dword,
            dword,
        ]
        dll.Icmp6SendEcho2.restype = dword
        dll.Icmp6SendEcho2.argtypes = [
            handle, handle, pvoid, pvoid,
            ctypes.POINTER(api.SOCKADDR_IN6), ctypes.POINTER(api.SOCKADDR_IN6),
            pvoid, word, ctypes.POINTER(self.options), pvoid, dword, dword,
        ]  # fmt: skip
        dll.Icmp6ParseReplies.restype = dword
        dll.Icmp6ParseReplies.argtypes = [pvoid, dword]
        self.dll = dll

    def open(self, family: int) -> int:
        handle = self.dll.Icmp6CreateFile() if family == socket.AF_INET6 else self.dll.IcmpCreateFile()
        if handle in (None, _INVALID_HANDLE):
            raise IcmpNotPermitted(
                _("the Windows ICMP API refused a handle (error {code})").format(code=_last_error())
            )
        return int(handle)

    def echo(
        self, handle: int, family: int, address: str, data: bytes, ttl: int | None, timeout_ms: int
    ) -> tuple[int, str | None, int, int]:
        """One blocking echo: (status, responder, sent wall ns, elapsed ns)."""
        options = self.options()
        options.Ttl = ttl if ttl is not None else 128
        size = api.reply_buffer_bytes(
            api.ICMPV6_ECHO_REPLY if family == socket.AF_INET6 else self.reply, len(data)
        )
        buffer = ctypes.create_string_buffer(size)
        request = ctypes.create_string_buffer(data, len(data))
        if family == socket.AF_INET6:
            source, destination = api.sockaddr_in6("::"), api.sockaddr_in6(address)
            sent_wall = time.time_ns()
            started = time.perf_counter_ns()
            count = self.dll.Icmp6SendEcho2(
                handle, None, None, None, ctypes.byref(source), ctypes.byref(destination),
                request, len(data), ctypes.byref(options), buffer, size, timeout_ms,
            )  # fmt: skip
            elapsed = time.perf_counter_ns() - started
            if count == 0:
                return _last_error(), None, sent_wall, elapsed
            self.dll.Icmp6ParseReplies(buffer, size)
            status, responder, _rtt = api.parse_reply6(buffer.raw)
            return status, responder, sent_wall, elapsed
        sent_wall = time.time_ns()
        started = time.perf_counter_ns()
        count = self.dll.IcmpSendEcho2(
            handle, None, None, None, api.ipaddr(address), request, len(data), ctypes.byref(options), buffer,
            size, timeout_ms,
        )  # fmt: skip
        elapsed = time.perf_counter_ns() - started
        if count == 0:
            return _last_error(), None, sent_wall, elapsed
        status, responder, _rtt = api.parse_reply4(buffer.raw, self.reply)
        return status, responder, sent_wall, elapsed


class WindowsIcmpEngine:
    """The `EchoEngine` over the Windows ICMP API; use one per event loop."""

    def __init__(self, privileged: bool | None = None) -> None:
        self._api: _Api | None = None
        self._handles: dict[int, int] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(MAX_IN_FLIGHT, thread_name_prefix="linkvet-icmp")
        self._token = secrets.token_bytes(8)
        self._tasks: set[asyncio.Task[list[EchoOutcome]]] = set()

    async def __aenter__(self) -> WindowsIcmpEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def _handle(self, family: int) -> int:
        with self._lock:
            if self._api is None:
                try:
                    self._api = _Api()
                except (OSError, AttributeError) as exc:
                    raise IcmpNotPermitted(
                        _("the Windows ICMP API (iphlpapi.dll) is not here: {reason}").format(reason=exc)
                    ) from exc
            handle = self._handles.get(family)
            if handle is None:
                handle = self._handles[family] = self._api.open(family)
            return handle

    def privileged(self, family: int = socket.AF_INET) -> bool:
        self._handle(family)
        return False  # the ICMP API needs no raw socket

    def tx_timestamps_refused(self, family: int = socket.AF_INET) -> str | None:
        return None

    def sees_icmp_errors(self, family: int = socket.AF_INET) -> bool:
        return True  # the API reports TTL expired and unreachable with the router's address

    def send(
        self, address: str, family: int, timeout_s: float, payload_bytes: int = 56, ttl: int | None = None
    ) -> asyncio.Future[EchoOutcome]:
        handle = self._handle(family)
        assert self._api is not None
        echo, data = self._api.echo, api.request_payload(payload_bytes, self._token)
        timeout_ns = max(1, round(timeout_s * 1e9))
        timeout_ms = max(1, math.ceil(timeout_s * 1000))

        def call() -> EchoOutcome:
            status, responder, sent_wall, elapsed = echo(handle, family, address, data, ttl, timeout_ms)
            return outcome_of(status, responder, sent_wall, elapsed, timeout_ns)

        return asyncio.wrap_future(self._pool.submit(call))

    def train(
        self,
        address: str,
        family: int,
        *,
        count: int,
        interval_s: float,
        timeout_s: float,
        payload_bytes: int = 56,
        pacer: Pacer | None = None,
        on_outcome: OutcomeHook | None = None,
    ) -> asyncio.Future[list[EchoOutcome]]:
        self._handle(family)  # IcmpNotPermitted now, as the sockets' engine raises it
        task = asyncio.ensure_future(
            self._train(address, family, count, interval_s, timeout_s, payload_bytes, pacer, on_outcome)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _train(
        self,
        address: str,
        family: int,
        count: int,
        interval_s: float,
        timeout_s: float,
        payload_bytes: int,
        pacer: Pacer | None,
        on_outcome: OutcomeHook | None,
    ) -> list[EchoOutcome]:
        pending: list[asyncio.Future[EchoOutcome]] = []
        loop = asyncio.get_running_loop()
        for index in range(count):
            due = loop.time() + interval_s
            if pacer is not None:
                await pacer.turn()
            future = self.send(address, family, timeout_s, payload_bytes)
            if pacer is not None:
                pacer.sent()
            if on_outcome is not None:
                future.add_done_callback(functools.partial(_report, on_outcome, index))
            pending.append(future)
            if index + 1 < count:
                await asyncio.sleep(max(0.0, due - loop.time()))
        return list(await asyncio.gather(*pending))

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            if self._api is not None:
                for handle in self._handles.values():
                    with contextlib.suppress(OSError):
                        self._api.dll.IcmpCloseHandle(handle)
            self._handles.clear()


def _report(hook: OutcomeHook, index: int, future: asyncio.Future[EchoOutcome]) -> None:
    if not future.cancelled() and future.exception() is None:
        hook(index, future.result())


def open_icmp(privileged: bool | None) -> EchoEngine:
    return WindowsIcmpEngine(privileged)


BACKEND = ProbeBackend(
    name="windows",
    platforms=frozenset({"win32"}),
    best_timestamps=TimestampSource.USER,
    trace_protocols=frozenset({"icmp"}),
    open_icmp=open_icmp,
    handshake_rtt_ms=no_kernel_handshake_rtt,
)
