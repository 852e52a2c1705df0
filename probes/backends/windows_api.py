"""The Windows ICMP API (iphlpapi.dll: IcmpSendEcho2, Icmp6SendEcho2, as `ping.exe` uses it, no
administrator rights needed), as ctypes sees it: its structures in both pointer widths, its status codes,
and reading a reply buffer. Nothing here calls Windows, so all of it is tested on Linux
(`tests/probes/test_backends.py`); `probes.backends.windows` makes the calls.

Layouts (ipexport.h): `IP_OPTION_INFORMATION` {UCHAR Ttl, Tos, Flags, OptionsSize; PUCHAR OptionsData};
`ICMP_ECHO_REPLY` {IPAddr Address; ULONG Status, RoundTripTime; USHORT DataSize, Reserved; PVOID Data;
IP_OPTION_INFORMATION Options} (40 bytes on x64, 28 on x86); `IPV6_ADDRESS_EX` (packed to 1 byte) {USHORT
sin6_port; ULONG sin6_flowinfo; USHORT sin6_addr[8]; ULONG sin6_scope_id} (26 bytes); `ICMPV6_ECHO_REPLY`
{IPV6_ADDRESS_EX Address; ULONG Status; unsigned int RoundTripTime} (36 bytes). An IPv4 `IPAddr` is the
address's four bytes in network order read as a little-endian ULONG.
"""

from __future__ import annotations

import ctypes
import socket
from typing import Any

from probes.errors import ErrorKind

# IP_STATUS codes (ipexport.h); IPv6 names share the numbers (IP_DEST_NO_ROUTE = 11002, ...).
IP_SUCCESS = 0
IP_BUF_TOO_SMALL = 11001
IP_DEST_NET_UNREACHABLE = 11002
IP_DEST_HOST_UNREACHABLE = 11003
IP_DEST_PROT_UNREACHABLE = 11004
IP_DEST_PORT_UNREACHABLE = 11005
IP_NO_RESOURCES = 11006
IP_PACKET_TOO_BIG = 11009
IP_REQ_TIMED_OUT = 11010
IP_BAD_ROUTE = 11012
IP_TTL_EXPIRED_TRANSIT = 11013
IP_TTL_EXPIRED_REASSEM = 11014
IP_BAD_DESTINATION = 11018
IP_DEST_UNREACHABLE = 11040
IP_TIME_EXCEEDED = 11041
IP_GENERAL_FAILURE = 11050

_ANSWERS: dict[int, ErrorKind | None] = {
    IP_SUCCESS: None,
    IP_DEST_NET_UNREACHABLE: ErrorKind.UNREACHABLE,
    IP_DEST_HOST_UNREACHABLE: ErrorKind.UNREACHABLE,
    IP_DEST_PROT_UNREACHABLE: ErrorKind.UNREACHABLE,
    IP_DEST_PORT_UNREACHABLE: ErrorKind.UNREACHABLE,
    IP_DEST_UNREACHABLE: ErrorKind.UNREACHABLE,
    IP_TTL_EXPIRED_TRANSIT: ErrorKind.TTL_EXCEEDED,
    IP_TTL_EXPIRED_REASSEM: ErrorKind.TTL_EXCEEDED,
    IP_TIME_EXCEEDED: ErrorKind.TTL_EXCEEDED,
}
# Statuses that mean this machine did not send the echo at all (not loss on the line).
_LOCAL = frozenset(
    {
        IP_BUF_TOO_SMALL,
        IP_NO_RESOURCES,
        IP_PACKET_TOO_BIG,
        IP_BAD_ROUTE,
        IP_BAD_DESTINATION,
        IP_GENERAL_FAILURE,
    }
)
# Room the reply buffer needs beyond the reply structure and the echoed data: an ICMP error's 8 bytes and
# an IO_STATUS_BLOCK (16 bytes on x64), as the API's documentation asks.
REPLY_SLACK_BYTES = 8 + 16


def _option_information(pointer: type[Any]) -> type[ctypes.Structure]:
    class IpOptionInformation(ctypes.Structure):
        _fields_ = [
            ("Ttl", ctypes.c_ubyte),
            ("Tos", ctypes.c_ubyte),
            ("Flags", ctypes.c_ubyte),
            ("OptionsSize", ctypes.c_ubyte),
            ("OptionsData", pointer),
        ]

    return IpOptionInformation


def _echo_reply(options: type[ctypes.Structure], pointer: type[Any]) -> type[ctypes.Structure]:
    class IcmpEchoReply(ctypes.Structure):
        _fields_ = [
            ("Address", ctypes.c_uint32),
            ("Status", ctypes.c_uint32),
            ("RoundTripTime", ctypes.c_uint32),
            ("DataSize", ctypes.c_uint16),
            ("Reserved", ctypes.c_uint16),
            ("Data", pointer),
            ("Options", options),
        ]

    return IcmpEchoReply


# The structures for a 64-bit process (pointers are 8 bytes) and a 32-bit one; `native` picks this one's.
IP_OPTION_INFORMATION_64 = _option_information(ctypes.c_uint64)
IP_OPTION_INFORMATION_32 = _option_information(ctypes.c_uint32)
ICMP_ECHO_REPLY_64 = _echo_reply(IP_OPTION_INFORMATION_64, ctypes.c_uint64)
ICMP_ECHO_REPLY_32 = _echo_reply(IP_OPTION_INFORMATION_32, ctypes.c_uint32)


class IPV6_ADDRESS_EX(ctypes.Structure):  # the API's own name
    _pack_ = 1
    _fields_ = [
        ("sin6_port", ctypes.c_uint16),
        ("sin6_flowinfo", ctypes.c_uint32),
        ("sin6_addr", ctypes.c_uint16 * 8),
        ("sin6_scope_id", ctypes.c_uint32),
    ]


class ICMPV6_ECHO_REPLY(ctypes.Structure):
    _fields_ = [
        ("Address", IPV6_ADDRESS_EX),
        ("Status", ctypes.c_uint32),
        ("RoundTripTime", ctypes.c_uint32),
    ]


class SOCKADDR_IN6(ctypes.Structure):  # ws2ipdef.h: what Icmp6SendEcho2 takes
    _fields_ = [
        ("sin6_family", ctypes.c_uint16),
        ("sin6_port", ctypes.c_uint16),
        ("sin6_flowinfo", ctypes.c_uint32),
        ("sin6_addr", ctypes.c_ubyte * 16),
        ("sin6_scope_id", ctypes.c_uint32),
    ]


AF_INET6_WINDOWS = 23  # Windows' AF_INET6 (Linux's is 10)


def native() -> tuple[type[ctypes.Structure], type[ctypes.Structure]]:
    """(IP_OPTION_INFORMATION, ICMP_ECHO_REPLY) for this process's pointer width."""
    if ctypes.sizeof(ctypes.c_void_p) == 8:
        return IP_OPTION_INFORMATION_64, ICMP_ECHO_REPLY_64
    return IP_OPTION_INFORMATION_32, ICMP_ECHO_REPLY_32


def ipaddr(address: str) -> int:
    """An IPv4 address as the API's IPAddr (network-order bytes read as a little-endian ULONG)."""
    return int.from_bytes(socket.inet_aton(address), "little")


def ipaddr_text(value: int) -> str:
    return socket.inet_ntoa(value.to_bytes(4, "little"))


def sockaddr_in6(address: str) -> SOCKADDR_IN6:
    """A SOCKADDR_IN6 for an IPv6 address (its zone as the scope id: a number, or an interface name)."""
    host, _, zone = address.partition("%")
    scope = 0
    if zone:
        scope = int(zone) if zone.isdigit() else socket.if_nametoindex(zone)
    out = SOCKADDR_IN6()
    out.sin6_family = AF_INET6_WINDOWS
    out.sin6_addr[:] = list(socket.inet_pton(socket.AF_INET6, host))
    out.sin6_scope_id = scope
    return out


def reply_buffer_bytes(reply: type[ctypes.Structure], payload_bytes: int) -> int:
    return ctypes.sizeof(reply) + payload_bytes + REPLY_SLACK_BYTES


def request_payload(payload_bytes: int, token: bytes) -> bytes:
    """The echo's data: the engine's token repeated (the API builds the ICMP header itself)."""
    return (token * (payload_bytes // max(1, len(token)) + 1))[:payload_bytes]


def parse_reply4(buffer: bytes, reply: type[ctypes.Structure]) -> tuple[int, str, int]:
    """(status, who answered, the API's round-trip ms) from the first ICMP_ECHO_REPLY in a reply buffer."""
    if len(buffer) < ctypes.sizeof(reply):
        raise ValueError(f"reply buffer of {len(buffer)} bytes holds no ICMP_ECHO_REPLY")
    parsed: Any = reply.from_buffer_copy(buffer)
    return int(parsed.Status), ipaddr_text(int(parsed.Address)), int(parsed.RoundTripTime)


def parse_reply6(buffer: bytes) -> tuple[int, str, int]:
    """(status, who answered, the API's round-trip ms) from an ICMPV6_ECHO_REPLY (after Icmp6ParseReplies)."""
    if len(buffer) < ctypes.sizeof(ICMPV6_ECHO_REPLY):
        raise ValueError(f"reply buffer of {len(buffer)} bytes holds no ICMPV6_ECHO_REPLY")
    parsed = ICMPV6_ECHO_REPLY.from_buffer_copy(buffer)
    words = bytes(parsed.Address.sin6_addr)  # USHORTs in network order, as the bytes lie in memory
    return int(parsed.Status), socket.inet_ntop(socket.AF_INET6, words), int(parsed.RoundTripTime)


def answer_kind(status: int) -> tuple[bool, ErrorKind | None]:
    """(whether something answered, the error it reports) for an IP_STATUS; a status that means no answer
    came is (False, TIMEOUT), one that means the echo never left is (False, SEND_FAILED)."""
    if status in _ANSWERS:
        return True, _ANSWERS[status]
    if status in _LOCAL:
        return False, ErrorKind.SEND_FAILED
    return False, ErrorKind.TIMEOUT
