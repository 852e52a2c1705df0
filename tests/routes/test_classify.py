"""Classifying recorded hop lists (made up from the prefix facts) into line classes, with evidence and
doubts; merging several traces; checking a vendor's claim."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from probes.routes import (
    PathHop,
    RouteVerdict,
    bundled_table,
    classify_path,
    merge_verdicts,
    route_summary,
    route_summary_from_traces,
)
from probes.routes.table import bundled_table_path, merge_tables, parse_table_text, read_table_file

TABLE = bundled_table()
OFFICE_GW = "192.168.1.1"
METRO = "101.95.0.1"  # a Shanghai metro hop: in no listed backbone
REGION = "198.19.1.2"


def path(*hops: str | Sequence[str] | None) -> list[PathHop]:
    """Hops from TTL 1: an address, several (load balancing), or None (silent)."""
    out = []
    for ttl, hop in enumerate(hops, start=1):
        if hop is None:
            out.append(PathHop(ttl, ()))
        elif isinstance(hop, str):
            out.append(PathHop(ttl, (hop,)))
        else:
            out.append(PathHop(ttl, tuple(hop)))
    return out


def classify(*hops: str | Sequence[str] | None, reached: bool | None = True) -> RouteVerdict:
    return classify_path(path(*hops), TABLE, reached=reached)


# -- one class per line type ----------------------------------------------------------------------------


def test_cn2_gia_stays_on_59_43() -> None:
    v = classify(OFFICE_GW, METRO, "59.43.46.1", "59.43.182.9", "59.43.248.2", REGION)
    assert v.line_class == "cn2-gia"
    assert v.rule == "cn2-only"
    assert [e.ttl for e in v.evidence] == [3, 4, 5]
    assert {e.match.asn for e in v.evidence} == {4809}
    assert v.doubts == ()
    assert "CN2 59.43 at hops 3-5" in v.explanation()


def test_cn2_gt_outbound_163_then_cn2() -> None:
    # From an office in China a GT line runs on 163 at home and joins CN2 at the border.
    v = classify(OFFICE_GW, METRO, "202.97.12.37", "202.97.94.101", "59.43.187.1", REGION)
    assert v.line_class == "cn2-gt"
    assert v.rule == "cn2-and-163"
    assert [(e.ttl, e.match.asn) for e in v.evidence] == [(3, 4134), (4, 4134), (5, 4809)]
    assert "163 202.97 at hops 3-4; CN2 59.43 at hop 5" in v.explanation()


def test_cn2_gt_return_order_cn2_then_163_is_gt_too() -> None:
    # The tools' return-path view: the path enters 202.97 after 59.43. Order does not change the class.
    v = classify("10.0.0.1", "59.43.80.1", "59.43.81.1", "202.97.50.1", "202.97.51.1", REGION)
    assert v.line_class == "cn2-gt"
    assert "CN2 59.43 at hops 2-3; 163 202.97 at hops 4-5" in v.explanation()


def test_163_without_cn2() -> None:
    v = classify(OFFICE_GW, METRO, "202.97.33.5", "202.97.94.14", REGION)
    assert (v.line_class, v.rule) == ("163", "163")
    assert v.via() == "202.97 (163)"


@pytest.mark.parametrize("premium_hop", ["218.105.2.1", "210.51.40.9"])
def test_china_unicom_9929_is_premium(premium_hop: str) -> None:
    v = classify(OFFICE_GW, "219.158.3.1", premium_hop, REGION)
    assert v.line_class == "cu-premium"
    assert v.rule == "cu-premium"
    assert [e.address for e in v.evidence] == [premium_hop]
    assert any("not used by the rule: China Unicom 4837" in d for d in v.doubts)


def test_china_unicom_4837() -> None:
    v = classify(OFFICE_GW, "219.158.113.130", "219.158.96.1", REGION)
    assert (v.line_class, v.rule) == ("cu-4837", "cu-4837")


def test_163_with_4837_is_4837_as_mtr_trace_says() -> None:
    v = classify(OFFICE_GW, "202.97.1.1", "219.158.8.1", REGION)
    assert (v.line_class, v.rule) == ("cu-4837", "163-and-4837")
    assert any("several carriers" in d for d in v.doubts)


@pytest.mark.parametrize(("hop", "label"), [("223.118.1.1", "CMI"), ("223.120.19.7", "CMIN2")])
def test_china_mobile_cmi_and_cmin2(hop: str, label: str) -> None:
    v = classify(OFFICE_GW, "221.183.1.1", hop, REGION)
    assert v.line_class == "cmi"
    assert v.evidence[0].match.as_info.label == label


def test_ctgnet_alone_is_other_but_named() -> None:
    v = classify(OFFICE_GW, "69.194.1.1", REGION)
    assert (v.line_class, v.rule) == ("other", "ctgnet-only")
    assert "CTGNet" in v.explanation()


def test_ctgnet_with_cn2_is_gia() -> None:
    assert classify(OFFICE_GW, "59.43.1.1", "69.194.1.1", REGION).line_class == "cn2-gia"


def test_no_listed_backbone_reached_is_other() -> None:
    v = classify(OFFICE_GW, METRO, "4.69.1.1", REGION)
    assert (v.line_class, v.rule) == ("other", "none-reached")
    assert v.evidence == ()


def test_no_listed_backbone_and_not_reached_is_unknown() -> None:
    v = classify(OFFICE_GW, METRO, None, None, reached=False)
    assert (v.line_class, v.rule) == ("unknown", "none")


def test_nothing_answered_is_unknown() -> None:
    v = classify(None, None, None, reached=False)
    assert v.line_class == "unknown"
    assert v.rule_text == "no hop answered"


# -- ambiguous paths ---------------------------------------------------------------------------------------


def test_gia_with_silent_hops_says_a_163_hop_may_hide_there() -> None:
    v = classify(OFFICE_GW, None, "59.43.1.1", None, "59.43.2.1", REGION)
    assert v.line_class == "cn2-gia"
    assert v.silent_hops == 2
    assert any("hops 2, 4" in d and "would make it CN2 GT" in d for d in v.doubts)


def test_gia_from_a_single_cn2_hop_is_doubted() -> None:
    v = classify(OFFICE_GW, METRO, "59.43.1.1", REGION)
    assert v.line_class == "cn2-gia"
    assert "only one CN2 hop (hop 3)" in v.doubts


def test_load_balanced_hop_between_cn2_and_163_is_gt_with_a_doubt() -> None:
    v = classify(OFFICE_GW, ("59.43.1.1", "202.97.1.1"), "59.43.2.1", REGION)
    assert v.line_class == "cn2-gt"
    assert any(d.startswith("TTL 2 answered from several networks") for d in v.doubts)


def test_unfinished_trace_keeps_its_class_and_says_what_is_unseen() -> None:
    v = classify(OFFICE_GW, "59.43.1.1", "59.43.2.1", None, None, reached=False)
    assert v.line_class == "cn2-gia"
    assert any("hops after TTL 3 are unseen" in d for d in v.doubts)


def test_trailing_silent_hops_are_not_counted_as_hidden() -> None:
    v = classify(OFFICE_GW, "59.43.1.1", "59.43.2.1", None, None, reached=False)
    assert v.silent_hops == 0


def test_several_carriers_are_flagged() -> None:
    v = classify(OFFICE_GW, "59.43.1.1", "59.43.5.5", "223.118.2.2", REGION)
    assert v.line_class == "cn2-gia"
    assert any("China Mobile (China Mobile CMI)" in d and "China Telecom (CN2)" in d for d in v.doubts)


def test_ipv6_path_says_the_table_is_partial() -> None:
    v = classify("2001:db8::1", "2400:9380:9001::1", "2400:9380:9009::7", "2001:db8:1::2")
    assert v.line_class == "cn2-gia"
    assert any("IPv6" in d for d in v.doubts)


def test_hop_order_given_does_not_matter() -> None:
    hops = path(OFFICE_GW, "202.97.1.1", "59.43.1.1", REGION)
    assert (
        classify_path(list(reversed(hops)), TABLE, reached=True).explanation()
        == classify_path(hops, TABLE, reached=True).explanation()
    )


# -- several traces ------------------------------------------------------------------------------------

GIA = classify(OFFICE_GW, "59.43.1.1", "59.43.2.1", REGION)
GT = classify(OFFICE_GW, "202.97.1.1", "59.43.3.1", REGION)
N163 = classify(OFFICE_GW, "202.97.2.1", "202.97.3.1", REGION)
UNKNOWN = classify(None, None, reached=False)


def test_merging_counts_traces() -> None:
    merged = merge_verdicts([GT] * 6 + [GIA] * 2)
    assert (merged.line_class, merged.traces, merged.agreeing) == ("cn2-gt", 8, 6)
    assert dict(merged.counts) == {"cn2-gt": 6, "cn2-gia": 2}
    assert merged.summary() == "cn2-gt on 6 of 8 traces; cn2-gia on 2"
    assert merged.doubts == ()


def test_a_tie_goes_to_the_less_premium_class() -> None:
    merged = merge_verdicts([GIA, GT, GIA, GT])
    assert merged.line_class == "cn2-gt"
    assert merged.doubts[0].startswith("tie between cn2-gia and cn2-gt")


def test_unknown_traces_do_not_vote_but_are_counted() -> None:
    merged = merge_verdicts([UNKNOWN, GIA, UNKNOWN])
    assert (merged.line_class, merged.agreeing, merged.traces) == ("cn2-gia", 1, 3)
    assert "2 of 3 traces could not be classified" in merged.doubts
    assert merge_verdicts([UNKNOWN, UNKNOWN]).line_class == "unknown"
    assert merge_verdicts([]).line_class == "unknown"


def test_no_majority_is_a_doubt() -> None:
    merged = merge_verdicts([GIA, GIA, GT, N163])
    assert merged.line_class == "cn2-gia"
    assert "no majority: cn2-gia on 2 of 4 traces" in merged.doubts


# -- claims ---------------------------------------------------------------------------------------------


def test_claimed_gia_traced_as_gt_is_a_mismatch_with_counts_and_evidence() -> None:
    route = route_summary("cn2-gia", [GT] * 6 + [GIA] * 2)
    assert route == {
        "claimed_line_type": "cn2-gia",
        "measured_class": "cn2-gt",
        "agrees": False,
        "traces": 8,
        "agreeing_traces": 2,
        "evidence": "claims CN2 GIA, traced via 202.97 (163) on 6 of 8 traces (cn2-gt)",
    }


def test_claimed_gia_traced_as_gia_agrees() -> None:
    route = route_summary("cn2-gia", [GIA] * 3)
    assert route is not None
    assert (route["agrees"], route["agreeing_traces"], route["measured_class"]) == (True, 3, "cn2-gia")
    assert route["evidence"] == "claims CN2 GIA, traced via 59.43 (CN2), no 163 hop, on 3 of 3 traces"


def test_claimed_9929_is_checked_against_cu_premium() -> None:
    premium = classify(OFFICE_GW, "218.105.2.1", REGION)
    assert route_summary("cu-9929", [premium])["agrees"] is True  # type: ignore[index]
    assert route_summary("cu-4837", [premium])["agrees"] is False  # type: ignore[index]


def test_a_claim_naming_no_backbone_cannot_be_checked() -> None:
    route = route_summary("bgp", [GIA, GIA])
    assert route is not None
    assert (route["agrees"], route["agreeing_traces"]) == (None, None)
    assert route["evidence"].startswith("claims BGP (no single backbone, cannot be checked); traced cn2-gia")


def test_no_traces_no_route_and_unclassifiable_traces_agree_on_nothing() -> None:
    assert route_summary("cn2-gia", []) is None
    route = route_summary("cn2-gia", [UNKNOWN])
    assert route is not None
    assert (route["measured_class"], route["agrees"]) == (None, None)


class _Stored:
    def __init__(self, hops: list[PathHop], reached: bool) -> None:
        self.path = tuple(hops)
        self.reached = reached


def test_stored_traces_are_classified_again_with_the_table_given() -> None:
    stored = [_Stored(path(OFFICE_GW, "10.97.1.1", "59.43.1.1", REGION), True) for _ in range(4)]
    stored.append(_Stored([], False))  # a trace that could not be made at all: left out
    assert route_summary_from_traces("cn2-gia", stored, TABLE)["agrees"] is True  # type: ignore[index]
    # The operator learns that 10.97.0.0/16 is their ISP's 163 ring and says so in a user table.
    user = parse_table_text(
        'version = 1\n[[prefix]]\ncidr = "10.97.0.0/16"\nasn = 4134\nsource = "our NOC"\n', path="user.toml"
    )
    table = merge_tables([read_table_file(bundled_table_path()), user])
    route = route_summary_from_traces("cn2-gia", stored, table)
    assert route is not None
    assert (route["agrees"], route["traces"], route["measured_class"]) == (False, 4, "cn2-gt")
    assert route["evidence"] == "claims CN2 GIA, traced via 10.97 (163) on 4 of 4 traces (cn2-gt)"
