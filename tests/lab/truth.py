"""Ground truth computed from the emulator's packet log: what each probe *should* have measured.

The true RTT of an exchange is measured where the office meets the link: from the moment the emulator read
the office's packet (`t_in_ns` of the request) to the moment it handed the answer to the office
(`t_out_ns` of the reply). Everything between — both applied delays, the region's own processing — is
on the path the office sees; what is left out is the office's own stack, which is the probing tool's
business (and the error we measure).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tests.lab.packetlog import (
    ACK,
    DOWN,
    FATE_NAMES,
    FORWARDED,
    ICMP,
    SYN,
    TCP,
    UP,
    ip_to_int,
)

ICMP_ECHO_REPLY = 0
ICMP_ECHO_REQUEST = 8


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request/answer pair: an ICMP echo or a TCP handshake (SYN → SYN-ACK)."""

    key: tuple[int, int]  # ICMP (id, seq); TCP (client port, ISN)
    sent_ns: int  # request read by the emulator (monotonic)
    rtt_ms: float | None  # None when no answer reached the office within the timeout
    fate: str  # "ok", "lost up (burst loss)", "lost down (random loss)", "late (… ms)", "no answer"
    segment: int  # profile segment in force when the request arrived

    @property
    def lost(self) -> bool:
        return self.rtt_ms is None


def _window(log: np.ndarray, since_ns: int, until_ns: int | None) -> np.ndarray:
    mask = log["t_in_ns"] >= since_ns
    if until_ns is not None:
        mask &= log["t_in_ns"] <= until_ns
    return log[mask]


def _answer(
    key: tuple[int, int],
    request: np.void,
    answers: dict[tuple[int, int], list[np.void]],
    timeout_s: float | None,
) -> tuple[float | None, str]:
    if int(request["fate"]) != FORWARDED:
        return None, f"lost up ({FATE_NAMES[int(request['fate'])]})"
    candidates = [a for a in answers.get(key, []) if int(a["t_in_ns"]) >= int(request["t_out_ns"])]
    delivered = [a for a in candidates if int(a["fate"]) == FORWARDED]
    if not delivered:
        if candidates:
            return None, f"lost down ({FATE_NAMES[int(candidates[0]['fate'])]})"
        return None, "no answer"
    rtt_ms = (int(delivered[0]["t_out_ns"]) - int(request["t_in_ns"])) / 1e6
    if timeout_s is not None and rtt_ms > timeout_s * 1000:
        return None, f"late ({rtt_ms:.1f} ms)"
    return rtt_ms, "ok"


def icmp_echoes(
    log: np.ndarray,
    host: str,
    *,
    since_ns: int = 0,
    until_ns: int | None = None,
    ident: int | None = None,
    timeout_s: float | None = None,
) -> list[Exchange]:
    """Every echo request the office sent to `host` in the window (by arrival at the emulator), in order,
    with its true RTT or why it was lost."""
    host_int = ip_to_int(host)
    win = _window(log, since_ns, until_ns)
    req = win[
        (win["direction"] == UP)
        & (win["proto"] == ICMP)
        & (win["kind"] == ICMP_ECHO_REQUEST)
        & (win["dst"] == host_int)
    ]
    if ident is not None:
        req = req[req["sport"] == ident]
    later = log[log["t_in_ns"] >= since_ns]
    rep = later[
        (later["direction"] == DOWN)
        & (later["proto"] == ICMP)
        & (later["kind"] == ICMP_ECHO_REPLY)
        & (later["src"] == host_int)
    ]
    answers: dict[tuple[int, int], list[np.void]] = {}
    for r in rep:
        answers.setdefault((int(r["sport"]), int(r["dport"])), []).append(r)
    out = []
    for r in np.sort(req, order="t_in_ns"):
        key = (int(r["sport"]), int(r["dport"]))
        rtt, fate = _answer(key, r, answers, timeout_s)
        out.append(Exchange(key, int(r["t_in_ns"]), rtt, fate, int(r["segment"])))
    return out


def echo_queueing(
    log: np.ndarray,
    host: str,
    *,
    delay_up_ms: float,
    delay_down_ms: float,
    since_ns: int = 0,
    until_ns: int | None = None,
) -> list[float | None]:
    """For every echo `icmp_echoes` lists (same window, same order): the time its request and its reply
    waited in the emulator's rate limiters, in ms (the log's `t_due − t_in` of each, minus the profile's
    fixed one-way delay: queueing plus the packet's own serialisation); None when either was dropped.
    Valid for profiles without jitter, whose delay is exactly `delay_*_ms`."""
    host_int = ip_to_int(host)
    win = _window(log, since_ns, until_ns)
    req = win[
        (win["direction"] == UP)
        & (win["proto"] == ICMP)
        & (win["kind"] == ICMP_ECHO_REQUEST)
        & (win["dst"] == host_int)
    ]
    later = log[log["t_in_ns"] >= since_ns]
    rep = later[
        (later["direction"] == DOWN)
        & (later["proto"] == ICMP)
        & (later["kind"] == ICMP_ECHO_REPLY)
        & (later["src"] == host_int)
        & (later["fate"] == FORWARDED)
    ]
    replies: dict[tuple[int, int], list[np.void]] = {}
    for r in rep:
        replies.setdefault((int(r["sport"]), int(r["dport"])), []).append(r)
    out: list[float | None] = []
    for r in np.sort(req, order="t_in_ns"):
        if int(r["fate"]) != FORWARDED:
            out.append(None)
            continue
        key = (int(r["sport"]), int(r["dport"]))
        answer = next((a for a in replies.get(key, []) if int(a["t_in_ns"]) >= int(r["t_out_ns"])), None)
        if answer is None:
            out.append(None)
            continue
        up = (int(r["t_due_ns"]) - int(r["t_in_ns"])) / 1e6 - delay_up_ms
        down = (int(answer["t_due_ns"]) - int(answer["t_in_ns"])) / 1e6 - delay_down_ms
        out.append(up + down)
    return out


def tcp_handshakes(
    log: np.ndarray,
    host: str,
    port: int,
    *,
    since_ns: int = 0,
    until_ns: int | None = None,
    timeout_s: float | None = None,
    retransmission_is_loss: bool = False,
) -> list[Exchange]:
    """Every connection the office opened to `host:port` in the window, in order: the true time from its
    first SYN to the first SYN-ACK delivered to the office (a retransmitted SYN keeps the ISN). With
    `retransmission_is_loss`, a handshake whose SYN the office sent more than once (its first SYN or
    SYN-ACK was lost) is lost, its fate "retransmitted, answered after … ms" or "retransmitted, no answer":
    it did not get through at the first try, whatever it did later."""
    host_int = ip_to_int(host)
    win = _window(log, since_ns, until_ns)
    flags = win["kind"] & (SYN | ACK)
    syns = win[
        (win["direction"] == UP)
        & (win["proto"] == TCP)
        & (flags == SYN)
        & (win["dst"] == host_int)
        & (win["dport"] == port)
    ]
    later = log[log["t_in_ns"] >= since_ns]
    lflags = later["kind"] & (SYN | ACK)
    synacks = later[
        (later["direction"] == DOWN)
        & (later["proto"] == TCP)
        & (lflags == (SYN | ACK))
        & (later["src"] == host_int)
        & (later["sport"] == port)
    ]
    answers: dict[tuple[int, int], list[np.void]] = {}
    for r in synacks:
        answers.setdefault((int(r["dport"]), (int(r["tcp_ack"]) - 1) & 0xFFFFFFFF), []).append(r)
    out = []
    seen: set[tuple[int, int]] = set()
    for r in np.sort(syns, order="t_in_ns"):
        key = (int(r["sport"]), int(r["tcp_seq"]))
        if key in seen:
            continue  # a retransmission of a SYN already counted
        seen.add(key)
        first = r
        tries = syns[(syns["sport"] == key[0]) & (syns["tcp_seq"] == key[1])]
        if retransmission_is_loss and len(tries) > 1:
            ends = [
                a
                for a in answers.get(key, [])
                if int(a["fate"]) == FORWARDED and int(a["t_in_ns"]) >= int(first["t_in_ns"])
            ]
            fate = (
                f"retransmitted, answered after {(int(ends[0]['t_out_ns']) - int(first['t_in_ns'])) / 1e6:.1f} ms"
                if ends
                else "retransmitted, no answer"
            )
            out.append(Exchange(key, int(first["t_in_ns"]), None, fate, int(first["segment"])))
            continue
        if int(first["fate"]) != FORWARDED:
            # The first SYN was lost: a retransmission may still get through (it counts from the first).
            retries = syns[
                (syns["sport"] == key[0]) & (syns["tcp_seq"] == key[1]) & (syns["fate"] == FORWARDED)
            ]
            if len(retries):
                rtt, fate = _answer(key, retries[0], answers, None)
                if rtt is not None:
                    rtt = (int(retries[0]["t_in_ns"]) - int(first["t_in_ns"])) / 1e6 + rtt
                    if timeout_s is not None and rtt > timeout_s * 1000:
                        rtt, fate = None, f"late ({rtt:.1f} ms, SYN retransmitted)"
            else:
                rtt, fate = _answer(key, first, answers, timeout_s)
        else:
            rtt, fate = _answer(key, first, answers, timeout_s)
        out.append(Exchange(key, int(first["t_in_ns"]), rtt, fate, int(first["segment"])))
    return out


@dataclass(frozen=True, slots=True)
class HttpExchange:
    """One HTTP connection's truth: handshake, and request → first response byte."""

    client_port: int
    syn_ns: int
    connect_ms: float | None  # first SYN → SYN-ACK delivered
    request_ns: int | None  # first request byte read by the emulator
    first_byte_ns: int | None  # first response byte handed to the office
    payload_bytes: int  # response bytes (headers + body) delivered to the office
    last_byte_ns: int | None

    @property
    def request_to_first_byte_ms(self) -> float | None:
        if self.request_ns is None or self.first_byte_ns is None:
            return None
        return (self.first_byte_ns - self.request_ns) / 1e6

    @property
    def syn_to_first_byte_ms(self) -> float | None:
        if self.first_byte_ns is None:
            return None
        return (self.first_byte_ns - self.syn_ns) / 1e6


def http_exchanges(
    log: np.ndarray,
    host: str,
    port: int,
    *,
    since_ns: int = 0,
    until_ns: int | None = None,
) -> list[HttpExchange]:
    """Per TCP connection to `host:port` in the window: connect time, when the request went, when the first
    and last response bytes reached the office, and how many."""
    host_int = ip_to_int(host)
    later = log[log["t_in_ns"] >= since_ns]
    out = []
    for hs in tcp_handshakes(log, host, port, since_ns=since_ns, until_ns=until_ns):
        cport = hs.key[0]
        up = later[
            (later["direction"] == UP)
            & (later["proto"] == TCP)
            & (later["dst"] == host_int)
            & (later["sport"] == cport)
            & (later["dport"] == port)
            & (later["payload_len"] > 0)
            & (later["t_in_ns"] >= hs.sent_ns)
        ]
        down = later[
            (later["direction"] == DOWN)
            & (later["proto"] == TCP)
            & (later["src"] == host_int)
            & (later["sport"] == port)
            & (later["dport"] == cport)
            & (later["payload_len"] > 0)
            & (later["fate"] == FORWARDED)
            & (later["t_in_ns"] >= hs.sent_ns)
        ]
        request_ns = int(up["t_in_ns"].min()) if len(up) else None
        first = int(down["t_out_ns"].min()) if len(down) else None
        last = int(down["t_out_ns"].max()) if len(down) else None
        out.append(
            HttpExchange(
                cport,
                hs.sent_ns,
                hs.rtt_ms,
                request_ns,
                first,
                int(down["payload_len"].astype(np.int64).sum()),
                last,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class Delivery:
    """Payload a flow delivered to its receiver, and over what stretch."""

    payload_bytes: int
    packets: int
    first_ns: int | None
    last_ns: int | None
    payload_per_ip_byte: float  # of full-size data packets (e.g. 1448 / 1500): what a rate limit counting
    # IP bytes leaves for TCP payload
    new_payload_bytes: int = 0  # of `payload_bytes`, those the receiver had not been handed before (its
    # goodput: a second copy of data already delivered, e.g. after a spurious retransmission, is left out)

    def capacity_mbps(self, shaped_rate_mbps: float) -> float:
        """The payload rate a link shaped to `shaped_rate_mbps` (IP bytes) can carry for this flow."""
        return shaped_rate_mbps * self.payload_per_ip_byte

    @property
    def seconds(self) -> float:
        if self.first_ns is None or self.last_ns is None:
            return 0.0
        return (self.last_ns - self.first_ns) / 1e9

    def rate_mbps(self, since_ns: int | None = None, until_ns: int | None = None) -> float | None:
        start = since_ns if since_ns is not None else self.first_ns
        end = until_ns if until_ns is not None else self.last_ns
        if start is None or end is None or end <= start:
            return None
        return self.payload_bytes * 8 / ((end - start) / 1e9) / 1e6


def tcp_delivery(
    log: np.ndarray,
    host: str,
    *,
    direction: int = DOWN,
    port: int | None = None,
    since_ns: int = 0,
    until_ns: int | None = None,
    by: str = "t_out_ns",
    min_payload: int = 1,
) -> Delivery:
    """TCP payload forwarded in `direction` between the office and `host` (optionally only the flows with
    `port` at the host's end), handed over between `since_ns` and `until_ns` (by `t_out_ns`); only segments
    with at least `min_payload` bytes (e.g. 1000 to leave control messages out)."""
    sel = _tcp_payload(log, host, direction, port, min_payload)
    if until_ns is not None:
        sel = sel[sel[by] <= until_ns]
    history = sel  # everything delivered up to the window's end: what was new in the window
    sel = sel[sel[by] >= since_ns]
    if not len(sel):
        return Delivery(0, 0, None, None, math.nan)
    full = sel[sel["ip_len"] == sel["ip_len"].max()]
    earlier = history[history[by] < since_ns]
    return Delivery(
        int(sel["payload_len"].astype(np.int64).sum()),
        len(sel),
        int(sel[by].min()),
        int(sel[by].max()),
        float(full["payload_len"].mean() / full["ip_len"].mean()),
        _sequence_covered(history) - _sequence_covered(earlier),
    )


def _tcp_payload(
    log: np.ndarray, host: str, direction: int, port: int | None, min_payload: int = 1
) -> np.ndarray:
    """The forwarded TCP segments with at least `min_payload` bytes of payload in `direction` between the
    office and `host` (with `port` at the host's end, unless None)."""
    host_int = ip_to_int(host)
    sel = log[
        (log["direction"] == direction)
        & (log["proto"] == TCP)
        & (log["fate"] == FORWARDED)
        & (log["payload_len"] >= max(min_payload, 1))
    ]
    end, port_field = ("src", "sport") if direction == DOWN else ("dst", "dport")
    sel = sel[sel[end] == host_int]
    return sel if port is None else sel[sel[port_field] == port]


def _byte_ranges(segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each segment of one flow as [start, end) in bytes from the flow's lowest sequence number seen
    (sequence numbers wrap at 2**32; the first segment given is the reference)."""
    start = (segments["tcp_seq"].astype(np.int64) - int(segments["tcp_seq"][0])) % 2**32
    start = np.where(start >= 2**31, start - 2**32, start)  # a byte before the reference's
    start -= start.min()
    return start, start + segments["payload_len"].astype(np.int64)


def _sequence_covered(segments: np.ndarray) -> int:
    """Bytes of sequence space the `segments` cover, per flow (each copy of a byte counted once)."""
    total = 0
    flows = segments[["src", "dst", "sport", "dport"]]
    for flow in np.unique(flows):
        start, end = _byte_ranges(segments[flows == flow])
        order = np.argsort(start, kind="stable")
        reach = None
        for a, b in zip(start[order].tolist(), end[order].tolist(), strict=True):
            if reach is None or a >= reach:
                total += b - a
                reach = b
            elif b > reach:
                total += b - reach
                reach = b
    return total


@dataclass(frozen=True, slots=True)
class InOrder:
    """A flow's data as its receiver could read it: after each forwarded segment (`times_ns`, ascending), how
    many bytes had arrived in order (`received`). A byte behind a hole counts once the hole is filled, as a
    reading application (iperf3, curl) counts it; the wire's count (`tcp_delivery`) has it when it crossed."""

    times_ns: np.ndarray
    received: np.ndarray
    first_segment_bytes: (
        int  # the payload of the flow's first segment in sequence (an HTTP response's header)
    )

    @property
    def first_ns(self) -> int:
        return int(self.times_ns[0])

    @property
    def last_ns(self) -> int:
        return int(self.times_ns[-1])

    def bytes_by(self, at_ns: int) -> int:
        """In-order bytes at `at_ns`."""
        i = int(np.searchsorted(self.times_ns, at_ns, side="right")) - 1
        return int(self.received[i]) if i >= 0 else 0

    def rate_mbps(self, since_ns: int, until_ns: int) -> float:
        return (self.bytes_by(until_ns) - self.bytes_by(since_ns)) * 8 / ((until_ns - since_ns) / 1e9) / 1e6

    def first_past_ns(self, offset: int) -> int:
        """When the in-order data first went past the flow's first `offset` bytes (e.g. an HTTP response's
        header segment: when its body could first be read)."""
        i = int(np.searchsorted(self.received, offset, side="right"))
        if i >= len(self.received):
            raise AssertionError(f"the flow never went past {offset} bytes")
        return int(self.times_ns[i])


def in_order(log: np.ndarray, host: str, *, direction: int, port: int, since_ns: int = 0) -> InOrder:
    """The in-order delivery of the flow with `port` at the host's end that carried the most payload in
    `direction` from `since_ns` on (iperf3's data connection rather than its control one)."""
    sel = _tcp_payload(log, host, direction, port)
    sel = sel[sel["t_out_ns"] >= since_ns]
    if not len(sel):
        raise AssertionError(f"no TCP payload {host}:{port} in the log")
    other = sel["dport"] if direction == DOWN else sel["sport"]
    ports, index = np.unique(other, return_inverse=True)
    weights = np.bincount(index, weights=sel["payload_len"].astype(np.float64))
    sel = sel[other == ports[int(np.argmax(weights))]]
    sel = sel[np.argsort(sel["t_out_ns"], kind="stable")]
    start, end = _byte_ranges(sel)
    received = np.empty(len(sel), dtype=np.int64)
    reach, held = 0, []  # the in-order edge; segments beyond it, as a heap of (start, end)
    for i, (a, b) in enumerate(zip(start.tolist(), end.tolist(), strict=True)):
        if a <= reach:
            reach = max(reach, b)
        else:
            heapq.heappush(held, (a, b))
        while held and held[0][0] <= reach:
            reach = max(reach, heapq.heappop(held)[1])
        received[i] = reach
    first = int(np.argmin(start))
    return InOrder(sel["t_out_ns"].astype(np.int64), received, int(end[first] - start[first]))


# --- statistics used on both sides of a comparison ------------------------------------------------------


def rtts(exchanges: Iterable[Exchange]) -> list[float]:
    return [e.rtt_ms for e in exchanges if e.rtt_ms is not None]


def lost(exchanges: Iterable[Exchange]) -> int:
    return sum(1 for e in exchanges if e.rtt_ms is None)


def median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if len(values) else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolation percentile (numpy's default), `q` in 0..100."""
    return float(np.percentile(values, q)) if len(values) else None


def wall_minus_monotonic_ns() -> int:
    """CLOCK_REALTIME − CLOCK_MONOTONIC now (the tightest of a few reads), to place UTC timestamps on the
    log's monotonic axis."""
    best: tuple[int, int] | None = None
    for _ in range(5):
        a = time.monotonic_ns()
        wall = time.time_ns()
        b = time.monotonic_ns()
        if best is None or b - a < best[0]:
            best = (b - a, wall - (a + b) // 2)
    assert best is not None
    return best[1]
