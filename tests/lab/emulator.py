"""The userspace link emulator: forwards IPv4 packets between the office's TUN device and each region's,
applying the region's `Profile` per direction, and logs every packet's fate and timing (the ground truth).

Run as `python -m tests.lab.emulator CONFIG.json` (the lab does this). The emulator attaches to TUN devices
that the lab created inside the namespaces (it enters each namespace with setns(2) only to open the device),
so nothing of the lab ever exists in the root namespace. It listens on a Unix socket for one-line JSON
commands: `set_profile`, `flush`, `stats`, `stop`.

Timing: the loop sleeps in select(2) (timer slack set to 1 ns) until `spin_us` before the next departure,
then busy-polls the devices with a zero timeout until the departure is due; see the lab README for the
measured accuracy.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import heapq
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.lab.packetlog import (
    DOWN,
    DROPPED_QUEUE,
    FORWARDED,
    LOST_BURST,
    LOST_RANDOM,
    NO_LAG,
    RECORD,
    UNROUTABLE,
    UP,
    parse_header,
)
from tests.lab.profiles import Direction, Profile

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_TIMERSLACK = 29
MAX_PACKET = 65536
NICE = -10
FIFO_PRIORITY = 10
ETH_P_ALL = 0x0003
SO_ATTACH_FILTER = 26
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
_CMSG_TS = socket.CMSG_SPACE(16)

_libc = ctypes.CDLL(None, use_errno=True)
_now = time.monotonic_ns


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


@contextlib.contextmanager
def inside_netns(netns: str) -> Iterator[None]:
    """Run the block with this thread in network namespace `netns` (sockets made there stay there)."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{netns}", os.O_RDONLY)
    try:
        _check(_libc.setns(target, CLONE_NEWNET), f"setns({netns})")
        try:
            yield
        finally:
            _check(_libc.setns(home, CLONE_NEWNET), "setns(back)")
    finally:
        os.close(home)
        os.close(target)


def open_tun_in_netns(netns: str, dev: str) -> int:
    """Attach to the (persistent) TUN device `dev` inside network namespace `netns`; returns its fd."""
    with inside_netns(netns):
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        ifr = struct.pack("16sH22x", dev.encode(), IFF_TUN | IFF_NO_PI)
        fcntl.ioctl(fd, TUNSETIFF, ifr)
    return fd


class Sniffer:
    """When a namespace's stack handed each packet to its TUN device: a packet socket on the device sees
    every outgoing packet at transmit time with a kernel timestamp (as tcpdump would), so a packet's
    arrival time does not depend on how quickly the emulator woke up to read it."""

    # Classic BPF: accept only packets this host sends (pkttype == PACKET_OUTGOING).
    _FILTER = ((0x20, 0, 0, 0xFFFFF004), (0x15, 0, 1, 4), (0x06, 0, 0, 0x40000), (0x06, 0, 0, 0))
    _LOOKAHEAD = 256

    def __init__(self, netns: str, dev: str) -> None:
        with inside_netns(netns):
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
            program = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in self._FILTER))
            self._program = program  # must outlive the setsockopt call
            self.sock.setsockopt(
                socket.SOL_SOCKET,
                SO_ATTACH_FILTER,
                struct.pack("HL", len(self._FILTER), ctypes.addressof(program)),
            )
            self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
            self.sock.bind((dev, ETH_P_ALL))
        self.sock.setblocking(False)
        self.pending: deque[tuple[bytes, int]] = deque()
        self.unmatched = 0
        self.skipped = 0

    def _drain(self) -> None:
        while True:
            try:
                data, ancdata, _, _ = self.sock.recvmsg(MAX_PACKET, _CMSG_TS)
            except BlockingIOError:
                return
            ts = 0
            for level, kind, value in ancdata:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", value[:16])
                    ts = sec * 1_000_000_000 + nsec
            self.pending.append((data, ts))

    def timestamp(self, packet: bytes) -> int | None:
        """CLOCK_REALTIME ns at which `packet` (just read from the TUN device) was transmitted, if seen."""
        # The copy is queued on the packet socket before the packet can be read from the device, so it is
        # either already drained into `pending` or waiting on the socket: drain only when needed.
        for attempt in (0, 1):
            if attempt or not self.pending:
                self._drain()
            pending = self.pending
            for i in range(min(len(pending), self._LOOKAHEAD)):
                if pending[i][0] == packet:
                    for _ in range(i):  # sniffed but never read: the device dropped them
                        pending.popleft()
                    self.skipped += i
                    return pending.popleft()[1] or None
        self.unmatched += 1
        return None


@dataclass
class LinkDirection:
    """Run-time state of one direction of one link."""

    link: int
    direction: int
    out_fd: int
    ge_bad: bool = False
    free_at_ns: int = 0  # when the rate limiter finishes sending what it has queued
    last_due_ns: int = 0  # departure of the previous packet (no reordering)


@dataclass
class Link:
    index: int
    name: str
    prefix: int  # /24 network of the region, as an int
    fd: int
    profile: Profile
    epoch_ns: int
    generation: int = 0
    up: LinkDirection = field(init=False)
    down: LinkDirection = field(init=False)


class Emulator:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.spin_ns = int(config.get("spin_us", 250) * 1000)
        self.spin_max_pending = int(config.get("spin_max_pending", 16))
        self.rng = random.Random(config.get("seed", 1))
        self.office_fd = open_tun_in_netns(config["office"]["netns"], config["office"]["dev"])
        self.sniffers: dict[int, Sniffer] = {}
        self.kernel_timestamps = bool(config.get("kernel_timestamps", True))
        if self.kernel_timestamps:
            self.sniffers[self.office_fd] = Sniffer(config["office"]["netns"], config["office"]["dev"])
        self.real_minus_mono_ns = _real_minus_mono_ns()
        now = _now()
        self.links: dict[int, Link] = {}
        self.by_prefix: dict[int, Link] = {}
        self.by_fd: dict[int, Link] = {}
        for i, region in enumerate(config["regions"], start=1):
            fd = open_tun_in_netns(region["netns"], region["dev"])
            if self.kernel_timestamps:
                self.sniffers[fd] = Sniffer(region["netns"], region["dev"])
            prefix = _ip_int(region["address"]) & 0xFFFFFF00
            link = Link(i, region["name"], prefix, fd, Profile.from_dict(region["profile"]), now)
            link.up = LinkDirection(i, UP, fd)
            link.down = LinkDirection(i, DOWN, self.office_fd)
            self.links[i] = link
            self.by_prefix[prefix] = link
            self.by_fd[fd] = link
        self.heap: list[tuple[int, int, int, bytes, tuple[Any, ...]]] = []
        self.last_clock_sync_ns = now
        self.counter = 0
        self.log_file = open(config["log"], "ab", buffering=0)  # noqa: SIM115 (closed in run())
        self.log_buf = bytearray()
        self.last_flush_ns = now
        self.meta_path = Path(config["log"]).with_suffix(".meta.jsonl")
        self.stats = {"forwarded": 0, "dropped": 0, "late_max_ns": 0, "packets_in": 0}
        self.stopping = False
        self.control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control.bind(config["control"])
        self.control.listen(16)
        self.control.setblocking(False)
        self._meta({"event": "start", "mono_ns": now, "real_ns": time.time_ns()})
        for link in self.links.values():
            self._meta_profile(link)

    # --- bookkeeping ---------------------------------------------------------------------------------------

    def _meta(self, record: dict[str, Any]) -> None:
        with self.meta_path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")

    def _meta_profile(self, link: Link) -> None:
        self._meta(
            {
                "event": "profile",
                "link": link.index,
                "name": link.name,
                "generation": link.generation,
                "epoch_ns": link.epoch_ns,
                "profile": link.profile.as_dict(),
            }
        )

    def _log(
        self,
        t_in: int,
        t_due: int,
        t_out: int,
        ld: LinkDirection,
        fate: int,
        seg: int,
        gen: int,
        hdr: tuple[int, ...],
        lag: int,
    ) -> None:
        proto, kind, src, dst, sport, dport, seq, ack, ip_len, payload_len = hdr
        self.log_buf += RECORD.pack(
            t_in,
            t_due,
            t_out,
            ld.link,
            ld.direction,
            fate,
            proto,
            seg,
            kind,
            src,
            dst,
            sport,
            dport,
            seq,
            ack,
            ip_len,
            payload_len,
            gen,
            lag,
        )

    def flush(self) -> None:
        if self.log_buf:
            self.log_file.write(self.log_buf)
            self.log_buf = bytearray()
        self.last_flush_ns = _now()

    # --- the packet path -----------------------------------------------------------------------------------

    def _admit(self, packet: bytes, t_in: int, lag: int, from_office: bool, link: Link | None) -> None:
        """Decide a packet's fate on arrival: dropped now (logged) or queued for departure."""
        hdr = parse_header(packet)
        self.stats["packets_in"] += 1
        if link is None:
            dummy = LinkDirection(0, UP if from_office else DOWN, -1)
            self._log(t_in, 0, -1, dummy, UNROUTABLE, 0, 0, hdr, lag)
            self.stats["dropped"] += 1
            return
        ld = link.up if from_office else link.down
        seg_index = link.profile.index_at((t_in - link.epoch_ns) / 1e9)
        seg = link.profile.segments[seg_index]
        spec: Direction = seg.up if from_office else seg.down
        start = t_in
        if spec.rate_mbps:
            start = max(t_in, ld.free_at_ns)
            if start - t_in > spec.queue_ms * 1e6:
                self._log(t_in, 0, -1, ld, DROPPED_QUEUE, seg_index, link.generation, hdr, lag)
                self.stats["dropped"] += 1
                return
            ld.free_at_ns = start + int(len(packet) * 8_000 / spec.rate_mbps)
            start = ld.free_at_ns
        fate = FORWARDED
        if spec.burst is not None:
            ge = spec.burst
            if ld.ge_bad:
                if self.rng.random() < ge.p_leave_bad:
                    ld.ge_bad = False
            elif self.rng.random() < ge.p_enter_bad:
                ld.ge_bad = True
            if self.rng.random() < (ge.loss_in_bad if ld.ge_bad else ge.loss_in_good):
                fate = LOST_BURST
        if fate == FORWARDED and spec.loss > 0 and self.rng.random() < spec.loss:
            fate = LOST_RANDOM
        if fate != FORWARDED:
            self._log(t_in, 0, -1, ld, fate, seg_index, link.generation, hdr, lag)
            self.stats["dropped"] += 1
            return
        delay_ms = spec.delay_ms
        if spec.jitter_ms > 0:
            delay_ms = max(0.0, self.rng.gauss(spec.delay_ms, spec.jitter_ms))
        due = start + int(delay_ms * 1e6)
        if not spec.reorder:
            due = max(due, ld.last_due_ns)
            ld.last_due_ns = due
        self.counter += 1
        heapq.heappush(
            self.heap, (due, self.counter, t_in, packet, (ld, seg_index, link.generation, hdr, lag))
        )

    def _send_due(self) -> None:
        heap = self.heap
        while heap:
            now = _now()
            if heap[0][0] > now:
                return
            due, _, t_in, packet, (ld, seg, gen, hdr, lag) = heapq.heappop(heap)
            # The packet enters the receiving namespace when write(2) starts (the kernel may then run
            # the whole receive path, even the peer's reply, inside the call), so that is its time out.
            t_out = _now()
            try:
                os.write(ld.out_fd, packet)
            except OSError:
                self._log(t_in, due, -1, ld, DROPPED_QUEUE, seg, gen, hdr, lag)
                self.stats["dropped"] += 1
                continue
            self._log(t_in, due, t_out, ld, FORWARDED, seg, gen, hdr, lag)
            self.stats["forwarded"] += 1
            if t_out - due > self.stats["late_max_ns"]:
                self.stats["late_max_ns"] = t_out - due

    def _drain(self, fd: int) -> None:
        from_office = fd == self.office_fd
        link = None if from_office else self.by_fd[fd]
        for _ in range(64):
            try:
                packet = os.read(fd, MAX_PACKET)
            except BlockingIOError:
                return
            t_read = _now()
            t_in, lag = t_read, NO_LAG
            sniffer = self.sniffers.get(fd)
            if sniffer is not None:
                sent_real = sniffer.timestamp(packet)
                if sent_real is not None:
                    t_in = min(t_read, sent_real - self.real_minus_mono_ns)
                    lag = min(t_read - t_in, NO_LAG - 1)
            if from_office:
                dst = int.from_bytes(packet[16:20], "big") if len(packet) >= 20 and packet[0] >> 4 == 4 else 0
                link = self.by_prefix.get(dst & 0xFFFFFF00)
            self._admit(packet, t_in, lag, from_office, link)
            self._send_due()

    # --- control -------------------------------------------------------------------------------------------

    def _oldest_pending_in_ns(self) -> int | None:
        return min((entry[2] for entry in self.heap), default=None)

    def _command(self, request: dict[str, Any]) -> dict[str, Any]:
        cmd = request.get("cmd")
        if cmd == "set_profile":
            link = next((lk for lk in self.links.values() if lk.name == request["region"]), None)
            if link is None:
                return {"ok": False, "error": f"no region {request['region']!r}"}
            link.profile = Profile.from_dict(request["profile"])
            link.epoch_ns = _now()
            link.generation += 1
            link.up.ge_bad = link.down.ge_bad = False
            self._meta_profile(link)
            return {"ok": True, "epoch_ns": link.epoch_ns, "generation": link.generation}
        if cmd == "flush":
            self.flush()
            return {"ok": True, "now_ns": _now(), "oldest_pending_in_ns": self._oldest_pending_in_ns()}
        if cmd == "stats":
            sniffed = {
                "timestamps_unmatched": sum(sn.unmatched for sn in self.sniffers.values()),
                "device_skipped": sum(sn.skipped for sn in self.sniffers.values()),
            }
            return {"ok": True, "now_ns": _now(), "pending": len(self.heap), **self.stats, **sniffed}
        if cmd == "stop":
            self.stopping = True
            return {"ok": True}
        return {"ok": False, "error": f"unknown command {cmd!r}"}

    def _serve_control(self) -> None:
        try:
            conn, _ = self.control.accept()
        except BlockingIOError:
            return
        with conn:
            conn.settimeout(2.0)
            data = b""
            try:
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                reply = self._command(json.loads(data))
            except (OSError, ValueError, KeyError) as exc:
                reply = {"ok": False, "error": repr(exc)}
            with contextlib.suppress(OSError):  # the client went away: nothing to tell it
                conn.sendall(json.dumps(reply).encode() + b"\n")

    # --- main loop -----------------------------------------------------------------------------------------

    def run(self) -> None:
        readers = [self.office_fd, *self.by_fd, self.control.fileno()]
        control_fd = self.control.fileno()
        try:
            while not self.stopping:
                self._send_due()
                if self.heap:
                    wait_ns = self.heap[0][0] - _now()
                    # Busy-wait the last `spin_us` only under light traffic (probes): under a bulk flow a
                    # spinning emulator takes the CPU the flow's own endpoints need, and is later for it.
                    spin_ns = self.spin_ns if len(self.heap) <= self.spin_max_pending else 0
                    timeout: float | None = max(0.0, (wait_ns - spin_ns) / 1e9)
                else:
                    self.flush()
                    timeout = None
                if timeout is None or timeout > 0.05:
                    timeout = 0.05  # wake up now and then to flush the log and notice a stop
                ready, _, _ = select.select(readers, [], [], timeout)
                for fd in ready:
                    if fd == control_fd:
                        self._serve_control()
                    else:
                        self._drain(fd)
                if _now() - self.last_flush_ns > 200_000_000:
                    self.flush()
                if _now() - self.last_clock_sync_ns > 1_000_000_000:
                    self.real_minus_mono_ns = _real_minus_mono_ns()
                    self.last_clock_sync_ns = _now()
        finally:
            self.flush()
            self.log_file.close()
            self._meta({"event": "stop", "mono_ns": _now(), **self.stats})


def _real_minus_mono_ns() -> int:
    """CLOCK_REALTIME − CLOCK_MONOTONIC (the tightest of a few reads): kernel packet timestamps are
    CLOCK_REALTIME, the log is CLOCK_MONOTONIC."""
    best = (1 << 62, 0)
    for _ in range(5):
        a = time.monotonic_ns()
        real = time.time_ns()
        b = time.monotonic_ns()
        best = min(best, (b - a, real - (a + b) // 2))
    return best[1]


def _ip_int(address: str) -> int:
    return int.from_bytes(socket.inet_aton(address), "big")


def main(argv: list[str]) -> int:
    config = json.loads(Path(argv[0]).read_text())
    # Die with the lab: if the process that started us goes away, we get SIGTERM.
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    _libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    # Other work on the machine must not delay a departure: run ahead of ordinary processes. A nice
    # task can still wait out another's time slice (~4 ms) after waking; a SCHED_FIFO one preempts at
    # once. The kernel throttles a real-time task that keeps the CPU (50 ms each second), which is why the
    # loop busy-waits only briefly and only under light traffic.
    priority = config.get("priority", "fifo")
    if priority == "fifo":
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(FIFO_PRIORITY))
    elif priority == "nice":
        os.setpriority(os.PRIO_PROCESS, 0, NICE)
    emulator = Emulator(config)

    def stop(signum: int, frame: object) -> None:
        emulator.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("ready", flush=True)
    emulator.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
