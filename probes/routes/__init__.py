"""Route verification: label traceroute hops with the backbone they belong to (an offline network table
with a source for every fact), classify a path (CN2 GIA, CN2 GT, 163, China Unicom, China Mobile, ...)
with the evidence, merge several traces, and compare the result with the line type a vendor claims.

    table.py      the network table (bundled networks.toml, the user's merged over it)
    classify.py   the rules, a path's verdict with its evidence and doubts, merging several traces
    claims.py     a vendor's claimed line type against the verdicts (the claim check's evidence)
    names.py      the names people read for classes, backbones, carriers and claims, in their language
"""

from probes.errors import NetworkTableError, NetworkTableVersionError, RouteError
from probes.results import PathHop
from probes.routes.claims import (
    CATALOG_CLAIMANT,
    CLAIMED_LINE_TYPES,
    EXPECTED_CLASS,
    claim_is_checkable,
    route_summary,
    route_summary_from_traces,
)
from probes.routes.classify import (
    LINE_CLASSES,
    RULES,
    HopEvidence,
    LineClass,
    MergedVerdict,
    RouteVerdict,
    classify_path,
    merge_verdicts,
)
from probes.routes.names import claim_name, class_name, group_name
from probes.routes.table import (
    BACKBONES,
    AsInfo,
    Backbone,
    NetworkMatch,
    NetworkTable,
    PrefixRule,
    bundled_table,
    default_user_table_path,
    load_network_table,
)

__all__ = [
    "BACKBONES",
    "CATALOG_CLAIMANT",
    "CLAIMED_LINE_TYPES",
    "EXPECTED_CLASS",
    "LINE_CLASSES",
    "RULES",
    "AsInfo",
    "Backbone",
    "HopEvidence",
    "LineClass",
    "MergedVerdict",
    "NetworkMatch",
    "NetworkTable",
    "NetworkTableError",
    "NetworkTableVersionError",
    "PathHop",
    "PrefixRule",
    "RouteError",
    "RouteVerdict",
    "bundled_table",
    "claim_is_checkable",
    "claim_name",
    "class_name",
    "classify_path",
    "default_user_table_path",
    "group_name",
    "load_network_table",
    "merge_verdicts",
    "route_summary",
    "route_summary_from_traces",
]
