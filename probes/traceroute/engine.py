"""Traceroute: several probes per TTL, mtr-style per-hop RTT and loss, each hop labelled with its network.

Probes go out in rounds. Round 0 walks the TTLs upwards with a few probes in flight at once and stops
sending past the destination (or a router that says it is unreachable) as soon as that answer is in;
later rounds, `round_interval_s` apart, probe only the TTLs up to there. Probes sent past the destination
before its answer arrived are dropped from the result, as traceroute does. A probe with no answer within
`timeout_s` is lost.

    result = trace("198.19.1.2", TraceOptions(protocol="icmp", probes_per_hop=3))

`on_reply(ttl, probe, answer)` (optional) hears every probe's answer as it comes, for a live view (the
desktop's Routes screen); the result alone says which of them counted (probes past the destination do not).

The trace runs from this machine: it shows the path *to* the target (for an office, to the region). The
return path, which decides much of what a line feels like, may differ and cannot be seen from here.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from probes import limits
from probes.backends import EchoEngine, ProbeBackend, choose_backend
from probes.errors import ErrorKind, IcmpNotPermitted, ResolveFailed, TargetError
from probes.i18n import _, ngettext
from probes.pacing import Pacer
from probes.resolve import resolve
from probes.results import PathHop
from probes.routes.classify import classify_path
from probes.routes.table import NetworkMatch, NetworkTable
from probes.timestamps import now_us
from probes.traceroute.probers import (
    DEFAULT_TCP_PORT,
    DEFAULT_UDP_PORT,
    HopAnswer,
    IcmpProber,
    Prober,
    TcpProber,
    UdpProber,
)
from probes.traceroute.result import PROTOCOLS, HopReply, TraceHop, TraceProtocol, TraceResult

ReplyHook = Callable[[int, int, HopAnswer], None]  # (ttl, probe, answer), as each answer arrives
MAX_TTL = 255
# Without a run's pacer, probes leave at most one per millisecond (the runner's default, fping's -i 1):
# in round 0 the destination's answer then often arrives before probes past it are sent.
DEFAULT_GAP_S = 0.001


@dataclass(frozen=True, slots=True)
class TraceOptions:
    """How to trace. Times in seconds.

    `port`: UDP's first destination port (default 33434, then one port per probe) or the TCP port
    (default 80). `parallel`: probes in flight while round 0 looks for the destination.
    """

    protocol: TraceProtocol = "icmp"
    probes_per_hop: int = 3
    max_hops: int = 30
    first_hop: int = 1
    timeout_s: float = 2.0
    round_interval_s: float = 0.5
    parallel: int = 8
    port: int | None = None
    payload_bytes: int = 32

    def __post_init__(self) -> None:
        for message, value, limit in (  # the limits the flags and plans use (`probes.limits`)
            (_("timeout: {problem}"), self.timeout_s, limits.TIMEOUT),
            (_("interval: {problem}"), self.round_interval_s, limits.INTERVAL),
            (_("probes per hop: {problem}"), self.probes_per_hop, limits.PROBES_PER_HOP),
        ):
            try:
                limit.check(value)
            except ValueError as exc:
                raise TargetError(message.format(problem=exc)) from None
        checks = [
            (
                self.protocol in PROTOCOLS,
                _("protocol must be one of {protocols} (got {value!r})").format(
                    protocols=", ".join(PROTOCOLS), value=self.protocol
                ),
            ),
            (
                1 <= self.max_hops <= MAX_TTL,
                _("max hops must be 1-{most} (got {value})").format(most=MAX_TTL, value=self.max_hops),
            ),
            (
                1 <= self.first_hop <= self.max_hops,
                _("first hop must be 1-{most} (got {value})").format(
                    most=self.max_hops, value=self.first_hop
                ),
            ),
            (
                1 <= self.parallel <= 64,
                _("parallel probes must be 1-64 (got {value})").format(value=self.parallel),
            ),
            (
                self.port is None or 1 <= self.port <= 65535,
                _("port must be 1-65535 (got {value})").format(value=self.port),
            ),
            (
                0 <= self.payload_bytes <= 1400,
                _("payload must be 0-1400 bytes (got {value})").format(value=self.payload_bytes),
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise TargetError(message)
        if self.protocol == "udp" and self.port is not None:
            probes = self.probes_per_hop * self.max_hops
            if self.port + probes > 65536:
                raise TargetError(
                    _("UDP ports {port}+{probes} probes run past 65535: give a lower --port").format(
                        port=self.port, probes=probes
                    )
                )

    @property
    def effective_port(self) -> int | None:
        if self.protocol == "udp":
            return self.port or DEFAULT_UDP_PORT
        if self.protocol == "tcp":
            return self.port or DEFAULT_TCP_PORT
        return None


async def trace_host(
    host: str,
    options: TraceOptions,
    table: NetworkTable,
    *,
    icmp: EchoEngine | None = None,
    pacer: Pacer | None = None,
    name: str | None = None,
    on_reply: ReplyHook | None = None,
    backend: ProbeBackend | None = None,
) -> TraceResult:
    """Trace the path to `host` (a name or address). Never raises for what the network or the OS does:
    a name that does not resolve, a refused ICMP socket or a protocol the probe backend cannot run come
    back as a result with `error` set.

    `icmp`: the run's shared engine (a private one is opened when None). `pacer`: the run's packet pacer.
    `on_reply`: called with every probe's answer as it arrives. `backend`: the run's probe backend
    (default: this platform's, `probes.backends.choose_backend`).
    """
    started = now_us()
    target = name or host
    backend = backend or choose_backend()
    if options.protocol not in backend.trace_protocols:
        message = _(
            "the {backend} probe backend cannot trace over {protocol} (it needs Linux's socket error "
            "queue); trace over {protocols}"
        ).format(
            backend=backend.name,
            protocol=options.protocol.upper(),
            protocols=", ".join(p.upper() for p in sorted(backend.trace_protocols)),
        )
        return _failed(target, None, options, started, ErrorKind.UNSUPPORTED, message)
    try:
        resolved = await resolve(host)
    except ResolveFailed as exc:
        return _failed(target, None, options, started, ErrorKind.DNS, str(exc))
    if icmp is None and options.protocol == "icmp":
        async with backend.open_icmp(None) as engine:
            return await _trace_address(
                target, resolved.address, resolved.family, options, table, engine, pacer, on_reply
            )
    return await _trace_address(
        target, resolved.address, resolved.family, options, table, icmp, pacer, on_reply
    )


def trace(host: str, options: TraceOptions | None = None, table: NetworkTable | None = None) -> TraceResult:
    """`trace_host` in a new event loop (for scripts and tests). Default table: bundled + the user's."""
    from probes.routes.table import load_network_table

    return asyncio.run(trace_host(host, options or TraceOptions(), table or load_network_table()))


async def trace_repeatedly(
    host: str,
    options: TraceOptions,
    table: NetworkTable,
    count: int,
    *,
    gap_s: float = 0.0,
    icmp: EchoEngine | None = None,
    on_reply: Callable[[int, int, int, HopAnswer], None] | None = None,
    on_trace: Callable[[int, TraceResult], None] | None = None,
    backend: ProbeBackend | None = None,
) -> list[TraceResult]:
    """`count` traces of the same host one after another (for a verdict over several traces).
    `on_reply(trace_index, ttl, probe, answer)` hears each answer as it arrives, `on_trace(index, result)`
    each trace as it ends."""
    results: list[TraceResult] = []
    backend = backend or choose_backend()
    async with backend.open_icmp(None) if icmp is None else _borrowed(icmp) as engine:
        for index in range(count):
            if index and gap_s:
                await asyncio.sleep(gap_s)
            hook = None if on_reply is None else functools.partial(on_reply, index)
            result = await trace_host(host, options, table, icmp=engine, on_reply=hook, backend=backend)
            if on_trace is not None:
                on_trace(index, result)
            results.append(result)
            if result.error in (ErrorKind.DNS, ErrorKind.PERMISSION, ErrorKind.UNSUPPORTED):
                break  # the next trace would fail the same way
    return results


class _borrowed:
    """`async with` over an engine that belongs to someone else: does not close it."""

    def __init__(self, engine: EchoEngine) -> None:
        self.engine = engine

    async def __aenter__(self) -> EchoEngine:
        return self.engine

    async def __aexit__(self, *exc: object) -> None:
        return None


async def _trace_address(
    target: str,
    address: str,
    family: int,
    options: TraceOptions,
    table: NetworkTable,
    icmp: EchoEngine | None,
    pacer: Pacer | None,
    on_reply: ReplyHook | None = None,
) -> TraceResult:
    started = now_us()
    try:
        prober = _open_prober(address, family, options, icmp)
    except IcmpNotPermitted as exc:
        message = _(
            "{reason} Or trace with --protocol udp or --protocol tcp, which need no privileges."
        ).format(reason=exc)
        return _failed(target, address, options, started, ErrorKind.PERMISSION, message)
    except _RoutersUnseen as exc:
        return _failed(target, address, options, started, ErrorKind.UNSUPPORTED, str(exc))
    except OSError as exc:
        message = _("cannot open a {protocol} socket: {reason}").format(
            protocol=options.protocol.upper(), reason=exc.strerror or exc
        )
        return _failed(target, address, options, started, ErrorKind.SEND_FAILED, message)
    try:
        answers = await _probe_rounds(prober, options, pacer, on_reply)
    finally:
        prober.close()
    hops = _hops(answers, table)
    reached = any(hop.reached for hop in hops)
    return TraceResult(
        target=target,
        address=address,
        protocol=options.protocol,
        port=options.effective_port,
        probes_per_hop=options.probes_per_hop,
        max_hops=options.max_hops,
        started_at_us=started,
        finished_at_us=now_us(),
        hops=hops,
        privileged=prober.privileged,
        message=_describe(hops, options),
        verdict=classify_path([PathHop(h.ttl, h.addresses) for h in hops], table, reached=reached),
    )


def _open_prober(address: str, family: int, options: TraceOptions, icmp: EchoEngine | None) -> Prober:
    if options.protocol == "icmp":
        assert icmp is not None
        prober = IcmpProber(icmp, address, family, options.timeout_s, options.payload_bytes)
        if not icmp.sees_icmp_errors(family):
            raise _RoutersUnseen(
                _(
                    "this probe backend's unprivileged ICMP socket receives no answers from routers (time "
                    "exceeded), so it cannot trace: run as root or with CAP_NET_RAW, or use the linux backend"
                )
            )
        return prober
    port = options.effective_port
    assert port is not None
    if options.protocol == "udp":
        return UdpProber(address, family, options.timeout_s, port, options.payload_bytes)
    return TcpProber(address, family, options.timeout_s, port)


class _RoutersUnseen(Exception):
    """The ICMP socket cannot see routers' answers (the portable backend without a raw socket)."""


@dataclass
class _Progress:
    """What the rounds know so far: the lowest TTL at which the destination answered, or a router
    said unreachable."""

    reached_ttl: int | None = None
    stop_ttl: int | None = None

    def limit(self, max_hops: int) -> int:
        return min(x for x in (self.reached_ttl, self.stop_ttl, max_hops) if x is not None)


async def _probe_rounds(
    prober: Prober, options: TraceOptions, pacer: Pacer | None, on_reply: ReplyHook | None = None
) -> list[tuple[int, int, HopAnswer]]:
    """Send every round; (ttl, probe, answer) for every probe sent."""
    progress = _Progress()
    sent: list[tuple[int, int, asyncio.Future[HopAnswer]]] = []

    def note(ttl: int, probe: int, future: asyncio.Future[HopAnswer]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        if on_reply is not None:
            on_reply(ttl, probe, future.result())
        kind = future.result().kind
        if kind == "reached":
            progress.reached_ttl = min(ttl, progress.reached_ttl or ttl)
        elif kind == "unreachable":
            progress.stop_ttl = min(ttl, progress.stop_ttl or ttl)

    highest_round0 = options.first_hop
    try:
        for probe in range(options.probes_per_hop):
            round_started = time.monotonic()
            in_flight: set[asyncio.Future[HopAnswer]] = set()
            ceiling = options.max_hops if probe == 0 else highest_round0
            ttl = options.first_hop
            while ttl <= min(ceiling, progress.limit(options.max_hops)):
                if probe == 0:
                    while len(in_flight) >= options.parallel:
                        _done, pending = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                        in_flight = set(pending)
                    if ttl > progress.limit(options.max_hops):
                        break
                    highest_round0 = ttl
                if pacer is not None:
                    await pacer.turn()
                elif sent:
                    await asyncio.sleep(DEFAULT_GAP_S)
                future = prober.send(ttl)
                future.add_done_callback(functools.partial(note, ttl, probe))
                sent.append((ttl, probe, future))
                in_flight.add(future)
                ttl += 1
            if probe + 1 < options.probes_per_hop:
                delay = round_started + options.round_interval_s - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
        answers = await asyncio.gather(*(future for _ttl, _probe, future in sent))
    except BaseException:
        for _ttl, _probe, future in sent:
            future.cancel()
        raise
    limit = progress.limit(options.max_hops)
    return [
        (ttl, probe, answer) for (ttl, probe, _f), answer in zip(sent, answers, strict=True) if ttl <= limit
    ]


def _hops(answers: list[tuple[int, int, HopAnswer]], table: NetworkTable) -> tuple[TraceHop, ...]:
    by_ttl: dict[int, list[HopReply]] = defaultdict(list)
    for ttl, probe, answer in answers:
        by_ttl[ttl].append(
            HopReply(
                probe=probe,
                sent_at_us=answer.sent_at_us,
                kind=answer.kind,
                address=answer.address,
                rtt_ms=answer.rtt_ms,
                error=answer.error,
            )
        )
    hops: list[TraceHop] = []
    for ttl in sorted(by_ttl):
        replies = tuple(sorted(by_ttl[ttl], key=lambda r: r.probe))
        addresses = {r.address for r in replies if r.address is not None}
        networks: tuple[tuple[str, NetworkMatch | None], ...] = tuple(
            (a, table.lookup(a)) for a in sorted(addresses)
        )
        hops.append(TraceHop(ttl=ttl, replies=replies, networks=networks))
    return tuple(hops)


def _describe(hops: tuple[TraceHop, ...], options: TraceOptions) -> str | None:
    if any(hop.reached for hop in hops):
        return None
    stopped = next((hop for hop in hops if any(r.kind == "unreachable" for r in hop.replies)), None)
    if stopped is not None:
        return _("hop {ttl} ({address}) reported the destination unreachable").format(
            ttl=stopped.ttl, address=stopped.address
        )
    if options.protocol == "tcp":
        text = ngettext(
            "the destination did not answer within {hops} hop (TCP port {port})",
            "the destination did not answer within {hops} hops (TCP port {port})",
            options.max_hops,
        )
    else:
        text = ngettext(
            "the destination did not answer within {hops} hop",
            "the destination did not answer within {hops} hops",
            options.max_hops,
        )
    return text.format(hops=options.max_hops, port=options.effective_port)


def _failed(
    target: str, address: str | None, options: TraceOptions, started: int, error: ErrorKind, message: str
) -> TraceResult:
    return TraceResult(
        target=target,
        address=address,
        protocol=options.protocol,
        port=options.effective_port,
        probes_per_hop=options.probes_per_hop,
        max_hops=options.max_hops,
        started_at_us=started,
        finished_at_us=now_us(),
        error=error,
        message=message,
    )
