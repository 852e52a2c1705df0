"""The names people read for the route checks' values, in the current language: a line class (`163` →
"ChinaNet 163" / "电信 163"), a backbone group, a carrier, a claimed line type. The values themselves
(`cn2-gia`, `cu-premium`, …) are machine-readable and never translated; names that are the same in every
language (CN2 GIA, CMI, BGP) are not messages."""

from __future__ import annotations

from probes.i18n import _


def carrier_name(carrier: str) -> str:
    """A carrier of `CARRIER_OF_GROUP` as people write it, in the current language."""
    return {
        "China Telecom": _("China Telecom"),
        "China Unicom": _("China Unicom"),
        "China Mobile": _("China Mobile"),
    }.get(carrier, carrier)


def group_name(group: str) -> str:
    """A backbone group as people write it, in the current language (e.g. "CN2", "China Unicom 4837")."""
    return {
        "cn2": "CN2",
        "163": "163",
        "ctgnet": "CTGNet",
        "cu-premium": _("China Unicom 9929/10099"),
        "cu-4837": _("China Unicom 4837"),
        "cmi": _("China Mobile CMI"),
    }[group]


def class_name(line_class: str) -> str:
    """A line class as people write it, in the current language (e.g. "ChinaNet 163"); the class itself
    (`163`) is the machine-readable value and never translated."""
    names: dict[str, str] = {
        "cn2-gia": "CN2 GIA",
        "cn2-gt": "CN2 GT",
        "163": _("ChinaNet 163"),
        "cu-premium": _("China Unicom premium (9929/10099)"),
        "cu-4837": _("China Unicom 4837"),
        "cmi": _("China Mobile CMI"),
        "other": _("other (none of the listed lines)"),
        "unknown": _("unknown"),
    }
    return names.get(line_class, line_class)


def claim_name(claimed: str) -> str:
    """A claimed line type as people write it, in the current language (the type itself never translates)."""
    names = {
        "cn2-gia": "CN2 GIA",
        "cn2-gt": "CN2 GT",
        "163": "163",
        "cu-9929": _("China Unicom 9929"),
        "cu-4837": _("China Unicom 4837"),
        "cmi": "CMI",
        "bgp": "BGP",
        "standard": _("a standard line"),
        "local": _("a local line"),
        "unknown": _("an unknown line type"),
    }
    return names.get(claimed, claimed)
