"""The ICMP engine's sockets: one per address family, raw where allowed, else the kernel's unprivileged
"ping" socket; set up for kernel receive and transmit timestamps, and the bookkeeping that ties each
transmit stamp (keyed by the kernel's count of sends) to the echo it belongs to.

icmplib opens the sockets (raw when privileged, unprivileged datagram sockets otherwise, with its permission
errors); the engine takes them over and multiplexes them itself.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from typing import Any

import icmplib

from probes.errors import IcmpNotPermitted
from probes.icmp_wire import RAW_ICMP4_TYPES, RAW_ICMP6_TYPES, EchoWire
from probes.sockets import (
    enable_error_queue,
    enable_receive_timestamps,
    enable_tx_timestamps,
    pass_icmp_types,
    restart_tx_keys,
)

_RCVBUF_BYTES = 4 * 1024 * 1024


def icmp_permission_help() -> str:
    """Why ICMP sockets are refused here and how to allow them."""
    group_range = _read_ping_group_range()
    gid = os.getgid()
    return (
        "ICMP not permitted here: a raw ICMP socket needs root or CAP_NET_RAW, and the kernel's unprivileged "
        f"ICMP sockets are allowed only for groups in net.ipv4.ping_group_range (now {group_range}; your "
        f"group id is {gid}). To enable them for every group: `sudo sysctl -w net.ipv4.ping_group_range='0 "
        "2147483647'` (persist it in /etc/sysctl.d/); or, for the bundled systemd service, install its "
        "raw-icmp.conf drop-in, which grants CAP_NET_RAW to the service alone; or probe with --method tcp."
    )


def _read_ping_group_range() -> str:
    try:
        with open("/proc/sys/net/ipv4/ping_group_range") as fh:
            return " ".join(fh.read().split())
    except OSError:
        return "unknown"


def open_icmp_socket(family: int, privileged: bool | None = None) -> tuple[socket.socket, bool]:
    """An ICMP socket for `family` (raw if allowed, else unprivileged) and whether it is raw.

    Raises IcmpNotPermitted, with the reason and the fix, when neither kind can be opened.
    """
    icmp_class = icmplib.ICMPv4Socket if family == socket.AF_INET else icmplib.ICMPv6Socket
    choices = [True, False] if privileged is None else [privileged]
    last: Exception | None = None
    for raw in choices:
        try:
            wrapper = icmp_class(privileged=raw)
        except icmplib.SocketPermissionError as exc:
            last = exc
            continue
        except icmplib.ICMPSocketError as exc:  # e.g. IPv6 disabled in this kernel
            raise IcmpNotPermitted(f"cannot open an ICMP socket for {_family_name(family)}: {exc}") from exc
        sock = socket.socket(fileno=os.dup(wrapper.sock.fileno()))
        wrapper.close()
        return sock, raw
    raise IcmpNotPermitted(icmp_permission_help()) from last


def _grow_receive_buffer(sock: socket.socket) -> None:
    """4 MiB for replies and stamps the thread has not read yet: SO_RCVBUFFORCE where allowed (root), else
    SO_RCVBUF, which the kernel caps at net.core.rmem_max (often 208 KiB: ~270 replies)."""
    for option in (getattr(socket, "SO_RCVBUFFORCE", None), socket.SO_RCVBUF):
        if option is None:
            continue
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, option, _RCVBUF_BYTES)
            return


def _family_name(family: int) -> str:
    return "IPv6" if family == socket.AF_INET6 else "IPv4"


class FamilySocket:
    """One ICMP socket of one family: its wire format, sequence numbers and transmit-stamp keys.

    `tx_refused` says why the kernel gives no transmit timestamps here (None: it does). `keyed` maps the
    key the kernel will give the next stamps to the echoes sent; `restart_keys` is set when a failed send
    or a stamp that cannot be ours leaves the count in doubt (the next send starts it again from 0)."""

    def __init__(self, family: int, privileged: bool | None, token: bytes) -> None:
        self.family = family
        self.sock, self.raw = open_icmp_socket(family, privileged)
        self.v6 = family == socket.AF_INET6
        try:
            self.sock.setblocking(False)
            enable_receive_timestamps(self.sock)
            _grow_receive_buffer(self.sock)
            if self.raw:
                pass_icmp_types(self.sock, family, RAW_ICMP6_TYPES if self.v6 else RAW_ICMP4_TYPES)
            else:
                # Unprivileged sockets get ICMP errors (unreachable, time exceeded) on the error queue only.
                enable_error_queue(self.sock, family)
            self.tx_refused: str | None = enable_tx_timestamps(self.sock)
        except OSError:
            self.sock.close()
            raise
        # Raw sockets see every ICMP packet on the host: our identifier tells ours apart. Unprivileged
        # sockets have theirs rewritten by the kernel to the socket's port, and see only their own.
        self.wire = EchoWire(self.v6, self.raw, secrets.randbits(16), token)
        self.next_seq = secrets.randbits(16)
        self.pending: dict[tuple[str, int], Any] = {}  # (destination, sequence) → its `Echo` in flight
        self.next_key = 0
        self.keyed: dict[int, Any] = {}  # stamp key → its `Echo`
        self.restart_keys = False
        self.awaiting = 0  # stamps not read yet (on a raw socket, all its error queue holds)

    def take_key(self, echo: Any) -> int | None:
        """The transmit-stamp key of the datagram about to be sent (None when there will be no stamp)."""
        if self.tx_refused is not None:
            return None
        key = self.next_key
        self.next_key += 1
        self.awaiting += 1
        self.keyed[key] = echo
        return key

    def restart(self) -> None:
        """Start the kernel's key count from 0 again (call with the error queue read)."""
        self.restart_keys = False
        self.keyed.clear()
        self.next_key = 0
        self.awaiting = 0
        try:
            restart_tx_keys(self.sock)
        except OSError as exc:
            self.tx_refused = f"SO_TIMESTAMPING could not be reset: {exc.strerror or exc}"

    def close(self) -> None:
        self.sock.close()
