"""ICMP echo on the wire: the echo requests the engine sends and what it reads back (echo replies, and ICMP
errors that quote one of its requests), for IPv4 and IPv6, over raw and unprivileged sockets.

Raw sockets see every ICMP packet on the host: a random 16-bit identifier per socket tells ours apart, and an
8-byte token per engine in the payload tells ours from another program's echo that happens to share the
identifier and sequence. Unprivileged ("ping") sockets have the identifier rewritten by the kernel to the
socket's port and see only their own replies; their ICMP errors come on the error queue.
"""

from __future__ import annotations

import socket
import struct

from probes.errors import ErrorKind
from probes.sockets import ICMP4_TIME_EXCEEDED, ICMP4_UNREACHABLE, ICMP6_TIME_EXCEEDED, ICMP6_UNREACHABLE

ECHO_HEADER = struct.Struct("!BBHHH")
TOKEN_BYTES = 8
ICMP4_ECHO_REQUEST, ICMP4_ECHO_REPLY = 8, 0
ICMP6_ECHO_REQUEST, ICMP6_ECHO_REPLY = 128, 129
# What a raw socket needs to read: replies and the two errors that quote a request.
RAW_ICMP4_TYPES = frozenset({ICMP4_ECHO_REPLY, ICMP4_UNREACHABLE, ICMP4_TIME_EXCEEDED})
RAW_ICMP6_TYPES = frozenset({ICMP6_ECHO_REPLY, ICMP6_UNREACHABLE, ICMP6_TIME_EXCEEDED})

# (where the echo was sent, its sequence number, the error or None for a reply, who answered)
Answer = tuple[str, int, ErrorKind | None, str]


class EchoWire:
    """Echo requests and what comes back, for one socket (family, raw or not, identifier)."""

    def __init__(self, v6: bool, raw: bool, ident: int, token: bytes) -> None:
        self.v6 = v6
        self.raw = raw
        self.ident = ident
        self.token = token
        self.request_type = ICMP6_ECHO_REQUEST if v6 else ICMP4_ECHO_REQUEST
        self.reply_type = ICMP6_ECHO_REPLY if v6 else ICMP4_ECHO_REPLY
        self._payloads: dict[int, tuple[bytes, int]] = {}  # size → (payload, its unfolded checksum sum)

    def request(self, seq: int, payload_bytes: int) -> bytes:
        """An echo request with this sequence number and a payload of `payload_bytes` (the token repeated)."""
        cached = self._payloads.get(payload_bytes)
        if cached is None:
            payload = (self.token * (payload_bytes // TOKEN_BYTES + 1))[:payload_bytes]
            cached = self._payloads[payload_bytes] = (payload, ones_complement_sum(payload))
        payload, payload_sum = cached
        if self.v6 or not self.raw:
            # The kernel fills in the checksum (and, unprivileged, the identifier).
            return ECHO_HEADER.pack(self.request_type, 0, 0, self.ident, seq) + payload
        checksum = fold(payload_sum + (self.request_type << 8) + self.ident + seq)
        return ECHO_HEADER.pack(self.request_type, 0, checksum, self.ident, seq) + payload

    def parse(self, data: bytes, source: str) -> Answer | None:
        """What a packet read from the socket says about one of our echoes, or None if it is not about ours."""
        if self.raw and not self.v6:
            if len(data) < 20:
                return None
            data = data[(data[0] & 0x0F) * 4 :]  # raw IPv4 sockets deliver the IP header too
        if len(data) < 8:
            return None
        icmp_type, _code, _csum, ident, seq = ECHO_HEADER.unpack_from(data)
        if icmp_type == self.reply_type:
            if self.raw and ident != self.ident:
                return None
            payload = data[8 : 8 + TOKEN_BYTES]
            if payload and not self.token.startswith(payload):
                return None  # another program's echo that happens to share our identifier and sequence
            return source, seq, None, source
        error = error_kind(self.v6, icmp_type)
        if error is None or not self.raw:
            return None
        # An ICMP error quoting our request: find the original destination, identifier and sequence.
        inner = data[8:]
        if self.v6:
            if len(inner) < 48:
                return None
            destination = socket.inet_ntop(socket.AF_INET6, inner[24:40])
            quoted = inner[40:]
        else:
            if len(inner) < 20:
                return None
            destination = socket.inet_ntop(socket.AF_INET, inner[16:20])
            quoted = inner[(inner[0] & 0x0F) * 4 :]
        if len(quoted) < 8:
            return None
        q_type, _c, _s, q_ident, q_seq = ECHO_HEADER.unpack_from(quoted)
        if q_type != self.request_type or q_ident != self.ident:
            return None
        return destination, q_seq, error, source


def error_kind(v6: bool, icmp_type: int) -> ErrorKind | None:
    """The error an ICMP message of this type reports about a packet, None if it is not an error we use."""
    if icmp_type == (ICMP6_UNREACHABLE if v6 else ICMP4_UNREACHABLE):
        return ErrorKind.UNREACHABLE
    if icmp_type == (ICMP6_TIME_EXCEEDED if v6 else ICMP4_TIME_EXCEEDED):
        return ErrorKind.TTL_EXCEEDED
    return None


def ones_complement_sum(data: bytes) -> int:
    """The (unfolded) sum of 16-bit big-endian words of `data`, padded to even length (RFC 1071)."""
    if len(data) % 2:
        data += b"\x00"
    return sum(struct.unpack(f"!{len(data) // 2}H", data)) if data else 0


def fold(total: int) -> int:
    """The Internet checksum of words whose plain sum is `total`."""
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
