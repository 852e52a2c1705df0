"""The offline network table: which backbone (and AS) a hop address belongs to.

The bundled table (`networks.toml` beside this module) holds the prefixes and AS numbers that public
route-check tools use, each with its source. A user table of the same shape is merged over it.
Addresses are matched as real CIDR networks, longest prefix first, not as dotted-string prefixes.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal, get_args

from probes.errors import NetworkTableError, NetworkTableVersionError
from probes.files import inputfile
from probes.i18n import _

Backbone = Literal["cn2", "163", "ctgnet", "cu-9929", "cu-10099", "cu-4837", "cmi", "cmin2", "other"]
BACKBONES: Final[tuple[Backbone, ...]] = get_args(Backbone)

TABLE_VERSION: Final = 1
BUNDLED_ORIGIN: Final = "bundled"
# Overrides the user table's location (the `--networks` option wins over it).
USER_TABLE_ENV: Final = "LINKVET_ROUTE_NETWORKS"
USER_TABLE_NAME: Final = "route-networks.toml"

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class AsInfo:
    """What one AS number is: its backbone, names for people, and where that fact comes from."""

    asn: int
    backbone: Backbone
    name: str
    label: str
    source: str
    note: str | None = None
    origin: str = BUNDLED_ORIGIN


@dataclass(frozen=True, slots=True)
class PrefixRule:
    """One network of hop addresses belonging to an AS, with its source."""

    network: IPNetwork
    asn: int
    source: str
    note: str | None = None
    origin: str = BUNDLED_ORIGIN

    @property
    def cidr(self) -> str:
        return str(self.network)

    @property
    def short(self) -> str:
        """How people write the prefix: `59.43` for 59.43.0.0/16, `223.120.19` for a /24, else the CIDR."""
        net = self.network
        if net.version == 4 and net.prefixlen in (8, 16, 24):
            return ".".join(str(net.network_address).split(".")[: net.prefixlen // 8])
        return str(net)


@dataclass(frozen=True, slots=True)
class NetworkMatch:
    """A hop address found in the table: the prefix that matched and its AS."""

    address: str
    prefix: PrefixRule
    as_info: AsInfo

    @property
    def asn(self) -> int:
        return self.as_info.asn

    @property
    def backbone(self) -> Backbone:
        return self.as_info.backbone

    @property
    def label(self) -> str:
        """Short label for a hop column, e.g. `CN2 AS4809`."""
        return f"{self.as_info.label} AS{self.as_info.asn}"

    def describe(self) -> str:
        """e.g. `CN2 (AS4809, 59.43.0.0/16)`."""
        return f"{self.as_info.label} (AS{self.as_info.asn}, {self.prefix.cidr})"


class NetworkTable:
    """AS facts and prefix rules, answering `lookup(address)` by longest-prefix match."""

    def __init__(self, asns: Iterable[AsInfo], prefixes: Iterable[PrefixRule]) -> None:
        self._asns: dict[int, AsInfo] = {info.asn: info for info in asns}
        self._prefixes: tuple[PrefixRule, ...] = tuple(prefixes)
        # Per (IP version, prefix length), network address -> rule; lengths are tried longest first.
        self._index: dict[tuple[int, int], dict[int, PrefixRule]] = {}
        for rule in self._prefixes:
            if rule.asn not in self._asns:
                raise ValueError(
                    _("prefix {cidr} names AS{asn}, which has no AS entry").format(
                        cidr=rule.cidr, asn=rule.asn
                    )
                )
            key = (rule.network.version, rule.network.prefixlen)
            self._index.setdefault(key, {})[int(rule.network.network_address)] = rule
        self._lengths: dict[int, list[int]] = {
            version: sorted((length for v, length in self._index if v == version), reverse=True)
            for version in (4, 6)
        }

    @property
    def asns(self) -> Mapping[int, AsInfo]:
        return dict(self._asns)

    @property
    def prefixes(self) -> tuple[PrefixRule, ...]:
        return self._prefixes

    def lookup(self, address: str | IPAddress) -> NetworkMatch | None:
        """The most specific prefix rule containing `address`, or None (also for text that is no address)."""
        try:
            addr = ipaddress.ip_address(address)
        except ValueError:
            return None
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        value = int(addr)
        bits = addr.max_prefixlen
        for length in self._lengths[addr.version]:
            masked = value >> (bits - length) << (bits - length) if length else 0
            rule = self._index[(addr.version, length)].get(masked)
            if rule is not None:
                return NetworkMatch(address=str(addr), prefix=rule, as_info=self._asns[rule.asn])
        return None


# --- Loading -----------------------------------------------------------------------------------------

_ASN_FIELDS: Final = {"asn", "backbone", "name", "label", "source", "note"}
_PREFIX_FIELDS: Final = {"cidr", "asn", "source", "note", "ignore"}


@dataclass(frozen=True, slots=True)
class TableFile:
    """The entries of one table file, validated, before merging."""

    path: str
    asns: tuple[AsInfo, ...]
    prefixes: tuple[PrefixRule, ...]
    ignored: tuple[IPNetwork, ...]


def bundled_table_path() -> Path:
    return Path(str(resources.files("probes.routes").joinpath("networks.toml")))


def default_user_table_path() -> Path:
    """Where the user's table is looked for: `$LINKVET_ROUTE_NETWORKS`, else the user config directory."""
    override = os.environ.get(USER_TABLE_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    from probes.paths import APP_NAME

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / USER_TABLE_NAME


def read_table_file(path: Path, *, origin: str | None = None) -> TableFile:
    """Parse and validate one table file. Raises `NetworkTableError` naming the file, entry and field."""
    return parse_table_text(inputfile.read_text(path, _error(path)), path=path, origin=origin)


def parse_table_text(text: str, *, path: Path | str, origin: str | None = None) -> TableFile:
    data = inputfile.parse_toml(text, _error(path), syntax=_("not valid TOML"))
    origin = origin if origin is not None else str(path)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise NetworkTableError(
            path,
            _("field 'version': expected an integer (this linkvet writes {version})").format(
                version=TABLE_VERSION
            ),
        )
    if version > TABLE_VERSION:
        raise NetworkTableVersionError(
            path,
            _("version {version} is newer than this linkvet understands ({known}); upgrade linkvet").format(
                version=version, known=TABLE_VERSION
            ),
        )
    if version < 1:
        raise NetworkTableError(
            path,
            _("field 'version': expected 1..{known}, got {version}").format(
                known=TABLE_VERSION, version=version
            ),
        )
    unknown = set(data) - {"version", "asn", "prefix"}
    if unknown:
        raise NetworkTableError(
            path,
            _("unknown top-level field(s) {fields} (expected version, [[asn]], [[prefix]])").format(
                fields=", ".join(sorted(unknown))
            ),
        )
    asn_lines = _header_lines(text, "asn")
    prefix_lines = _header_lines(text, "prefix")
    asns = tuple(
        _parse_asn(entry, _Where(path, "asn", index, asn_lines), origin)
        for index, entry in enumerate(_entries(data, "asn", path))
    )
    seen: dict[int, int] = {}
    for index, info in enumerate(asns):
        if info.asn in seen:
            where = _Where(path, "asn", index, asn_lines)
            raise NetworkTableError(
                path,
                _("{where}: AS{asn} is already defined by asn #{first}").format(
                    where=where, asn=info.asn, first=seen[info.asn] + 1
                ),
            )
        seen[info.asn] = index
    prefixes: list[PrefixRule] = []
    ignored: list[IPNetwork] = []
    seen_nets: dict[IPNetwork, int] = {}
    for index, entry in enumerate(_entries(data, "prefix", path)):
        where = _Where(path, "prefix", index, prefix_lines)
        network, rule = _parse_prefix(entry, where, origin)
        if network in seen_nets:
            raise NetworkTableError(
                path,
                _("{where}: {network} is already listed by prefix #{first}").format(
                    where=where, network=network, first=seen_nets[network] + 1
                ),
            )
        seen_nets[network] = index
        if rule is None:
            ignored.append(network)
        else:
            prefixes.append(rule)
    return TableFile(path=str(path), asns=asns, prefixes=tuple(prefixes), ignored=tuple(ignored))


def merge_tables(files: Iterable[TableFile]) -> NetworkTable:
    """Later files win: an AS entry replaces one with the same number, a prefix one with the same network,
    and `ignore = true` drops an earlier prefix. Every prefix must name an AS defined in some file."""
    asns: dict[int, AsInfo] = {}
    prefixes: dict[IPNetwork, PrefixRule] = {}
    files = list(files)
    for table_file in files:
        for info in table_file.asns:
            asns[info.asn] = info
        for rule in table_file.prefixes:
            prefixes[rule.network] = rule
        for network in table_file.ignored:
            prefixes.pop(network, None)
    for rule in prefixes.values():
        if rule.asn not in asns:
            raise NetworkTableError(
                rule.origin,
                _(
                    "prefix {cidr}: AS{asn} has no [[asn]] entry in this file or the bundled table (add one "
                    "with asn, backbone, name, label, source)"
                ).format(cidr=rule.cidr, asn=rule.asn),
            )
    return NetworkTable(asns.values(), prefixes.values())


def load_network_table(user_path: Path | None = None, *, use_user_file: bool = True) -> NetworkTable:
    """The bundled table merged with the user's.

    `user_path` given: that file must exist. Otherwise the default user file (`$LINKVET_ROUTE_NETWORKS` or
    `route-networks.toml` in the user config directory) is merged when it exists and `use_user_file` is true.
    """
    files = [read_table_file(bundled_table_path(), origin=BUNDLED_ORIGIN)]
    if user_path is not None:
        files.append(read_table_file(user_path))
    elif use_user_file:
        default = default_user_table_path()
        if default.is_file() or os.environ.get(USER_TABLE_ENV):
            files.append(read_table_file(default))
    return merge_tables(files)


def bundled_table() -> NetworkTable:
    """The bundled table alone (what tests and reproducible runs use)."""
    return load_network_table(use_user_file=False)


def _error(path: Path | str) -> inputfile.ErrorFactory:
    return lambda message, line: NetworkTableError(
        path, message if line is None else f"{message} (line {line})"
    )


@dataclass(frozen=True, slots=True)
class _Where:
    path: Path | str
    kind: str
    index: int
    lines: list[int]

    def __str__(self) -> str:
        if self.index < len(self.lines):
            return _("{kind} #{number} (line {line})").format(
                kind=self.kind, number=self.index + 1, line=self.lines[self.index]
            )
        return f"{self.kind} #{self.index + 1}"


def _header_lines(text: str, kind: str) -> list[int]:
    pattern = re.compile(rf"^\s*\[\[\s*{kind}\s*\]\]")
    return [number for number, line in enumerate(text.splitlines(), start=1) if pattern.match(line)]


def _entries(data: dict[str, Any], kind: str, path: Path | str) -> list[dict[str, Any]]:
    entries = data.get(kind, [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise NetworkTableError(
            path, _("field '{kind}': expected an array of tables ([[{kind}]])").format(kind=kind)
        )
    return entries


def _fail(where: _Where, message: str) -> NetworkTableError:
    return NetworkTableError(where.path, f"{where}: {message}")


def _check_fields(entry: dict[str, Any], allowed: set[str], where: _Where) -> None:
    unknown = set(entry) - allowed
    if unknown:
        raise _fail(
            where,
            _("unknown field(s) {fields} (expected {allowed})").format(
                fields=", ".join(sorted(unknown)), allowed=", ".join(sorted(allowed))
            ),
        )


def _text(entry: dict[str, Any], name: str, where: _Where, *, required: bool = True) -> str | None:
    value = entry.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, _("field '{field}': expected a non-empty string").format(field=name))
    return value.strip()


def _asn(entry: dict[str, Any], where: _Where) -> int:
    value = entry.get("asn")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 2**32:
        raise _fail(
            where, _("field 'asn': expected an AS number 1..4294967295, got {value!r}").format(value=value)
        )
    return value


def _parse_asn(entry: dict[str, Any], where: _Where, origin: str) -> AsInfo:
    _check_fields(entry, _ASN_FIELDS, where)
    asn = _asn(entry, where)
    backbone = entry.get("backbone")
    if backbone not in BACKBONES:
        raise _fail(
            where,
            _("field 'backbone': expected one of {known}, got {value!r}").format(
                known=", ".join(BACKBONES), value=backbone
            ),
        )
    name = _text(entry, "name", where)
    label = _text(entry, "label", where)
    source = _text(entry, "source", where)
    assert name is not None and label is not None and source is not None
    return AsInfo(
        asn=asn,
        backbone=backbone,
        name=name,
        label=label,
        source=source,
        note=_text(entry, "note", where, required=False),
        origin=origin,
    )


def _parse_prefix(entry: dict[str, Any], where: _Where, origin: str) -> tuple[IPNetwork, PrefixRule | None]:
    _check_fields(entry, _PREFIX_FIELDS, where)
    cidr = entry.get("cidr")
    if not isinstance(cidr, str):
        raise _fail(
            where,
            _("field 'cidr': expected a network such as \"59.43.0.0/16\", got {value!r}").format(value=cidr),
        )
    try:
        network = ipaddress.ip_network(cidr.strip(), strict=True)
    except ValueError as exc:
        problem = _("field 'cidr': {reason}").format(reason=exc)
        with contextlib.suppress(ValueError):
            problem = _("field 'cidr': {reason} (did you mean {network}?)").format(
                reason=exc, network=ipaddress.ip_network(cidr.strip(), strict=False)
            )
        raise _fail(where, problem) from exc
    ignore = entry.get("ignore", False)
    if not isinstance(ignore, bool):
        raise _fail(where, _("field 'ignore': expected true or false"))
    if ignore:
        return network, None
    source = _text(entry, "source", where)
    assert source is not None
    rule = PrefixRule(
        network=network,
        asn=_asn(entry, where),
        source=source,
        note=_text(entry, "note", where, required=False),
        origin=origin,
    )
    return network, rule
