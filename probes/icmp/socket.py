"""The ICMP engine's sockets: one per address family, raw where allowed, else the system's unprivileged
"ping" socket; set up as the probe backend's `IcmpSocketStyle` says (Linux: kernel receive and transmit
timestamps, ICMP errors on the error queue; `probes.backends` holds the others), and the bookkeeping that
ties each transmit stamp (keyed by the kernel's count of sends) to the echo it belongs to.

icmplib opens the sockets (raw when privileged, unprivileged datagram sockets otherwise, with its permission
errors); the engine takes them over and multiplexes them itself.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import icmplib

from probes.errors import IcmpNotPermitted
from probes.i18n import _
from probes.icmp.wire import RAW_ICMP4_TYPES, RAW_ICMP6_TYPES, EchoWire
from probes.sockets import (
    enable_error_queue,
    enable_receive_timestamps,
    enable_tx_timestamps,
    kernel_receive_wall_ns,
    pass_icmp_types,
    restart_tx_keys,
)

_RCVBUF_BYTES = 4 * 1024 * 1024


def icmp_permission_help() -> str:
    """Why ICMP sockets are refused here and how to allow them."""
    group_range = _read_ping_group_range()
    gid = os.getgid()
    return _(
        "ICMP not permitted here: a raw ICMP socket needs root or CAP_NET_RAW, and the kernel's unprivileged "
        "ICMP sockets are allowed only for groups in net.ipv4.ping_group_range (now {group_range}; your "
        "group id is {gid}). To enable them for every group: `sudo sysctl -w net.ipv4.ping_group_range='0 "
        "2147483647'` (persist it in /etc/sysctl.d/); or, for the bundled systemd service, install its "
        "raw-icmp.conf drop-in, which grants CAP_NET_RAW to the service alone; or probe with --method tcp."
    ).format(group_range=group_range, gid=gid)


def _read_ping_group_range() -> str:
    try:
        with open("/proc/sys/net/ipv4/ping_group_range") as fh:
            return " ".join(fh.read().split())
    except OSError:
        return _("unknown")


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
            raise IcmpNotPermitted(
                _("cannot open an ICMP socket for {family}: {reason}").format(
                    family=_family_name(family), reason=exc
                )
            ) from exc
        sock = socket.socket(fileno=os.dup(wrapper.sock.fileno()))
        wrapper.close()
        return sock, raw
    raise IcmpNotPermitted(icmp_permission_help()) from last


Ancillary = list[tuple[int, int, bytes]]


@dataclass(frozen=True, slots=True)
class IcmpSocketStyle:
    """How one platform's ICMP sockets are set up and read (a probe backend's part of the ICMP engine).

    `configure(sock, family, raw)` sets the socket up and returns whether the kernel will stamp its sends
    (None) or why not. `receive_wall_ns(ancdata)` reads the kernel's receive stamp of a reply (wall-clock
    ns; None: it gave none). `error_queue`: ICMP errors and transmit stamps come on a Linux error queue
    (MSG_ERRQUEUE). `kernel_receive_stamps`: replies carry the kernel's receive stamp, so reading them later
    changes no RTT; without them the engine's thread reads the moment a reply arrives. `datagram_like_raw`:
    an unprivileged socket delivers what a raw one does (macOS: the IPv4 header, our own identifier, ICMP
    errors as packets). `tx_stamps`: the style asks for transmit stamps at all."""

    name: str
    configure: Callable[[socket.socket, int, bool], str | None]
    receive_wall_ns: Callable[[Ancillary], int | None]
    error_queue: bool
    kernel_receive_stamps: bool
    datagram_like_raw: bool = False
    tx_stamps: bool = True


def _configure_linux(sock: socket.socket, family: int, raw: bool) -> str | None:
    enable_receive_timestamps(sock)
    grow_receive_buffer(sock)
    if raw:
        pass_icmp_types(sock, family, RAW_ICMP6_TYPES if family == socket.AF_INET6 else RAW_ICMP4_TYPES)
    else:
        # Unprivileged sockets get ICMP errors (unreachable, time exceeded) on the error queue only.
        enable_error_queue(sock, family)
    return enable_tx_timestamps(sock)


LINUX_STYLE = IcmpSocketStyle(
    "linux", _configure_linux, kernel_receive_wall_ns, error_queue=True, kernel_receive_stamps=True
)


def grow_receive_buffer(sock: socket.socket) -> None:
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

    def __init__(
        self, family: int, privileged: bool | None, token: bytes, style: IcmpSocketStyle = LINUX_STYLE
    ) -> None:
        self.family = family
        self.style = style
        self.sock, self.raw = open_icmp_socket(family, privileged)
        self.fd = self.sock.fileno()
        self.core_index = -1  # its index in the compiled engine (`probes.icmp.compiled`)
        self.v6 = family == socket.AF_INET6
        try:
            self.sock.setblocking(False)
            self.tx_refused: str | None = style.configure(self.sock, family, self.raw)
        except OSError:
            self.sock.close()
            raise
        self.tx_stamps = style.tx_stamps and self.tx_refused is None
        # Raw sockets see every ICMP packet on the host: our identifier tells ours apart. Linux's
        # unprivileged sockets have theirs rewritten by the kernel to the socket's port, and see only their
        # own; macOS's behave like raw ones (`datagram_like_raw`).
        self.wire = EchoWire(self.v6, self.raw or style.datagram_like_raw, _random_16_bits(), token)
        # Whether answers from routers (time exceeded, unreachable) reach this socket at all.
        self.sees_icmp_errors = self.raw or style.error_queue or style.datagram_like_raw
        self.next_seq = _random_16_bits()
        self.pending: dict[tuple[str, int], Any] = {}  # (destination, sequence) → its `Echo` in flight
        self.next_key = 0
        self.keyed: dict[int, Any] = {}  # stamp key → its `Echo`
        self.restart_keys = False
        self.awaiting = 0  # stamps not read yet (on a raw socket, all its error queue holds)

    def take_key(self, echo: Any) -> int | None:
        """The transmit-stamp key of the datagram about to be sent (None when there will be no stamp)."""
        if not self.tx_stamps:
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
            self.stamps_not_reset(exc.strerror or str(exc))

    def stamps_not_reset(self, reason: str) -> None:
        """The kernel refused to start the stamp keys again: this socket's sends are timed in user space."""
        self.tx_refused = _("SO_TIMESTAMPING could not be reset: {reason}").format(reason=reason)
        self.tx_stamps = False

    def close(self) -> None:
        self.sock.close()


def _random_16_bits() -> int:
    """16 random bits from the system's source (what `secrets.randbits` reads, without importing `secrets`,
    whose `hmac` loads OpenSSL's hashes: milliseconds of every probe's start)."""
    return int.from_bytes(os.urandom(2), "big")
