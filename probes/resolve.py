"""Host name → IP address, asynchronously. A name that does not resolve raises `ResolveFailed` with the
resolver's words; the methods turn it into a result with `ErrorKind.DNS`.

An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, given or resolved) is the IPv4 address it maps: probed over
IPv4 (as ICMPv6 it would go nowhere and read 100% loss)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from dataclasses import dataclass

from probes.addresses import canonical_ipv4
from probes.errors import ResolveFailed
from probes.i18n import _


@dataclass(frozen=True, slots=True)
class Resolved:
    address: str
    family: int
    dns_ms: float  # 0.0 for an address literal


def resolve_literal(host: str) -> Resolved | None:
    """`host` as `resolve` returns it when it is an IP address (no DNS, no waiting); None for a name."""
    if canonical_ipv4(host):  # the common case, in a microsecond (a thousand targets are a thousand calls)
        return Resolved(host, socket.AF_INET, 0.0)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return Resolved(str(ip.ipv4_mapped), socket.AF_INET, 0.0)
    return Resolved(str(ip), socket.AF_INET6 if ip.version == 6 else socket.AF_INET, 0.0)


async def resolve(host: str, family: int = socket.AF_UNSPEC) -> Resolved:
    """The first address of `host` (IPv4 preferred when both exist, as most ping tools do)."""
    literal = resolve_literal(host)
    if literal is not None:
        return literal
    loop = asyncio.get_running_loop()
    started = time.perf_counter_ns()
    try:
        infos = await loop.getaddrinfo(host, None, family=family, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ResolveFailed(
            _("cannot resolve {host!r}: {reason}").format(host=host, reason=exc.strerror or exc)
        ) from exc
    except UnicodeError as exc:
        raise ResolveFailed(
            _("cannot resolve {host!r}: not a valid host name ({reason})").format(host=host, reason=exc)
        ) from exc
    dns_ms = (time.perf_counter_ns() - started) / 1e6
    if not infos:
        raise ResolveFailed(_("cannot resolve {host!r}: no addresses").format(host=host))
    infos.sort(key=lambda info: 0 if info[0] == socket.AF_INET else 1)
    fam, _type, _proto, _canon, sockaddr = infos[0]
    address = str(sockaddr[0])
    if fam == socket.AF_INET6:
        mapped = ipaddress.IPv6Address(address.split("%", 1)[0]).ipv4_mapped
        if mapped is not None:
            return Resolved(str(mapped), socket.AF_INET, dns_ms)
    return Resolved(address, int(fam), dns_ms)
