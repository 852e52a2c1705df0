"""What to measure: a `Target` (one host or URL, one method, with the labels that join it to a vendor; its
plain form `as_dict`/`from_dict`, and `parse_target` from command-line text) and `ProbeOptions` (how hard
to measure it). Addresses and URLs are read and normalised by `probes.addresses`; `parse_target_list` reads
a target-list file."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from probes import limits
from probes.addresses import bracket, check_text, normalise_host, normalise_url, split_host_port, url_host
from probes.errors import TargetError
from probes.files import inputfile
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
        for label in ("name", "provider", "region", "line_type"):
            value = getattr(self, label)
            if value is not None and not isinstance(value, str):
                raise TargetError(_("{field} must be text, got {value!r}").format(field=label, value=value))
        try:
            object.__setattr__(self, "method", Method(self.method))
        except ValueError:
            known = ", ".join(m.value for m in Method)
            raise TargetError(
                _("unknown method {method!r} (expected one of: {known})").format(
                    method=self.method, known=known
                )
            ) from None
        if self.method in URL_METHODS:
            if not self.url:
                raise TargetError(
                    _("method {method} needs a URL (http:// or https://)").format(method=self.method)
                )
            if not isinstance(self.url, str):
                raise TargetError(_("{url!r} is not a URL").format(url=self.url))
            object.__setattr__(self, "url", normalise_url(self.url))
            object.__setattr__(self, "host", url_host(self.url))
        else:
            if not self.host:
                raise TargetError(
                    _("method {method} needs a host name or address").format(method=self.method)
                )
            if not isinstance(self.host, str):
                raise TargetError(_("{host!r} is not a host name or address").format(host=self.host))
            object.__setattr__(self, "host", normalise_host(self.host))
        if self.port is not None:
            if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
                raise TargetError(
                    _("port {port!r} is not a TCP port (expected an integer 1-65535)").format(port=self.port)
                )
        elif self.method is Method.TCP:
            raise TargetError(
                _("method tcp needs a TCP port to connect to {host} (e.g. port 22)").format(host=self.host)
            )
        if not self.name:
            object.__setattr__(self, "name", self.default_name())

    def default_name(self) -> str:
        if self.method in URL_METHODS:
            return str(self.url)
        if self.method is Method.TCP or (self.method is Method.IPERF3 and self.port):
            return f"{bracket(str(self.host))}:{self.port}"
        return str(self.host)

    @property
    def key(self) -> str:
        """Identity in the store: the method and what it was pointed at (labels may change, this does not)."""
        if self.method in URL_METHODS:
            return f"{self.method}:{self.url}"
        if self.method in (Method.ICMP, Method.TRACE):
            return f"{self.method}:{self.host}"
        port = self.port or DEFAULT_IPERF3_PORT
        return f"{self.method}:{bracket(str(self.host))}:{port}"

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
            raise TargetError(
                _("expected a table of target fields (name, method, host, ...), got {value!r}").format(
                    value=data
                )
            )
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
    """A target from command-line text: a host, an address, `host:port`, `[v6]:port`, or a URL, read
    strictly (`probes.addresses`: an unclosed `[`, text after `]`, a control character or a number that is
    not an address is a TargetError, never a guess).

    Without a method, URLs are probed with `http`, `host:port` with `tcp` and hosts with `icmp`.
    """
    text = text.strip()
    if not text:
        raise TargetError(_("empty target"))
    check_text(text)
    if "://" in text:
        chosen = method or Method.HTTP
        if Method(chosen) in URL_METHODS:
            return Target(method=chosen, url=text, port=port, **labels)  # type: ignore[arg-type]
        url = normalise_url(
            text
            if text.split("://", 1)[0].lower() in ("http", "https")
            else "http://" + text.split("://", 1)[1]
        )
        parts = urllib.parse.urlsplit(url)
        return Target(method=chosen, host=url_host(url), port=port or parts.port, **labels)  # type: ignore[arg-type]
    host, embedded_port = split_host_port(text)
    chosen = method or (Method.TCP if embedded_port is not None else Method.ICMP)
    if Method(chosen) in URL_METHODS:
        raise TargetError(
            _("{text!r}: method {method} needs a URL such as http://{text}/").format(text=text, method=chosen)
        )
    if embedded_port is not None and port is not None and embedded_port != port:
        raise TargetError(
            _("{text!r}: port {embedded} in the target disagrees with --port {port}").format(
                text=text, embedded=embedded_port, port=port
            )
        )
    return Target(method=chosen, host=host, port=port if port is not None else embedded_port, **labels)  # type: ignore[arg-type]


def parse_target_list(
    text: str, where: str, method: Method | None = None, port: int | None = None, **labels: str | None
) -> list[Target]:
    """The targets of a target-list file's text, one per line (`#` starts a comment), each read by
    `parse_target`. A line that is not a target, or that names a target an earlier line names already
    (after normalising: `127.000.000.001` is refused, `Example.com` is `example.com`), is a TargetError
    naming `where` (the file), the line and the earlier line."""
    targets: list[Target] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        try:
            target = parse_target(entry, method, port, **labels)
        except TargetError as exc:
            raise TargetError(
                _("{file}:{line}: {problem}").format(file=where, line=number, problem=exc)
            ) from None
        if target.key in first_line:
            raise TargetError(
                _("{file}:{line}: {target} is already on line {first}").format(
                    file=where, line=number, target=target.name, first=first_line[target.key]
                )
            )
        first_line[target.key] = number
        targets.append(target)
    return targets


def load_target_list(
    path: Path, method: Method | None = None, port: int | None = None, **labels: str | None
) -> list[Target]:
    """`parse_target_list` of a file, read as every input is (`probes.files.inputfile`); a file that names no
    target (empty, or only comments and blank lines) is a TargetError: nothing would be measured."""
    text = inputfile.read_text(path, lambda message, line: TargetError(_where(path, line, message)))
    targets = parse_target_list(text, str(path), method, port, **labels)
    if not targets:
        raise TargetError(
            _("{file}: names no target (only comments or blank lines): nothing to measure").format(file=path)
        )
    return targets


def _where(path: Path, line: int | None, message: str) -> str:
    if line is None:
        return _("{file}: {problem}").format(file=path, problem=message)
    return _("{file}:{line}: {problem}").format(file=path, line=line, problem=message)


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
        # the same limits as the flags and the plan's fields (`probes.limits`)
        checks = [
            (_("count: {problem}"), self.count, limits.COUNT),
            (_("interval: {problem}"), self.interval_s, limits.INTERVAL),
            (_("timeout: {problem}"), self.timeout_s, limits.TIMEOUT),
            (_("payload: {problem}"), self.payload_bytes, limits.PAYLOAD),
            (_("max redirects: {problem}"), self.http_max_redirects, limits.MAX_REDIRECTS),
            (_("download byte cap: {problem}"), self.download_max_bytes, limits.DOWNLOAD_BYTES),
            (_("download time cap: {problem}"), self.download_max_seconds, limits.DOWNLOAD_SECONDS),
            (_("download connections: {problem}"), self.download_connections, limits.CONNECTIONS),
            (_("iperf3 duration: {problem}"), self.iperf3_seconds, limits.IPERF3_SECONDS),
            (_("iperf3 warm-up to omit: {problem}"), self.iperf3_omit_s, limits.IPERF3_OMIT),
            (_("max hops: {problem}"), self.trace_max_hops, limits.MAX_HOPS),
            (_("the idle phase: {problem}"), self.load_idle_s, limits.LOAD_IDLE),
            (
                _("latency probes under load, seconds apart: {problem}"),
                self.load_probe_interval_s,
                limits.LOAD_PROBE_INTERVAL,
            ),
        ]
        for message, value, limit in checks:
            try:
                limit.check(value)
            except ValueError as exc:
                raise TargetError(message.format(problem=exc)) from None
        if self.trace_protocol not in ("icmp", "udp", "tcp"):
            raise TargetError(
                _("trace protocol must be icmp, udp or tcp (got {value!r})").format(value=self.trace_protocol)
            )
        if self.load_upload_url is not None:
            normalise_url(self.load_upload_url)
