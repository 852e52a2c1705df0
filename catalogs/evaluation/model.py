"""An evaluation: the job (a needs profile), the team's offices, the peak windows, and the candidates being
chosen between, each with its test endpoints. It lives in the result store (so every office of a team store
sees the same one) as a versioned TOML document, which is also its file format (`linkvet eval export` and
`eval import`)::

    format = "linkvet-evaluation"
    format_version = 1
    name = "q1-gpu"
    decide_by = "worst"                    # worst: the worse office counts | each | an office's name
    peak_windows = ["20:00-23:00 Asia/Shanghai"]

    [[offices]]
    name = "shanghai"
    carrier = "ct"                         # ct (China Telecom) | cu (China Unicom) | cm (China Mobile)

    [[candidates]]
    provider = "raksmart"
    region = "san-jose"
    offering = "high-defence-gpu-server"   # optional: every offering of the provider in the region
    line_type = "cn2-gia"                  # optional: the line the vendor sells for this candidate
    endpoints = ["198.18.1.1", "https://lg.example.net/100MB.test"]
    catalog_endpoints = true               # optional: the region's catalog endpoints too (default)

    [needs]                                # the needs profile, as in a needs file
    format_version = 1
    ...

Format 2 adds, all optional: `every` and `peak_every` (how often the candidates are measured; 5m and 1m when
not given) and `[[alerts]]` rules with their `[notifiers.NAME]` (as in a plan file, plus `offices = N`: one
alert when N offices agree), read by `catalogs.evaluation.alerting`. A document is written as format 1 unless
it uses them, so a linkvet that knows only format 1 still reads every evaluation that does not.

Names of evaluations and offices are slugs; endpoints are an IP address, a host name, `host:port` or an http(s)
URL, read by the probes' one strict reader (`probes.target.parse_target`): `javascript:`, `file:`, control
characters and spaces are refused with the field named. A candidate is its (provider, region, offering): the
same one twice is refused. Whether the ids exist in the catalogs is checked where the catalogs are at hand
(`catalogs.evaluation.candidates`), not here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import tomli_w

from catalogs import _toml
from catalogs.errors import EvaluationError, NeedsProfileError
from catalogs.evaluation.alerting import V2_KEYS, EvaluationSchedule, parse_schedule
from catalogs.i18n import _
from catalogs.needs import NeedsProfile, validate_needs
from probes.errors import PeakWindowError, TargetError
from probes.files.inputfile import field_name
from probes.peak import DEFAULT_PEAK_WINDOWS, PeakWindow
from probes.target import Target, parse_target

EXAMPLE_EVALUATION = Path(__file__).with_name("example.toml")  # three candidates on loopback: runs anywhere
EVALUATION_FORMAT = "linkvet-evaluation"
EVALUATION_VERSION = 2  # the newest this linkvet reads and writes (`document_version`: what one needs)
Carrier = Literal["ct", "cu", "cm"]
CARRIERS: tuple[Carrier, ...] = ("ct", "cu", "cm")
DecideBy = str  # "worst", "each", or an office's name
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
MAX_CANDIDATES = 200
MAX_ENDPOINTS = 32
MAX_OFFICES = 32
Fail = Callable[..., EvaluationError]
_TOP_KEYS = {
    "format",
    "format_version",
    "name",
    "decide_by",
    "peak_windows",
    "offices",
    "candidates",
    "needs",
    *V2_KEYS,
}


@dataclass(frozen=True, slots=True)
class Office:
    """A place the team measures from (a vantage point), and the carrier its line is on where known."""

    name: str
    carrier: Carrier | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One choice: a provider's region (and offering, where the team has one in mind), with the addresses the
    line is measured to."""

    provider: str
    region: str
    offering: str | None = None
    line_type: str | None = None  # the line the vendor sells for it (None: the catalog region's claim)
    endpoints: tuple[str, ...] = ()
    catalog_endpoints: bool = (
        True  # also the region's endpoints in the catalogs (a vendor's answers add there)
    )

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.provider, self.region, self.offering)

    @property
    def label(self) -> str:
        """`provider/region[/offering]`, as the commands take it (`--candidate`)."""
        return "/".join(part for part in self.key if part)


@dataclass(frozen=True, slots=True)
class Evaluation:
    name: str
    needs: NeedsProfile
    offices: tuple[Office, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    peak_windows: tuple[PeakWindow, ...] = DEFAULT_PEAK_WINDOWS
    decide_by: DecideBy = "worst"
    needs_source: str | None = field(default=None, compare=False)  # the file the needs came from
    schedule: EvaluationSchedule = field(default_factory=EvaluationSchedule)  # format 2: cadences, alerts

    def office(self, name: str) -> Office | None:
        return next((o for o in self.offices if o.name == name), None)

    def candidate(self, label: str) -> Candidate | None:
        return next((c for c in self.candidates if c.label == label), None)

    def with_candidate(self, candidate: Candidate) -> Evaluation:
        """A candidate added (the same provider, region and offering twice is refused)."""
        if any(c.key == candidate.key for c in self.candidates):
            raise EvaluationError(
                _("{candidate} is a candidate of {evaluation} already").format(
                    candidate=candidate.label, evaluation=self.name
                )
            )
        if len(self.candidates) >= MAX_CANDIDATES:
            raise EvaluationError(
                _("an evaluation holds at most {count} candidates").format(count=MAX_CANDIDATES)
            )
        return replace(self, candidates=(*self.candidates, candidate))

    def without_candidate(self, label: str) -> Evaluation:
        """The candidate `provider/region[/offering]` removed (its measurements stay in the store)."""
        if self.candidate(label) is None:
            raise EvaluationError(
                _("{evaluation} has no candidate {candidate} (it has: {known})").format(
                    evaluation=self.name,
                    candidate=label,
                    known=", ".join(c.label for c in self.candidates) or "-",
                )
            )
        return replace(self, candidates=tuple(c for c in self.candidates if c.label != label))

    def with_endpoints(self, label: str, endpoints: Iterable[str]) -> Evaluation:
        """More test endpoints for a candidate (those it has already are not repeated)."""
        candidate = self.candidate(label)
        if candidate is None:
            raise EvaluationError(
                _("{evaluation} has no candidate {candidate}").format(evaluation=self.name, candidate=label)
            )
        added = tuple(e for e in endpoints if e not in candidate.endpoints)
        if not added:
            return self
        updated = replace(candidate, endpoints=check_endpoints((*candidate.endpoints, *added), label))
        return replace(self, candidates=tuple(updated if c.label == label else c for c in self.candidates))


# -- checking ------------------------------------------------------------------------------------------------


def check_name(name: str, what: str = "evaluation") -> str:
    """An evaluation's or office's name: lower-case letters, digits, `.`, `_`, `-`, at most 63 characters."""
    if not isinstance(name, str) or not NAME.match(name):
        shown = repr(name)[:80]
        raise EvaluationError(
            _(
                "{what} name {name}: expected lower-case letters, digits, '.', '_' or '-' (at most 63, starting "
                "with a letter or digit), e.g. q1-gpu"
            ).format(what=what, name=shown)
        )
    return name


def endpoint_target(text: str) -> Target:
    """The endpoint as the probes read it (TargetError saying what was expected)."""
    return parse_target(text)


def check_endpoints(endpoints: Sequence[str], where: str) -> tuple[str, ...]:
    """Each endpoint read strictly (an IP address, a host name, `host:port` or an http(s) URL), written in
    its normal form, none twice, at most MAX_ENDPOINTS."""
    if len(endpoints) > MAX_ENDPOINTS:
        raise EvaluationError(
            _("{where}: at most {count} endpoints").format(where=where, count=MAX_ENDPOINTS)
        )
    seen: dict[str, str] = {}
    out: list[str] = []
    for text in endpoints:
        if not isinstance(text, str):
            raise EvaluationError(
                _("{where}: an endpoint must be text, got {value!r}").format(where=where, value=text)
            )
        try:
            target = endpoint_target(text)
        except TargetError as exc:
            raise EvaluationError(
                _(
                    "{where}: endpoint {text}: expected an IP address, a host name, host:port or an http(s) URL "
                    "({problem})"
                ).format(where=where, text=repr(text)[:200], problem=exc)
            ) from None
        normal = target.url or target.name
        if target.key in seen:
            raise EvaluationError(
                _("{where}: endpoint {text} is {other} again").format(
                    where=where, text=repr(text)[:200], other=seen[target.key]
                )
            )
        seen[target.key] = normal
        out.append(normal)
    return tuple(out)


def check_office(name: str, carrier: str | None) -> Office:
    check_name(name, _("office"))
    if carrier is not None and carrier.lower() not in CARRIERS:
        raise EvaluationError(
            _(
                "office {office}: carrier {carrier!r}: expected ct, cu or cm (China Telecom, Unicom, Mobile)"
            ).format(office=name, carrier=carrier[:40])
        )
    return Office(name, carrier.lower() if carrier else None)  # type: ignore[arg-type]


def parse_office(text: str) -> Office:
    """`NAME[:carrier]`, as `--office` takes it."""
    name, _sep, carrier = text.partition(":")
    return check_office(name.strip(), carrier.strip() or None)


def check_decide_by(decide_by: str, offices: Sequence[Office]) -> str:
    if decide_by in ("worst", "each") or any(o.name == decide_by for o in offices):
        return decide_by
    raise EvaluationError(
        _("decide_by {value!r}: expected worst, each or one of the offices ({offices})").format(
            value=decide_by[:80], offices=", ".join(o.name for o in offices) or "-"
        )
    )


def check_offices(offices: Sequence[Office]) -> tuple[Office, ...]:
    if len(offices) > MAX_OFFICES:
        raise EvaluationError(_("an evaluation has at most {count} offices").format(count=MAX_OFFICES))
    names = [o.name for o in offices]
    for name in names:
        if names.count(name) > 1:
            raise EvaluationError(_("office {office} is given twice").format(office=name))
    return tuple(offices)


# -- the document ----------------------------------------------------------------------------------------


def document_version(evaluation: Evaluation) -> int:
    """The format version the evaluation's document needs: 2 when it has a cadence or alerts, else 1."""
    return 2 if evaluation.schedule.given else 1


def to_toml(evaluation: Evaluation) -> str:
    """The evaluation as its versioned TOML document (what the store keeps and `eval export` writes)."""
    doc: dict[str, Any] = {
        "format": EVALUATION_FORMAT,
        "format_version": document_version(evaluation),
        "name": evaluation.name,
        "decide_by": evaluation.decide_by,
        "peak_windows": [str(w) for w in evaluation.peak_windows],
        "offices": [
            {"name": o.name, **({"carrier": o.carrier} if o.carrier else {})} for o in evaluation.offices
        ],
        "candidates": [
            {
                "provider": c.provider,
                "region": c.region,
                **({"offering": c.offering} if c.offering else {}),
                **({"line_type": c.line_type} if c.line_type else {}),
                "endpoints": list(c.endpoints),
                **({} if c.catalog_endpoints else {"catalog_endpoints": False}),
            }
            for c in evaluation.candidates
        ],
        **evaluation.schedule.as_tables(),
        "needs": evaluation.needs.model_dump(mode="json", exclude_none=True, by_alias=True),
    }
    if not doc["offices"]:
        del doc["offices"]
    if not doc["candidates"]:
        del doc["candidates"]
    return tomli_w.dumps(doc)


def parse_evaluation(text: str, path: Path | str = "<evaluation>") -> Evaluation:
    """An evaluation document read and checked; EvaluationError naming the file, the line and the field."""
    where = Path(path)
    raw = _toml.parse(text, where, EvaluationError)
    lines = _toml.LazyLines(text)

    def fail(message: str, *loc: str | int) -> EvaluationError:
        return EvaluationError(
            message, path=where, line=lines(tuple(loc)) if loc else None, field=field_name(loc) or None
        )

    if raw.get("format") != EVALUATION_FORMAT:
        raise fail(
            _("not an evaluation (expected format = {expected!r})").format(expected=EVALUATION_FORMAT),
            "format",
        )
    version = raw.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise fail(_("expected a whole number"), "format_version")
    if version > EVALUATION_VERSION:
        raise fail(
            _(
                "format version {version} is newer than this linkvet understands ({known}); upgrade linkvet"
            ).format(version=version, known=EVALUATION_VERSION),
            "format_version",
        )
    for key in raw:
        if key not in _TOP_KEYS:
            raise fail(_("unknown field (check its spelling)"), key)
        if key in V2_KEYS and version < 2:
            raise fail(
                _("{field} needs format_version = 2 (this document says {version})").format(
                    field=key, version=version
                ),
                key,
            )
    with _located(fail, "name"):
        name = check_name(_text(raw.get("name"), fail, "name"))
    offices: list[Office] = []
    for index, item in enumerate(_tables(raw.get("offices", []), fail, "offices")):
        _only(item, {"name", "carrier"}, fail, "offices", index)
        office_name = _text(item.get("name"), fail, "offices", index, "name")
        carrier = item.get("carrier")
        if carrier is not None:
            carrier = _text(carrier, fail, "offices", index, "carrier")
        with _located(fail, "offices", index):
            offices.append(check_office(office_name, carrier))
    with _located(fail, "offices"):
        check_offices(offices)
    with _located(fail, "decide_by"):
        decide_by = check_decide_by(_text(raw.get("decide_by", "worst"), fail, "decide_by"), offices)
    windows_raw = raw.get("peak_windows", [str(w) for w in DEFAULT_PEAK_WINDOWS])
    if not isinstance(windows_raw, list):
        raise fail(_("expected a list of windows such as '20:00-23:00 Asia/Shanghai'"), "peak_windows")
    windows: list[PeakWindow] = []
    for index, window_text in enumerate(windows_raw):
        try:
            windows.append(PeakWindow.parse(_text(window_text, fail, "peak_windows", index)))
        except PeakWindowError as exc:
            raise fail(str(exc), "peak_windows", index) from None
    raw_needs = raw.get("needs")
    if not isinstance(raw_needs, dict):
        raise fail(_("missing: the needs profile (a [needs] table, as in a needs file)"), "needs")
    try:
        needs = validate_needs(raw_needs, where, lambda loc: lines(("needs", *loc)))
    except NeedsProfileError as exc:
        raise EvaluationError(
            exc.message,
            path=where,
            line=exc.line,
            field=f"needs.{exc.field}" if exc.field else "needs",
            expected=exc.expected,
        ) from None
    schedule = parse_schedule(raw, len(offices), fail)
    evaluation = Evaluation(name, needs, tuple(offices), (), tuple(windows), decide_by, schedule=schedule)
    for index, item in enumerate(_tables(raw.get("candidates", []), fail, "candidates")):
        _only(
            item,
            {"provider", "region", "offering", "line_type", "endpoints", "catalog_endpoints"},
            fail,
            "candidates",
            index,
        )
        provider = _slug(item.get("provider"), fail, "candidates", index, "provider")
        region = _slug(item.get("region"), fail, "candidates", index, "region")
        offering = item.get("offering")
        if offering is not None:
            offering = _slug(offering, fail, "candidates", index, "offering")
        line_type = item.get("line_type")
        if line_type is not None:
            line_type = _slug(line_type, fail, "candidates", index, "line_type")
        endpoints_raw = item.get("endpoints", [])
        if not isinstance(endpoints_raw, list):
            raise fail(_("expected a list of addresses"), "candidates", index, "endpoints")
        with _located(fail, "candidates", index, "endpoints"):
            endpoints = check_endpoints(endpoints_raw, f"{provider}/{region}")
        from_catalog = item.get("catalog_endpoints", True)
        if not isinstance(from_catalog, bool):
            raise fail(_("expected true or false"), "candidates", index, "catalog_endpoints")
        with _located(fail, "candidates", index):
            evaluation = evaluation.with_candidate(
                Candidate(provider, region, offering, line_type, endpoints, from_catalog)
            )
    return evaluation


@contextmanager
def _located(fail: Fail, *loc: str | int) -> Iterator[None]:
    """An EvaluationError of the block re-raised with the document's file, line and field."""
    try:
        yield
    except EvaluationError as exc:
        raise fail(exc.message, *loc) from None


def read_evaluation_file(path: Path) -> Evaluation:
    """An evaluation file (`linkvet eval import`), read as the catalogs read every file."""
    return parse_evaluation(_toml.read_text(path, EvaluationError, EvaluationError), path)


def _tables(value: object, fail: Fail, *loc: str | int) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise fail(_("expected a list of tables ([[{name}]])").format(name=loc[-1]), *loc)
    return value


def _only(item: dict[str, Any], keys: set[str], fail: Fail, *loc: str | int) -> None:
    for key in item:
        if key not in keys:
            raise fail(_("unknown field (check its spelling)"), *loc, key)


def _text(value: object, fail: Fail, *loc: str | int) -> str:
    if not isinstance(value, str):
        raise fail(_("expected text, got {value}").format(value=repr(value)[:80]), *loc)
    return value


_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def _slug(value: object, fail: Fail, *loc: str | int) -> str:
    text = _text(value, fail, *loc)
    if not _SLUG.match(text) or len(text) > 80:
        raise fail(
            _("{value!r}: expected an id of lower-case letters, digits, '.', '_' or '-'").format(
                value=text[:80]
            ),
            *loc,
        )
    return text
