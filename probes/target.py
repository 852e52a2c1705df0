"""What to measure: a `Target` (one host or URL, one method, with the labels that join it to a vendor; its
plain form `as_dict`/`from_dict`, and `parse_target` from command-line text) and `ProbeOptions` (how hard
to measure it)."""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from probes.errors import TargetError
from probes.i18n import _


class Method(StrEnum):
    ICMP = "icmp"  # ICMP echo
    TCP = "tcp"  # TCP connect time ("tcping")
    HTTP = "http"  # one HTTP request, timing split into DNS / connect / TLS / TTFB / total
    DOWNLOAD = "download"  # throughput of an HTTP(S) test file
    IPERF3 = "iperf3"  # iperf3 client against an iperf3 server, both directions
    TRACE = "trace"  # traceroute: per-hop RTT and loss, the backbone the path takes (CN2 GIA, 163, ...)
    RESPONSIVENESS = "responsiveness"  # latency under load: idle RTT, then RTT during a capped download


URL_METHODS = frozenset({Method.HTTP, Method.DOWNLOAD, Method.RESPONSIVENESS})
DEFAULT_IPERF3_PORT = 5201

# Attempts per target when no count is given (`linkvet probe` without --count, the Probe screen's "auto"):
# a ping's worth for packet methods, fewer for heavy ones. These are the methods a one-off probe offers;
# a trace (`linkvet trace`, a plan's trace targets) counts probes per hop instead.
DEFAULT_COUNTS: Mapping[Method, int] = MappingProxyType(
    {
        Method.ICMP: 10,
        Method.TCP: 10,
        Method.HTTP: 3,
        Method.DOWNLOAD: 1,
        Method.IPERF3: 1,
        Method.RESPONSIVENESS: 1,
    }
)
# Parallel connections of a load when none are given: one for a download test, several for responsiveness
# (one TCP flow rarely fills a long, fast line's queue; networkQuality and Flent's RRUL use several).
DEFAULT_CONNECTIONS: Mapping[Method, int] = MappingProxyType({Method.RESPONSIVENESS: 4})
TRACE_PROBES_PER_HOP = 3  # a trace's default "count" (as traceroute's -q 3)


@dataclass(frozen=True, slots=True)
class Target:
    """One thing to measure with one method.

    `port` is the TCP port for `tcp`, the server port for `iperf3`, and for `icmp` the TCP port to fall
    back to when ICMP is not permitted here. `provider`, `region` and `line_type` (the line type the vendor
    claims) join measurements to catalog regions.
    """

    method: Method
    host: str | None = None
    port: int | None = None
    url: str | None = None
    name: str = ""
    provider: str | None = None
    region: str | None = None
    line_type: str | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "method", Method(self.method))
        except ValueError:
            known = ", ".join(m.value for m in Method)
            raise TargetError(f"unknown method {self.method!r} (expected one of: {known})") from None
        if self.method in URL_METHODS:
            if not self.url:
                raise TargetError(f"method {self.method} needs a URL (http:// or https://)")
            object.__setattr__(self, "url", _check_url(self.url))
            host = urllib.parse.urlsplit(self.url).hostname
            object.__setattr__(self, "host", host)
        else:
            if not self.host:
                raise TargetError(f"method {self.method} needs a host name or address")
            object.__setattr__(self, "host", _check_host(self.host))
        if self.port is not None:
            if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
                raise TargetError(f"port {self.port!r} is not a TCP port (expected an integer 1-65535)")
        elif self.method is Method.TCP:
            raise TargetError(f"method tcp needs a TCP port to connect to {self.host} (e.g. port 22)")
        if not self.name:
            object.__setattr__(self, "name", self.default_name())

    def default_name(self) -> str:
        if self.method in URL_METHODS:
            return str(self.url)
        if self.method is Method.TCP or (self.method is Method.IPERF3 and self.port):
            return f"{_bracket(str(self.host))}:{self.port}"
        return str(self.host)

    @property
    def key(self) -> str:
        """Identity in the store: the method and what it was pointed at (labels may change, this does not)."""
        if self.method in URL_METHODS:
            return f"{self.method}:{self.url}"
        if self.method in (Method.ICMP, Method.TRACE):
            return f"{self.method}:{self.host}"
        port = self.port or DEFAULT_IPERF3_PORT
        return f"{self.method}:{_bracket(str(self.host))}:{port}"

    def as_dict(self) -> dict[str, Any]:
        """The target's plain form (JSON-ready): `name, method, host, port, url, provider, region, line_type`,
        as probe-list files, catalog endpoints and the GUI's probe child carry it. `host` is None for the URL
        methods (the URL names it)."""
        return {
            "name": self.name,
            "method": str(self.method),
            "host": None if self.url else self.host,
            "port": self.port,
            "url": self.url,
            "provider": self.provider,
            "region": self.region,
            "line_type": self.line_type,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Target:
        """A target from its plain form (missing keys: None; empty labels: None). Raises TargetError for an
        entry that is no mapping or names a target that cannot be probed."""
        if not isinstance(data, Mapping):
            raise TargetError(f"expected a table of target fields (name, method, host, ...), got {data!r}")
        url = data.get("url") or None
        return cls(
            method=data.get("method"),  # type: ignore[arg-type]  # checked by __post_init__ (TargetError)
            host=None if url else data.get("host"),
            port=data.get("port"),
            url=url,
            name=data.get("name") or "",
            provider=data.get("provider") or None,
            region=data.get("region") or None,
            line_type=data.get("line_type") or None,
        )

    def with_method(self, method: Method) -> Target:
        """The same endpoint and labels measured another way (e.g. the TCP fallback of an ICMP target)."""
        return replace(self, method=method, name="")


def parse_target(
    text: str, method: Method | None = None, port: int | None = None, **labels: str | None
) -> Target:
    """A target from command-line text: a host, an address, `host:port`, `[v6]:port`, or a URL.

    Without a method, URLs are probed with `http`, `host:port` with `tcp` and hosts with `icmp`.
    """
    text = text.strip()
    if not text:
        raise TargetError("empty target")
    if "://" in text:
        chosen = method or Method.HTTP
        if Method(chosen) in URL_METHODS:
            return Target(method=chosen, url=text, port=port, **labels)  # type: ignore[arg-type]
        _check_url(
            text if text.split("://", 1)[0] in ("http", "https") else "http://" + text.split("://", 1)[1]
        )
        parts = urllib.parse.urlsplit(text)
        if not parts.hostname:
            raise TargetError(f"{text!r}: no host in URL")
        return Target(method=chosen, host=parts.hostname, port=port or parts.port, **labels)  # type: ignore[arg-type]
    host, embedded_port = _split_host_port(text)
    chosen = method or (Method.TCP if embedded_port is not None else Method.ICMP)
    if Method(chosen) in URL_METHODS:
        raise TargetError(f"{text!r}: method {chosen} needs a URL such as http://{text}/")
    if embedded_port is not None and port is not None and embedded_port != port:
        raise TargetError(f"{text!r}: port {embedded_port} in the target disagrees with --port {port}")
    return Target(method=chosen, host=host, port=port if port is not None else embedded_port, **labels)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class ProbeOptions:
    """How hard to measure one target. Times in seconds, sizes in bytes."""

    count: int = 10  # attempts per target (echoes, connects, requests, transfers)
    interval_s: float = 1.0  # gap between attempts to the same target
    timeout_s: float = 2.0  # how long to wait for one reply / connect / response
    payload_bytes: int = 56  # ICMP echo payload (as ping's default)
    http_max_redirects: int = 5
    verify_tls: bool = True
    download_max_bytes: int = 100 * 1024 * 1024  # never fetch more than this per transfer
    download_max_seconds: float = 10.0  # nor for longer than this
    download_connections: int = 1  # parallel connections per transfer
    iperf3_seconds: float = 5.0  # per direction, measured after the warm-up below
    iperf3_omit_s: float = 2.0  # iperf3's -O: seconds of TCP slow start left out of its figures
    trace_max_hops: int = 30  # trace: the highest TTL probed
    trace_protocol: str = "icmp"  # trace: icmp, udp or tcp (udp and tcp need no privileges)
    load_idle_s: float = 5.0  # responsiveness: seconds of latency probes before the load starts
    load_probe_interval_s: float = 0.1  # responsiveness: one latency probe every this many seconds
    load_upload_url: str | None = (
        None  # responsiveness: an HTTP(S) URL that accepts POST bodies (upload load)
    )

    def __post_init__(self) -> None:
        checks = [
            (self.count >= 1, f"count must be at least 1 (got {self.count})"),
            (self.interval_s >= 0, f"interval must not be negative (got {self.interval_s})"),
            (self.timeout_s > 0, f"timeout must be positive (got {self.timeout_s})"),
            (0 <= self.payload_bytes <= 65000, f"payload must be 0-65000 bytes (got {self.payload_bytes})"),
            (self.http_max_redirects >= 0, "max redirects must not be negative"),
            (self.download_max_bytes > 0, "download byte cap must be positive"),
            (self.download_max_seconds > 0, "download time cap must be positive"),
            (1 <= self.download_connections <= 64, "download connections must be 1-64"),
            (self.iperf3_seconds >= 1, "iperf3 duration must be at least 1 second"),
            (0 <= self.iperf3_omit_s <= 60, "iperf3 warm-up to omit must be 0-60 seconds"),
            (1 <= self.trace_max_hops <= 255, f"max hops must be 1-255 (got {self.trace_max_hops})"),
            (
                self.trace_protocol in ("icmp", "udp", "tcp"),
                f"trace protocol must be icmp, udp or tcp (got {self.trace_protocol!r})",
            ),
            (
                0.5 <= self.load_idle_s <= 600,
                _("the idle phase must last 0.5-600 seconds (got {value})").format(value=self.load_idle_s),
            ),
            (
                0.01 <= self.load_probe_interval_s <= 10,
                _("latency probes under load must be 0.01-10 seconds apart (got {value})").format(
                    value=self.load_probe_interval_s
                ),
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise TargetError(message)
        if self.load_upload_url is not None:
            _check_url(self.load_upload_url)


def _check_url(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:  # "Invalid IPv6 URL", a port out of range or not a number
        raise TargetError(f"{url!r}: not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise TargetError(f"{url!r}: expected an http:// or https:// URL")
    if not parts.hostname:
        raise TargetError(f"{url!r}: the URL has no host")
    if port == 0:
        raise TargetError(f"{url!r}: the URL's port is not a number 1-65535")
    _check_host(parts.hostname)
    return url


def _check_host(host: str) -> str:
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or any(c.isspace() for c in host) or "/" in host:
        raise TargetError(f"{host!r} is not a host name or address")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if len(host) > 253 or not all(0 < len(label) <= 63 for label in host.rstrip(".").split(".")):
        raise TargetError(f"{host!r} is not a valid host name")
    return host.lower()


def _split_host_port(text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest.startswith(":"):
            return host, _parse_port(rest[1:], text)
        return host, None
    if text.count(":") == 1:
        host, _, port_text = text.partition(":")
        return host, _parse_port(port_text, text)
    return text, None


def _parse_port(port_text: str, whole: str) -> int:
    if not port_text.isdigit():
        raise TargetError(f"{whole!r}: port {port_text!r} is not a number 1-65535")
    return int(port_text)


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host
