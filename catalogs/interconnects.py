"""The interconnects' names as people write them: the catalogs' values (`nvswitch`, `infiniband`, `other`)
are identifiers; what a person reads is `NVSwitch`, `InfiniBand`, or "other" in the current language."""

from __future__ import annotations

from catalogs.i18n import N_, _

INTRA_NODE_NAMES = {
    "nvswitch": "NVSwitch",
    "nvlink": "NVLink",
    "pcie": "PCIe",
    "xgmi": "xGMI",  # AMD Infinity Fabric between the GPUs of a node
}

FABRIC_NAMES = {
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "ethernet": "Ethernet",
    "efa": "EFA",
    "other": N_("other"),
}


def intra_node_name(kind: str) -> str:
    """The name of a node's GPU interconnect (`NVSwitch`); a value this linkvet does not know, as written."""
    return INTRA_NODE_NAMES.get(kind, kind)


def fabric_name(fabric: str) -> str:
    """The name of a fabric between nodes (`InfiniBand`; "other" in the current language); a value this
    linkvet does not know, as written."""
    name = FABRIC_NAMES.get(fabric)
    return fabric if name is None else _(name)
