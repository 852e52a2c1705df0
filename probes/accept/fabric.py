"""The fabric between nodes, from sysfs (no tools, no root): InfiniBand and RoCE ports from
`/sys/class/infiniband/*/ports/*/{rate,state,phys_state,link_layer}`, Ethernet NIC speeds from
`/sys/class/net/*/speed`.

`rate` reads like `200 Gb/sec (4X HDR)`, `state` like `4: ACTIVE`, `phys_state` like `5: LinkUp`,
`link_layer` is `InfiniBand` or `Ethernet` (RoCE). A file that says something else is a ReadError naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import Unavailable
from probes.i18n import _

IB_ROOT = "/sys/class/infiniband"
NET_ROOT = "/sys/class/net"
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s+Gb/sec\b.*$")
_STATE = re.compile(r"^\s*(\d+)\s*:\s*(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class RdmaPort:
    device: str
    port: int
    rate_gbit_s: float | None
    rate_text: str | None
    state: str | None  # ACTIVE, DOWN, INIT, ...
    phys_state: str | None  # LinkUp, Disabled, Polling, ...
    link_layer: str | None  # InfiniBand, Ethernet
    hca_type: str | None = None

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE" and self.phys_state in (None, "LinkUp")

    @property
    def kind(self) -> str:
        return {"InfiniBand": "infiniband", "Ethernet": "roce"}.get(self.link_layer or "", "other")

    def as_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "port": self.port,
            "rate_gbit_s": self.rate_gbit_s,
            "rate": self.rate_text,
            "state": self.state,
            "phys_state": self.phys_state,
            "link_layer": self.link_layer,
            "kind": self.kind,
            "active": self.active,
            "hca_type": self.hca_type,
        }


@dataclass(frozen=True, slots=True)
class NetInterface:
    name: str
    speed_mbit_s: int | None  # None: link down or not reported
    operstate: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "speed_mbit_s": self.speed_mbit_s, "operstate": self.operstate}


def parse_rate(text: str, where: str) -> float:
    match = _RATE.match(text)
    if not match:
        raise ReadError(
            where,
            f"rate {text.strip()[:60]!r}",
            line=1,
            expected="'<number> Gb/sec (…)', e.g. '200 Gb/sec (4X HDR)'",
        )
    return float(match.group(1))


def parse_state(text: str, where: str) -> str:
    match = _STATE.match(text)
    if not match:
        raise ReadError(
            where, f"state {text.strip()[:60]!r}", line=1, expected="'<number>: <NAME>', e.g. '4: ACTIVE'"
        )
    return match.group(2)


def _optional(machine: Machine, path: str) -> str | None:
    try:
        return machine.sys_read(path).strip() or None
    except Unavailable:
        return None


def read_rdma_ports(machine: Machine) -> tuple[tuple[RdmaPort, ...] | None, Reading]:
    try:
        devices = machine.sys_list(IB_ROOT)
    except Unavailable as exc:
        try:
            machine.sys_list("/sys/class/net")
        except Unavailable:
            return None, Reading("infiniband", IB_ROOT, "sysfs", "not read", reason=str(exc))
        # sysfs is there but has no infiniband class: no RDMA device (or no RDMA driver loaded)
        reason = _("no RDMA device: {reason} (no HCA, or its driver is not loaded)").format(reason=exc)
        return (), Reading(
            "infiniband",
            IB_ROOT,
            "sysfs",
            "read",
            path=None if machine.live else machine.shown(IB_ROOT),
            reason=reason,
        )
    ports: list[RdmaPort] = []
    for device in devices:
        base = f"{IB_ROOT}/{device}"
        try:
            numbers = machine.sys_list(f"{base}/ports")
        except Unavailable:
            continue
        for number in numbers:
            if not number.isdigit():
                continue
            port = f"{base}/ports/{number}"
            rate_text = _optional(machine, f"{port}/rate")
            state = _optional(machine, f"{port}/state")
            phys = _optional(machine, f"{port}/phys_state")
            ports.append(
                RdmaPort(
                    device=device,
                    port=int(number),
                    rate_gbit_s=parse_rate(rate_text, machine.shown(f"{port}/rate")) if rate_text else None,
                    rate_text=rate_text,
                    state=parse_state(state, machine.shown(f"{port}/state")) if state else None,
                    phys_state=parse_state(phys, machine.shown(f"{port}/phys_state")) if phys else None,
                    link_layer=_optional(machine, f"{port}/link_layer"),
                    hca_type=_optional(machine, f"{base}/hca_type"),
                )
            )
    path = None if machine.live else machine.shown(IB_ROOT)
    return tuple(ports), Reading("infiniband", IB_ROOT, "sysfs", "read", path=path)


def read_net_interfaces(machine: Machine) -> tuple[tuple[NetInterface, ...] | None, Reading]:
    """Physical NICs only (those with a `device`, i.e. not lo, bridges, veth or tunnels)."""
    try:
        names = machine.sys_list(NET_ROOT)
    except Unavailable as exc:
        return None, Reading("ethernet", NET_ROOT, "sysfs", "not read", reason=str(exc))
    interfaces = []
    for name in names:
        base = f"{NET_ROOT}/{name}"
        if _optional(machine, f"{base}/device/vendor") is None:
            continue
        speed_text = _optional(machine, f"{base}/speed")
        speed: int | None = None
        if speed_text is not None:
            try:
                speed = int(speed_text)
            except ValueError:
                raise ReadError(
                    machine.shown(f"{base}/speed"),
                    f"speed {speed_text[:40]!r}",
                    line=1,
                    expected=_("Mbit/s as a whole number"),
                ) from None
            speed = speed if speed > 0 else None  # -1: unknown (link down)
        interfaces.append(NetInterface(name, speed, _optional(machine, f"{base}/operstate")))
    path = None if machine.live else machine.shown(NET_ROOT)
    return tuple(interfaces), Reading("ethernet", NET_ROOT, "sysfs", "read", path=path)


def summarize_rdma(ports: tuple[RdmaPort, ...]) -> dict[str, Any]:
    """Active ports per link layer with their rates, for the report and the checks."""
    summary: dict[str, Any] = {}
    for kind in ("infiniband", "roce"):
        active = [p for p in ports if p.kind == kind and p.active]
        rates = sorted({p.rate_gbit_s for p in active if p.rate_gbit_s is not None})
        summary[kind] = {
            "active_ports": len(active),
            "rates_gbit_s": rates,
            "total_gbit_s": sum(p.rate_gbit_s or 0.0 for p in active),
            "max_port_gbit_s": max(rates) if rates else None,
            "inactive_ports": len([p for p in ports if p.kind == kind and not p.active]),
        }
    return summary
