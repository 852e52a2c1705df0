"""Facts with their provenance: every fact in a catalog says where it comes from (`source`) and when
(`as_of`); a fact nobody stated is unknown (`None`), never false.

In a TOML file, a table's `source` and `as_of` cover every fact in it. A single fact can carry its own
provenance by writing it as an inline table::

    gpus_per_node = { value = 8, source = "vendor datasheet", as_of = "2026-05" }

The loader unpacks such a fact into its plain value and keeps its provenance in the table's `facts`.

A fact has a *standing* (`STANDINGS`): `claimed` (the catalog's or the vendor's word, the default),
`verified` (an acceptance report measured it: `linkvet accept import`), `contradicted` (an acceptance report
measured otherwise); a fact nobody stated is unknown. An inline fact may say its standing, and `file` names
the catalog file it was written in (set when a user catalog is merged over a bundled one):

    bmc_ipmi = { value = true, source = "verified on gpu-01 at …", as_of = "2026-12-02", standing = "verified" }
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from functools import lru_cache
from typing import Annotated, Any, Literal, NamedTuple, get_args
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from catalogs.i18n import N_, _

# The line types a vendor may claim: the same vocabulary as a probe target's `line_type` label.
LINE_TYPES: tuple[str, ...] = (
    "cn2-gia",
    "cn2-gt",
    "bgp",
    "cmi",
    "cu-9929",
    "cu-4837",
    "163",
    "standard",
    "local",
    "unknown",
)

_PARTIAL_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")
_FACT_KEYS = frozenset({"value", "source", "as_of", "note", "standing", "file"})

Standing = Literal["claimed", "verified", "contradicted"]  # a fact's standing; "unknown" is no fact at all
STANDINGS: tuple[Standing, ...] = get_args(Standing)
_STANDING_NAMES = {"claimed": N_("claimed"), "verified": N_("verified"), "contradicted": N_("contradicted")}


def standing_name(standing: str) -> str:
    """A fact's standing as people read it, in the current language (the value itself never translates)."""
    return _(_STANDING_NAMES[standing]) if standing in _STANDING_NAMES else standing


def implausible(message: str, expected: str) -> PydanticCustomError:
    """A validation error with a plain message and what was expected (the loader reports both)."""
    return PydanticCustomError("implausible", "{message}", {"message": message, "expected": expected})


def _as_of(value: Any) -> str:
    """Accept a TOML date, or text `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (say only as much as the source says)."""
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, dt.date):
        return _as_of_text(value.isoformat())
    if isinstance(value, str):
        return _as_of_text(value.strip())
    raise implausible(
        _("as_of must be a date, not {kind}").format(kind=type(value).__name__),
        _("YYYY, YYYY-MM or YYYY-MM-DD"),
    )


@lru_cache(maxsize=1024)
def _as_of_text(text: str) -> str:
    """Check a date written as text (catalogs repeat the same few dates: cached)."""
    match = _PARTIAL_DATE.match(text)
    if not match:
        raise implausible(_("{text!r} is not a date").format(text=text), _("YYYY, YYYY-MM or YYYY-MM-DD"))
    year, month, day = (int(g) if g else None for g in match.groups())
    try:
        dt.date(year or 1, month or 1, day or 1)
    except ValueError as exc:
        raise implausible(
            _("{text!r} is not a real date: no such month or day").format(text=text),
            _("YYYY, YYYY-MM or YYYY-MM-DD"),
        ) from exc
    if year is not None and year > dt.date.today().year + 1:
        raise implausible(_("{text!r} is in the future").format(text=text), _("the date the source said it"))
    return text


def _standing(value: Any) -> Standing:
    if value not in STANDINGS:
        raise implausible(
            _("standing {value!r} is not one of {values}").format(value=value, values=", ".join(STANDINGS)),
            _("one of {values}").format(values=", ".join(STANDINGS)),
        )
    return value  # type: ignore[no-any-return]


AsOf = Annotated[str, BeforeValidator(_as_of)]

# The largest GPU memory and the most GPUs in one node linkvet believes, in catalogs, the GPU reference and
# sizing's inputs alike (`linkvet size --gpu-memory`, `--gpus-per-node`).
MAX_GPU_MEMORY_GB = 1024
MAX_GPUS_PER_NODE = 72
Text = Annotated[str, Field(min_length=1)]
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)]

_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_URL_CHARS = 2048


def _shown(value: str) -> str:
    """A refused address as a message shows it: quoted, control characters escaped, at most 80 characters."""
    text = repr(value[:80])
    return text if len(value) <= 80 else text + "…"


def host_problem(value: str) -> str | None:
    """Why `value` is not an IP address or a DNS host name (an internationalised one is read in its ASCII
    form), or None when it is one."""
    if not value or len(value) > 253:
        return _("an address of {length} characters").format(length=len(value))
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value):
        return _("an address with a space, a line break or a control character")
    try:
        ipaddress.ip_address(value)
        return None
    except ValueError:
        pass
    try:
        ascii_name = value.rstrip(".").encode("idna").decode("ascii")
    except UnicodeError:
        return _("not a host name")
    labels = ascii_name.split(".")
    if not all(_LABEL.match(label) for label in labels) or labels[-1].isdigit():
        return _("not an IP address or a host name")
    return None


def url_problem(value: str) -> str | None:
    """Why `value` is not an http:// or https:// URL with a valid host, or None when it is one."""
    if len(value) > MAX_URL_CHARS:
        return _("a URL of {length} characters").format(length=len(value))
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in value):
        return _("a URL with a space, a line break or a control character")
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not one
    except ValueError:
        return _("not a URL")
    if parts.scheme.lower() not in ("http", "https"):
        return _("a {scheme}: address, not an http:// or https:// URL").format(
            scheme=parts.scheme[:20] or "?"
        )
    if not host:
        return _("a URL without a host")
    return host_problem(host)


def _host(value: str) -> str:
    problem = host_problem(value)
    if problem is not None:
        raise implausible(
            _("{value}: {problem}").format(value=_shown(value), problem=problem),
            _("an IP address or a host name, e.g. 203.0.113.10 or lg.example.net"),
        )
    return value


def _url(value: str) -> str:
    problem = url_problem(value)
    if problem is not None:
        raise implausible(
            _("{value}: {problem}").format(value=_shown(value), problem=problem),
            _("an http:// or https:// URL, e.g. https://lg.example.net/"),
        )
    return value


# A probe target's host (an IP address or a DNS name) and a web address (http or https only): never a
# `javascript:` or `file:` address, a space or a line break.
HostName = Annotated[str, AfterValidator(_host)]
WebUrl = Annotated[str, AfterValidator(_url)]


class Provenance(NamedTuple):
    """Where a fact comes from. `derived` is true when linkvet worked it out from other facts.
    (A NamedTuple: scoring asks for thousands of these.)"""

    source: str | None
    as_of: str | None
    note: str | None = None
    derived: bool = False
    standing: Standing = "claimed"
    file: str | None = None  # the catalog file the fact was written in, when not its table's file

    def describe(self) -> str:
        """The source in words: "derived: vendor datasheet (as of 2026-05)"."""
        if not self.source:
            return _("source not stated")
        if self.as_of:
            text = _("{source} (as of {as_of})").format(source=self.source, as_of=self.as_of)
        else:
            text = self.source
        if self.derived:
            text = _("derived: {source}").format(source=text)
        if self.standing == "contradicted" and not self.source.startswith("contradicted"):
            text = _("contradicted: {source}").format(source=text)
        return text


class Sourced(BaseModel):
    """A table of facts with a shared provenance, and per-fact overrides in `facts`."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    source: Text | None = None
    as_of: AsOf | None = None
    derived: bool = False  # true when linkvet (or its importer) worked these facts out from others
    facts: dict[str, Provenance] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _unpack_sourced_facts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for value in data.values():
            if type(value) is dict and "value" in value:
                break
        else:
            return data  # the common case: no fact carries its own provenance
        facts: dict[str, Provenance] = {}
        unpacked: dict[str, Any] = {}
        for key, value in data.items():
            if (
                key != "facts"
                and isinstance(value, dict)
                and "value" in value
                and "source" in value
                and set(value) <= _FACT_KEYS
            ):
                facts[key] = Provenance(
                    source=str(value["source"]),
                    as_of=_as_of(value["as_of"]) if value.get("as_of") is not None else None,
                    note=str(value["note"]) if value.get("note") is not None else None,
                    standing=_standing(value.get("standing", "claimed")),
                    file=str(value["file"]) if value.get("file") is not None else None,
                )
                unpacked[key] = value["value"]
            else:
                unpacked[key] = value
        if facts:
            unpacked["facts"] = facts
        return unpacked

    @field_validator("*", mode="after")
    @classmethod
    def _no_control_characters(cls, value: Any) -> Any:
        """No text of a catalog holds a NUL or another control character (a line break or a tab is fine in
        a note): such a character ends a C string, hides text in a terminal and breaks a spreadsheet."""
        texts = [value] if isinstance(value, str) else list(value) if isinstance(value, tuple) else []
        for text in texts:
            if isinstance(text, str) and (found := CONTROL_CHARACTER.search(text)) is not None:
                raise implausible(
                    _("a control character (U+{code:04X}) in {value}").format(
                        code=ord(found.group()), value=_shown(text)
                    ),
                    _("text without control characters"),
                )
        return value

    def provenance(self, field: str, parent: Provenance | None = None) -> Provenance:
        """Provenance of `field`: its own, else this table's, else the parent's."""
        if field in self.facts:
            return self.facts[field]
        if self.source:
            return Provenance(self.source, self.as_of, derived=self.derived)
        return parent if parent is not None else Provenance(None, None)


class SourcedTable(Sourced):
    """A top-level table (provider, service, region, offering): `source` and `as_of` are required."""

    source: Text
    as_of: AsOf
