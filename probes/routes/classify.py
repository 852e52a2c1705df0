"""Classify a traced path by the backbones its hops belong to, and merge several traces into one verdict.

Pure functions: hops in, verdict with evidence out. The rules are the ones the public route-check tools
use (sources in `RULES`); they are tried in order and the first whose backbones all appear decides:

    rule          class       needs on the path                      source
    cn2-and-163   cn2-gt      CN2 (AS4809) and 163 (AS4134)          oneclickvirt/backtrace trace_ipv4.go
                                                                     (hasAS4134 && hasAS4809); mtr_trace
                                                                     step 1; across trace.sh
    cn2-only      cn2-gia     CN2 (AS4809), no 163                   same sources, step 2
    163-and-4837  cu-4837     163 and China Unicom 4837              mtr_trace step 3 (联通169)
    163           163         163 (AS4134), no CN2                   mtr_trace step 3
    cu-premium    cu-premium  China Unicom 9929 (or 10099)           mtr_trace step 4 (9929)
    cu-4837       cu-4837     China Unicom 4837                      mtr_trace step 5
    cmi           cmi         China Mobile 58453/9808/58807 (CMIN2)  mtr_trace step 6
    ctgnet-only   other       CTGNet (AS23764) only                  (not one of the classified lines)
    none-reached  other       none of them, destination reached
    none          unknown     none of them, destination not reached (or nothing answered)

The CN2 rule ignores hop order, as every source does. On the path *from* China (what an office there
traces) a GT line usually shows 163 first and CN2 at the border; on the return path the tools trace,
CN2 comes first and the path then enters 163. The order seen is reported in the evidence.
Doubts (silent hops, several carriers, load-balanced hops, an unfinished trace, the partial IPv6 table)
never change the class; they are listed with it so a reader can weigh it.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar, get_args

from probes.i18n import N_, _, clauses, items, ngettext
from probes.results import PathHop
from probes.routes.names import carrier_name, class_name, group_name
from probes.routes.table import Backbone, NetworkMatch, NetworkTable

_T = TypeVar("_T")

LineClass = Literal["cn2-gia", "cn2-gt", "163", "cu-premium", "cu-4837", "cmi", "other", "unknown"]
LINE_CLASSES: Final[tuple[LineClass, ...]] = get_args(LineClass)

# What a backbone counts as in the rules (cu-9929 and cu-10099 are both China Unicom's premium lines;
# CMIN2 is China Mobile's premium line but the classes have one China Mobile class).
Group = Literal["cn2", "163", "ctgnet", "cu-premium", "cu-4837", "cmi"]
GROUP_OF_BACKBONE: Final[dict[Backbone, Group | None]] = {
    "cn2": "cn2",
    "163": "163",
    "ctgnet": "ctgnet",
    "cu-9929": "cu-premium",
    "cu-10099": "cu-premium",
    "cu-4837": "cu-4837",
    "cmi": "cmi",
    "cmin2": "cmi",
    "other": None,
}
CARRIER_OF_GROUP: Final[dict[Group, str]] = {
    "cn2": "China Telecom",
    "163": "China Telecom",
    "ctgnet": "China Telecom",
    "cu-premium": "China Unicom",
    "cu-4837": "China Unicom",
    "cmi": "China Mobile",
}


# Used only to break a tie between classes when merging traces: the less premium class wins, so a tie
# never confirms a premium claim.
_PREMIUM_RANK: Final[dict[str, int]] = {
    "cn2-gia": 6,
    "cu-premium": 5,
    "cmi": 4,
    "cn2-gt": 3,
    "cu-4837": 2,
    "163": 1,
    "other": 0,
    "unknown": -1,
}


def premium_rank(line_class: str) -> int:
    """How premium a class is (CN2 GIA highest, unknown lowest): the order ties are broken in, and the one a
    route history says a line "fell" or "rose" in."""
    return _PREMIUM_RANK.get(line_class, -1)


@dataclass(frozen=True, slots=True)
class Rule:
    """One classification rule: the class it gives when all `needs` groups (and none of `excludes`) appear.
    `text` is the English message (marked with `N_`); `_(rule.text)` is it in the current language."""

    id: str
    line_class: LineClass
    needs: frozenset[Group]
    excludes: frozenset[Group]
    text: str
    source: str


RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "cn2-and-163",
        "cn2-gt",
        frozenset({"cn2", "163"}),
        frozenset(),
        N_("CN2 (AS4809) and 163 (AS4134) hops on one path"),
        "oneclickvirt/backtrace@9ae07c7:bk/trace_ipv4.go (hasAS4134 && hasAS4809 -> CN2GT); "
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 1; weing104/across@0075d4c:trace.sh",
    ),
    Rule(
        "cn2-only",
        "cn2-gia",
        frozenset({"cn2"}),
        frozenset({"163"}),
        N_("CN2 (AS4809) hops and no 163 (AS4134) hop"),
        "oneclickvirt/backtrace@9ae07c7:bk/trace_ipv4.go (hasAS4809 only -> CN2GIA); "
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 2; weing104/across@0075d4c:trace.sh",
    ),
    Rule(
        "163-and-4837",
        "cu-4837",
        frozenset({"163", "cu-4837"}),
        frozenset(),
        N_("163 (AS4134) and China Unicom 4837 hops (mtr_trace calls it 联通169)"),
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 3",
    ),
    Rule(
        "163",
        "163",
        frozenset({"163"}),
        frozenset(),
        N_("163 (AS4134) hops and no CN2 hop"),
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 3",
    ),
    Rule(
        "cu-premium",
        "cu-premium",
        frozenset({"cu-premium"}),
        frozenset(),
        N_("China Unicom 9929/10099 hops"),
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 4 (218.105. -> 联通9929)",
    ),
    Rule(
        "cu-4837",
        "cu-4837",
        frozenset({"cu-4837"}),
        frozenset(),
        N_("China Unicom 4837 hops"),
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 5",
    ),
    Rule(
        "cmi",
        "cmi",
        frozenset({"cmi"}),
        frozenset(),
        N_("China Mobile CMI/CMIN2 hops (AS58453, AS9808, AS58807)"),
        "zhucaidan/mtr_trace@0d35444:mtr_trace.sh step 6 (223.120. -> 移动CMI)",
    ),
    Rule(
        "ctgnet-only",
        "other",
        frozenset({"ctgnet"}),
        frozenset(),
        N_("CTGNet (AS23764) hops only: China Telecom's global network, not one of the classified lines"),
        "oneclickvirt/backtrace@9ae07c7:model/model.go (电信CTGNET, a label of its own)",
    ),
)


@dataclass(frozen=True, slots=True)
class HopEvidence:
    """A hop address that belongs to a listed backbone."""

    ttl: int
    address: str
    match: NetworkMatch

    @property
    def group(self) -> Group | None:
        return GROUP_OF_BACKBONE[self.match.backbone]

    def describe(self) -> str:
        return _("hop {ttl} {address} {network}").format(
            ttl=self.ttl, address=self.address, network=self.match.describe()
        )


@dataclass(frozen=True, slots=True)
class RouteVerdict:
    """The class of one traced path, the rule that gave it, the hops that decided, and doubts."""

    line_class: LineClass
    rule: str
    rule_text: str
    evidence: tuple[HopEvidence, ...]
    seen: tuple[HopEvidence, ...]
    doubts: tuple[str, ...]
    responding_hops: int
    silent_hops: int
    reached: bool | None

    @property
    def groups(self) -> tuple[Group, ...]:
        """The listed backbones seen, in order of first appearance."""
        out: list[Group] = []
        for item in self.seen:
            if item.group is not None and item.group not in out:
                out.append(item.group)
        return tuple(out)

    def via_parts(self, exclude: Iterable[Group] = ()) -> list[str]:
        """The deciding prefixes as people write them, e.g. `["202.97 (163)", "59.43 (CN2)"]`."""
        skip = set(exclude)
        return _unique(
            f"{item.match.prefix.short} ({item.match.as_info.label})"
            for item in self.evidence
            if item.group not in skip
        )

    def via(self, exclude: Iterable[Group] = ()) -> str:
        """e.g. `202.97 (163) and 59.43 (CN2)`."""
        return join_words(self.via_parts(exclude))

    def explanation(self) -> str:
        """One sentence: class, rule, and where the deciding hops were (in the current language)."""
        name = class_name(self.line_class)
        if not self.evidence:
            return _("{line}: {rule}").format(line=name, rule=self.rule_text)
        spans = []
        for group in _unique(item.group for item in self.evidence if item.group is not None):
            ttls = sorted({item.ttl for item in self.evidence if item.group == group})
            prefixes = join_words(
                _unique(item.match.prefix.short for item in self.evidence if item.group == group)
            )
            spans.append(
                _("{network} {prefixes} at {hops}").format(
                    network=group_name(group), prefixes=prefixes, hops=_ttl_ranges(ttls)
                )
            )
        return _("{line}: {rule} ({where})").format(line=name, rule=self.rule_text, where=clauses(spans))


@dataclass(frozen=True, slots=True)
class MergedVerdict:
    """Several traces of one path reduced to one class, with counts and the doubts that remain."""

    line_class: LineClass
    traces: int
    agreeing: int
    counts: tuple[tuple[LineClass, int], ...]
    verdicts: tuple[RouteVerdict, ...]
    doubts: tuple[str, ...]

    def summary(self) -> str:
        """e.g. `cn2-gt on 6 of 8 traces; cn2-gia on 2`."""
        if not self.traces:
            return _("no traces")
        head = ngettext(
            "{line_class} on {agreeing} of {traces} trace",
            "{line_class} on {agreeing} of {traces} traces",
            self.traces,
        ).format(line_class=self.line_class, agreeing=self.agreeing, traces=self.traces)
        rest = [
            _("{line_class} on {count}").format(line_class=cls, count=count)
            for cls, count in self.counts
            if cls != self.line_class
        ]
        return clauses([head, *rest])

    @property
    def deciding(self) -> tuple[RouteVerdict, ...]:
        """The traces whose class is the merged class."""
        return tuple(v for v in self.verdicts if v.line_class == self.line_class)


def classify_path(
    hops: Sequence[PathHop], table: NetworkTable, *, reached: bool | None = None
) -> RouteVerdict:
    """Classify one traced path. `reached`: whether the trace got an answer from the destination
    (None when not known, e.g. a recorded hop list)."""
    ordered = sorted(hops, key=lambda hop: hop.ttl)
    seen: list[HopEvidence] = []
    for hop in ordered:
        for address in hop.addresses:
            match = table.lookup(address)
            if match is not None and GROUP_OF_BACKBONE[match.backbone] is not None:
                seen.append(HopEvidence(ttl=hop.ttl, address=address, match=match))
    groups = {item.group for item in seen if item.group is not None}
    responding = sum(1 for hop in ordered if hop.addresses)
    # Silent hops that lie inside the answered part of the path could hide a backbone hop.
    last_answer = max((hop.ttl for hop in ordered if hop.addresses), default=0)
    silent = [hop.ttl for hop in ordered if not hop.addresses and hop.ttl < last_answer]

    rule = next((r for r in RULES if r.needs <= groups and not (r.excludes & groups)), None)
    if rule is not None:
        evidence = tuple(item for item in seen if item.group in rule.needs)
        line_class, rule_id, rule_text = rule.line_class, rule.id, _(rule.text)
    elif responding and reached:
        evidence = ()
        line_class, rule_id = "other", "none-reached"
        rule_text = _("the trace reached the destination through none of the listed backbones")
    else:
        evidence = ()
        line_class, rule_id = "unknown", "none"
        rule_text = (
            _("no hop answered")
            if not responding
            else _("no hop in a listed backbone, and the destination was not reached")
        )

    doubts = _doubts(line_class, rule, seen, groups, ordered, silent, reached, last_answer)
    return RouteVerdict(
        line_class=line_class,
        rule=rule_id,
        rule_text=rule_text,
        evidence=evidence,
        seen=tuple(seen),
        doubts=tuple(doubts),
        responding_hops=responding,
        silent_hops=len(silent),
        reached=reached,
    )


def merge_verdicts(verdicts: Sequence[RouteVerdict]) -> MergedVerdict:
    """The class most traces show. Unknown traces are counted but do not vote unless all are unknown;
    a tie goes to the less premium class (so a tie never confirms a premium line) and is listed as a doubt."""
    counts = Counter(v.line_class for v in verdicts)
    ordered_counts = tuple(
        sorted(counts.items(), key=lambda item: (-item[1], -_PREMIUM_RANK[item[0]], item[0]))
    )
    doubts: list[str] = []
    voting = {cls: n for cls, n in counts.items() if cls != "unknown"}
    if not verdicts:
        line_class: LineClass = "unknown"
    elif not voting:
        line_class = "unknown"
    else:
        top = max(voting.values())
        tied = [cls for cls, n in voting.items() if n == top]
        line_class = min(tied, key=lambda cls: _PREMIUM_RANK[cls])
        if len(tied) > 1:
            names = join_words(sorted(tied, key=lambda cls: -_PREMIUM_RANK[cls]))
            doubts.append(
                ngettext(
                    "tie between {classes} ({count} trace each); the less premium class is reported",
                    "tie between {classes} ({count} traces each); the less premium class is reported",
                    top,
                ).format(classes=names, count=top)
            )
        elif top * 2 <= len(verdicts):
            doubts.append(
                _("no majority: {line_class} on {count} of {traces} traces").format(
                    line_class=line_class, count=top, traces=len(verdicts)
                )
            )
    if counts.get("unknown") and line_class != "unknown":
        doubts.append(
            _("{count} of {traces} traces could not be classified").format(
                count=counts["unknown"], traces=len(verdicts)
            )
        )
    deciding = [v for v in verdicts if v.line_class == line_class]
    for doubt in _unique(d for v in deciding for d in v.doubts):
        n = sum(1 for v in deciding if doubt in v.doubts)
        doubts.append(
            doubt
            if len(deciding) == 1
            else _("{doubt} [{count} of {traces} traces]").format(doubt=doubt, count=n, traces=len(deciding))
        )
    return MergedVerdict(
        line_class=line_class,
        traces=len(verdicts),
        agreeing=counts.get(line_class, 0),
        counts=ordered_counts,
        verdicts=tuple(verdicts),
        doubts=tuple(doubts),
    )


def _doubts(
    line_class: LineClass,
    rule: Rule | None,
    seen: list[HopEvidence],
    groups: set[Group],
    hops: list[PathHop],
    silent: list[int],
    reached: bool | None,
    last_answer: int,
) -> list[str]:
    """What could make the verdict wrong, one sentence each: hops not seen, several carriers' backbones,
    networks the rule did not use, a lone CN2 hop, a hop answering from several networks, an IPv6 path."""
    carriers = sorted({CARRIER_OF_GROUP[g] for g in groups})
    return [
        *_unseen(line_class, silent, reached, last_answer),
        *_several_carriers(carriers, seen),
        *_unused_by_rule(rule, seen, carriers),
        *_lone_cn2_hop(line_class, seen),
        *_load_balanced(seen, hops),
        *(
            [_("IPv6 path: the bundled IPv6 prefix table is partial (first entries per AS only)")]
            if any(_is_ipv6(a) for hop in hops for a in hop.addresses)
            else []
        ),
    ]


def _unseen(line_class: LineClass, silent: list[int], reached: bool | None, last_answer: int) -> list[str]:
    """Hops that did not answer, and the end of a path that never reached its destination."""
    doubts: list[str] = []
    if silent:
        if line_class == "cn2-gia":
            text = ngettext(
                "{count} hop did not answer ({hops}); a 163 hop among them would make it CN2 GT",
                "{count} hops did not answer ({hops}); a 163 hop among them would make it CN2 GT",
                len(silent),
            )
        else:
            text = ngettext(
                "{count} hop did not answer ({hops}); it is unseen",
                "{count} hops did not answer ({hops}); they are unseen",
                len(silent),
            )
        doubts.append(text.format(count=len(silent), hops=_ttl_ranges(silent)))
    if reached is False and last_answer:
        doubts.append(
            _("the destination did not answer; hops after TTL {ttl} are unseen").format(ttl=last_answer)
        )
    return doubts


def _several_carriers(carriers: list[str], seen: list[HopEvidence]) -> list[str]:
    if len(carriers) <= 1:
        return []
    parts = []
    for carrier in carriers:
        names = [
            group_name(g) for g in _unique(i.group for i in seen if i.group) if CARRIER_OF_GROUP[g] == carrier
        ]
        parts.append(_("{carrier} ({networks})").format(carrier=carrier_name(carrier), networks=items(names)))
    return [_("backbones of several carriers on the path: {carriers}").format(carriers=clauses(parts))]


def _unused_by_rule(rule: Rule | None, seen: list[HopEvidence], carriers: list[str]) -> list[str]:
    if rule is None or len(carriers) > 1:
        return []
    unused = [g for g in _unique(i.group for i in seen if i.group) if g not in rule.needs]
    if not unused:
        return []
    return [
        _("also on the path, not used by the rule: {networks}").format(
            networks=", ".join(group_name(g) for g in unused)
        )
    ]


def _lone_cn2_hop(line_class: LineClass, seen: list[HopEvidence]) -> list[str]:
    if line_class != "cn2-gia":
        return []
    cn2_ttls = {i.ttl for i in seen if i.group == "cn2"}
    if len(cn2_ttls) != 1:
        return []
    return [_("only one CN2 hop ({hops})").format(hops=_ttl_ranges(sorted(cn2_ttls)))]


def _load_balanced(seen: list[HopEvidence], hops: list[PathHop]) -> list[str]:
    """A TTL that answered from several listed networks, or from a listed and an unlisted address."""
    doubts = []
    for ttl in sorted({i.ttl for i in seen}):
        at_ttl = [i for i in seen if i.ttl == ttl]
        hop_groups = _unique(i.group for i in at_ttl if i.group)
        hop = next(h for h in hops if h.ttl == ttl)
        unlisted = [a for a in hop.addresses if a not in {i.address for i in at_ttl}]
        if len(hop_groups) > 1 or unlisted:
            who = [f"{i.address} {i.match.as_info.label}" for i in at_ttl]
            who += [_("{address} unlisted").format(address=a) for a in unlisted]
            doubts.append(
                _("TTL {ttl} answered from several networks (load balancing?): {answers}").format(
                    ttl=ttl, answers=", ".join(who)
                )
            )
    return doubts


def _is_ipv6(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).version == 6
    except ValueError:
        return False


def _unique(items: Iterable[_T]) -> list[_T]:
    out: list[_T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def join_words(parts: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c` (in the current language: `a、b 和 c`)."""
    if len(parts) <= 1:
        return "".join(parts)
    # TRANSLATORS: the separator between the items of a list "a, b and c", before its last "and".
    separator = _(", ")
    return _("{items} and {last}").format(items=separator.join(parts[:-1]), last=parts[-1])


def _ttl_ranges(ttls: Sequence[int]) -> str:
    """`hop 3`, `hops 3-5, 8`."""
    if not ttls:
        return _("no hop")
    ranges: list[str] = []
    start = prev = ttls[0]
    for ttl in [*ttls[1:], None]:
        if ttl is not None and ttl == prev + 1:
            prev = ttl
            continue
        ranges.append(str(start) if start == prev else f"{start}-{prev}")
        if ttl is not None:
            start = prev = ttl
    return ngettext("hop {hops}", "hops {hops}", len(ttls)).format(hops=", ".join(ranges))
