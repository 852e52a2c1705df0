"""Claimed line type vs traced class: the `route` part of a `LinkSummary` (see `catalogs.link_quality.RouteVerdict`).

A vendor claims a line type from the target-label vocabulary (`cn2-gia`, `cu-9929`, `bgp`, ...); traces
give classes (`cn2-gia`, `cu-premium`, ...). Claims that name no single backbone (`bgp`, `standard`,
`local`, `unknown`) cannot be checked by hop prefixes: their `agrees` is None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, Protocol, get_args

from probes.i18n import N_, _, ngettext
from probes.results import PathHop
from probes.routes.classify import (
    Group,
    LineClass,
    RouteVerdict,
    classify_path,
    join_words,
    merge_verdicts,
)
from probes.routes.names import claim_name
from probes.routes.table import NetworkTable

ClaimedLineType = Literal[
    "cn2-gia", "cn2-gt", "bgp", "cmi", "cu-9929", "cu-4837", "163", "standard", "local", "unknown"
]
CLAIMED_LINE_TYPES: Final[tuple[ClaimedLineType, ...]] = get_args(ClaimedLineType)

# The traced class each checkable claim expects.
EXPECTED_CLASS: Final[dict[str, LineClass]] = {
    "cn2-gia": "cn2-gia",
    "cn2-gt": "cn2-gt",
    "163": "163",
    "cu-9929": "cu-premium",
    "cu-4837": "cu-4837",
    "cmi": "cmi",
}
# Whose claim it is, when the catalog's (the claimant `route_summary` names in its evidence).
CATALOG_CLAIMANT: Final = N_("the catalog")


# Backbones a claim expects to see: not worth naming as evidence against it ("traced via 202.97 (163)"
# says more against a CN2 GIA claim than "via 59.43 (CN2) and 202.97 (163)").
_EXPECTED_GROUPS: Final[dict[LineClass, tuple[Group, ...]]] = {
    "cn2-gia": ("cn2",),
    "cn2-gt": ("cn2", "163"),
    "163": ("163",),
    "cu-premium": ("cu-premium",),
    "cu-4837": ("cu-4837",),
    "cmi": ("cmi",),
}


def claim_is_checkable(claimed: str) -> bool:
    return claimed in EXPECTED_CLASS


def route_summary(
    claimed_line_type: str | None, verdicts: Sequence[RouteVerdict], claimant: str = ""
) -> dict[str, Any] | None:
    """The LinkSummary `route` dict for one region from its traces' verdicts; None when there are no traces.

    `agrees` compares the class most traces show with the claim; `agreeing_traces` counts the traces
    whose own class matches the claim (None when the claim cannot be checked). `claimant` says whose claim
    it is in the evidence ("the catalog claims CN2 GIA, ..."); the default is the traced targets' label."""
    if not verdicts:
        return None
    claimed = claimed_line_type or "unknown"
    who = _(claimant) if claimant else ""  # CATALOG_CLAIMANT in the current language; a name as it is
    merged = merge_verdicts(verdicts)
    measured = merged.line_class
    expected = EXPECTED_CLASS.get(claimed)
    n = merged.traces
    words = {"who": who, "claim": claim_name(claimed), "traces": n, "measured": measured}

    if measured == "unknown":
        agrees: bool | None = None
        if who:
            text = ngettext(
                "{who} claims {claim}; none of {traces} trace could be classified (no listed backbone answered)",
                "{who} claims {claim}; none of {traces} traces could be classified (no listed backbone answered)",
                n,
            )
        else:
            text = ngettext(
                "claims {claim}; none of {traces} trace could be classified (no listed backbone answered)",
                "claims {claim}; none of {traces} traces could be classified (no listed backbone answered)",
                n,
            )
        evidence = text.format(**words)
    else:
        exclude = _EXPECTED_GROUPS.get(expected, ()) if expected and measured != expected else ()
        via = _via(merged.deciding, exclude)
        if via:
            where = _("via {via}, no 163 hop,") if measured == "cn2-gia" else _("via {via}")
        else:
            where = _("via none of the listed backbones")
        words.update(where=where.format(via=via), agreeing=merged.agreeing)
        if expected is None:
            agrees = None
            if who:
                text = _(
                    "{who} claims {claim} (no single backbone, cannot be checked); traced {measured} {where} "
                    "on {agreeing} of {traces} traces"
                )
            else:
                text = _(
                    "claims {claim} (no single backbone, cannot be checked); traced {measured} {where} on "
                    "{agreeing} of {traces} traces"
                )
        else:
            agrees = measured == expected
            if agrees:
                text = (
                    _("{who} claims {claim}, traced {where} on {agreeing} of {traces} traces")
                    if who
                    else _("claims {claim}, traced {where} on {agreeing} of {traces} traces")
                )
            else:
                text = (
                    _("{who} claims {claim}, traced {where} on {agreeing} of {traces} traces ({measured})")
                    if who
                    else _("claims {claim}, traced {where} on {agreeing} of {traces} traces ({measured})")
                )
        evidence = text.format(**words)
    if merged.doubts and measured != "unknown":
        evidence = _("{evidence}; doubt: {doubt}").format(evidence=evidence, doubt=merged.doubts[0])
    agreeing = sum(1 for v in verdicts if v.line_class == expected) if expected else None
    return {
        "claimed_line_type": claimed,
        "measured_class": None if measured == "unknown" else measured,
        "agrees": agrees,
        "traces": n,
        "agreeing_traces": agreeing,
        "evidence": evidence,
    }


class TracedPath(Protocol):
    """A trace as stored or just made: its hops, and whether the destination answered."""

    @property
    def path(self) -> Sequence[PathHop]: ...

    @property
    def reached(self) -> bool: ...


def route_summary_from_traces(
    claimed_line_type: str | None, traces: Sequence[TracedPath], table: NetworkTable, claimant: str = ""
) -> dict[str, Any] | None:
    """The LinkSummary `route` dict for one region from its traces (e.g. `Store.traces(provider=...,
    region=...)`), each classified again with `table`, so a corrected or extended table corrects old
    verdicts too. Traces that could not be made at all (no hops) are left out; None when none remain."""
    verdicts = [classify_path(t.path, table, reached=t.reached) for t in traces if t.path]
    return route_summary(claimed_line_type, verdicts, claimant)


def _via(verdicts: Sequence[RouteVerdict], exclude: Sequence[Group]) -> str:
    parts: list[str] = []
    for verdict in verdicts:
        for part in verdict.via_parts(exclude):
            if part not in parts:
                parts.append(part)
    if not parts and exclude:
        # Everything deciding was expected by the claim (a GIA trace for a GT claim): name it all.
        return _via(verdicts, ())
    return join_words(parts)


__all__ = [
    "CATALOG_CLAIMANT",
    "CLAIMED_LINE_TYPES",
    "EXPECTED_CLASS",
    "ClaimedLineType",
    "TracedPath",
    "claim_is_checkable",
    "claim_name",
    "route_summary",
    "route_summary_from_traces",
]
