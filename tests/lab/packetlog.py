"""The emulator's ground-truth log: one fixed-size record per packet, forwarded or dropped.

Times are `CLOCK_MONOTONIC` nanoseconds (shared by every process and namespace on the machine):
`t_in_ns` when the sending namespace's stack handed the packet to its TUN device (the kernel's timestamp,
taken by a packet socket on that device; the emulator's read time when no timestamp matched),
`t_due_ns` when the profile said it should leave, `t_out_ns` when the emulator began writing it into the
receiving side (-1 if dropped).
Header fields are enough to pair echoes (ICMP id/seq) and handshakes (TCP ports, flags, seq/ack).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

# direction
UP = 0  # office -> region
DOWN = 1  # region -> office

# fate
FORWARDED = 0
LOST_RANDOM = 1
LOST_BURST = 2
DROPPED_QUEUE = 3
UNROUTABLE = 4
FATE_NAMES = {
    FORWARDED: "forwarded",
    LOST_RANDOM: "random loss",
    LOST_BURST: "burst loss",
    DROPPED_QUEUE: "queue full",
    UNROUTABLE: "unroutable",
}

NO_LAG = 0xFFFFFFFF

# IP protocols
ICMP = 1
TCP = 6
UDP = 17

# TCP flags
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10

RECORD = struct.Struct("<qqqBBBBHBxIIHHIIHHHI2x")
assert RECORD.size == 64

DTYPE = np.dtype(
    [
        ("t_in_ns", "<i8"),
        ("t_due_ns", "<i8"),
        ("t_out_ns", "<i8"),
        ("link", "u1"),
        ("direction", "u1"),
        ("fate", "u1"),
        ("proto", "u1"),
        ("segment", "<u2"),
        ("kind", "u1"),  # ICMP type, or TCP flags
        ("_pad0", "u1"),
        ("src", "<u4"),
        ("dst", "<u4"),
        ("sport", "<u2"),  # ICMP: identifier
        ("dport", "<u2"),  # ICMP: sequence number
        ("tcp_seq", "<u4"),
        ("tcp_ack", "<u4"),
        ("ip_len", "<u2"),
        ("payload_len", "<u2"),
        ("generation", "<u2"),  # how many profiles this link had been given when the packet arrived
        ("read_lag_ns", "<u4"),  # t_in (kernel, sniffed) → read by the emulator; NO_LAG when not sniffed
        ("_pad1", "V2"),
    ]
)
assert DTYPE.itemsize == RECORD.size


def parse_header(packet: bytes) -> tuple[int, int, int, int, int, int, int, int, int, int]:
    """(proto, kind, src, dst, sport, dport, tcp_seq, tcp_ack, ip_len, payload_len) of an IPv4 packet.

    Anything that is not IPv4 comes back with proto 0 (the lab disables IPv6 in its namespaces)."""
    if len(packet) < 20 or packet[0] >> 4 != 4:
        return (0, 0, 0, 0, 0, 0, 0, 0, len(packet), 0)
    ihl = (packet[0] & 0x0F) * 4
    ip_len = (packet[2] << 8) | packet[3]
    proto = packet[9]
    src = int.from_bytes(packet[12:16], "big")
    dst = int.from_bytes(packet[16:20], "big")
    kind = sport = dport = seq = ack = 0
    payload_len = ip_len - ihl
    if proto == TCP and len(packet) >= ihl + 20:
        sport, dport, seq, ack, off_flags = struct.unpack_from("!HHIIH", packet, ihl)
        kind = off_flags & 0xFF
        payload_len = ip_len - ihl - ((off_flags >> 12) * 4)
    elif proto == UDP and len(packet) >= ihl + 8:
        sport, dport = struct.unpack_from("!HH", packet, ihl)
        payload_len = ip_len - ihl - 8
    elif proto == ICMP and len(packet) >= ihl + 8:
        kind = packet[ihl]
        sport, dport = struct.unpack_from("!HH", packet, ihl + 4)
        payload_len = ip_len - ihl - 8
    return (proto, kind, src, dst, sport, dport, seq, ack, ip_len, max(payload_len, 0))


def read_log(path: Path) -> np.ndarray:
    """Every complete record in the log file (a partly written last record is left out)."""
    raw = Path(path).read_bytes()
    usable = len(raw) - len(raw) % RECORD.size
    return np.frombuffer(raw[:usable], dtype=DTYPE)


def ip_to_int(address: str) -> int:
    a, b, c, d = (int(part) for part in address.split("."))
    return (a << 24) | (b << 16) | (c << 8) | d


def int_to_ip(value: int) -> str:
    return ".".join(str((int(value) >> shift) & 0xFF) for shift in (24, 16, 8, 0))
