"""Out-of-band management and power: is there a BMC (IPMI device node, `ipmitool mc info`, an SMBIOS
type 38 "IPMI Device Information" entry), and how many power supplies are present and healthy
(`ipmitool sdr type "Power Supply"`)?

Inside a VM or a container the BMC is usually invisible: "not seen" is then not "absent", and the checks
say so. `ipmitool` needs root (or access to /dev/ipmi0); the SMBIOS entry's directory is visible to
everyone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import Unavailable
from probes.i18n import _

MC_FILE = "ipmitool-mc-info.txt"
SDR_FILE = "ipmitool-sdr-power-supply.txt"
DMI_ROOT = "/sys/firmware/dmi/entries"
IPMI_NODES = ("ipmi0", "ipmi/0", "ipmidev/0")


@dataclass(frozen=True, slots=True)
class PowerSupply:
    name: str
    status: str  # ipmitool's status column: ok, ns, cr, ...
    description: str

    @property
    def present(self) -> bool:
        return "presence detected" in self.description.lower()

    @property
    def healthy(self) -> bool:
        text = self.description.lower()
        return (
            self.present
            and self.status == "ok"
            and not any(word in text for word in ("failure", "ac lost", "predictive", "input lost"))
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "description": self.description,
            "present": self.present,
            "healthy": self.healthy,
        }


@dataclass(frozen=True, slots=True)
class Management:
    ipmi_device_nodes: tuple[str, ...]
    smbios_ipmi_entry: bool | None  # None: the DMI entries could not be listed
    bmc: dict[str, str] | None  # `ipmitool mc info` fields
    power_supplies: tuple[PowerSupply, ...] | None
    redundancy: str | None  # "Fully Redundant", "Redundancy Lost", ... from a redundancy sensor

    @property
    def bmc_seen(self) -> bool:
        return bool(self.ipmi_device_nodes) or bool(self.smbios_ipmi_entry) or self.bmc is not None

    def as_dict(self) -> dict[str, Any]:
        psus = self.power_supplies
        return {
            "bmc_seen": self.bmc_seen,
            "ipmi_device_nodes": [f"/dev/{n}" for n in self.ipmi_device_nodes],
            "smbios_ipmi_entry": self.smbios_ipmi_entry,
            "bmc": self.bmc,
            "power_supplies": None if psus is None else [p.as_dict() for p in psus],
            "power_supplies_present": None if psus is None else sum(1 for p in psus if p.present),
            "power_supplies_healthy": None if psus is None else sum(1 for p in psus if p.healthy),
            "redundancy": self.redundancy,
        }


def parse_mc_info(text: str, where: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line.startswith(" " * 4):
            fields[key.strip()] = value.strip()
    if "Device ID" not in fields and "Manufacturer Name" not in fields:
        raise ReadError(
            where, _("no 'Device ID' or 'Manufacturer Name' line"), expected=_("ipmitool mc info output")
        )
    return fields


def parse_sdr_power(text: str, where: str) -> tuple[tuple[PowerSupply, ...], str | None]:
    """`ipmitool sdr type "Power Supply"`: `NAME | ID | STATUS | ENTITY | DESCRIPTION` per line."""
    supplies: list[PowerSupply] = []
    redundancy: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != 5:
            raise ReadError(
                where,
                _("{count} columns").format(count=len(cells)),
                line=number,
                expected="NAME | ID | STATUS | ENTITY | DESCRIPTION",
            )
        name, _sensor, status, _entity, description = cells
        if "redundan" in name.lower() or "redundan" in description.lower():
            redundancy = description or status
            continue
        supplies.append(PowerSupply(name, status, description))
    return tuple(supplies), redundancy


def read_management(machine: Machine) -> tuple[Management, tuple[Reading, ...]]:
    readings: list[Reading] = []
    nodes = tuple(machine.dev_entries(IPMI_NODES))
    readings.append(
        Reading("bmc", "/dev/ipmi*", "sysfs", "read", reason=None if nodes else _("no IPMI device node"))
    )
    smbios: bool | None
    try:
        smbios = any(re.match(r"^38-\d+$", name) for name in machine.sys_list(DMI_ROOT))
        readings.append(Reading("bmc", f"{DMI_ROOT}/38-*", "sysfs", "read"))
    except Unavailable as exc:
        smbios = None
        readings.append(Reading("bmc", f"{DMI_ROOT}/38-*", "sysfs", "not read", reason=str(exc)))
    bmc: dict[str, str] | None = None
    try:
        text = machine.run(["ipmitool", "mc", "info"], record_as=MC_FILE, timeout_s=20)
        bmc = parse_mc_info(text, machine.shown(MC_FILE))
        readings.append(
            Reading(
                "bmc",
                "ipmitool mc info",
                "command",
                "read",
                path=None if machine.live else machine.shown(MC_FILE),
            )
        )
    except Unavailable as exc:
        readings.append(Reading("bmc", "ipmitool mc info", "command", "not read", reason=str(exc)))
    supplies: tuple[PowerSupply, ...] | None = None
    redundancy = None
    try:
        text = machine.run(["ipmitool", "sdr", "type", "Power Supply"], record_as=SDR_FILE, timeout_s=30)
        supplies, redundancy = parse_sdr_power(text, machine.shown(SDR_FILE))
        readings.append(
            Reading(
                "power",
                'ipmitool sdr type "Power Supply"',
                "command",
                "read",
                path=None if machine.live else machine.shown(SDR_FILE),
            )
        )
    except Unavailable as exc:
        readings.append(
            Reading("power", 'ipmitool sdr type "Power Supply"', "command", "not read", reason=str(exc))
        )
    return Management(nodes, smbios, bmc, supplies, redundancy), tuple(readings)
