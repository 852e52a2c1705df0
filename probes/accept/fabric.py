"""The fabric between nodes, from sysfs (no tools, no root): InfiniBand and RoCE ports from
`/sys/class/infiniband/*/ports/*/{rate,state,phys_state,link_layer}`, Ethernet NIC speeds from
`/sys/class/net/*/speed`.

`rate` reads like `200 Gb/sec (4X HDR)`, `state` like `4: ACTIVE`, `phys_state` like `5: LinkUp`,
`link_layer` is `InfiniBand` or `Ethernet` (RoCE). A file that says something else is a ReadError naming it.
A rate written that way but not one a port has (`PORT_RATES_GBIT_S`: 1e20 Gb/sec, `600 Gb/sec (4X HDR)`), an
empty rate file and an Ethernet speed that is not one of ethtool's are not readings: the port or NIC is
kept with its rate unknown and the reason (`rate_doubt`, `speed_doubt`), and nothing is judged on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import ImpossibleReading, Unavailable
from probes.i18n import _

IB_ROOT = "/sys/class/infiniband"
NET_ROOT = "/sys/class/net"
_RATE = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s+Gb/sec\b(?:\s*\((\d+)X\s*([A-Z0-9]+)\))?.*$"
)
_STATE = re.compile(r"^\s*(\d+)\s*:\s*(\S+)\s*$")

# The rates an InfiniBand or RoCE port has: the kernel writes `rate` as its width × the lane speed
# (drivers/infiniband/core/sysfs.c, rate_show: "%d%s Gb/sec (%dX%s)"), widths 1X/2X/4X/8X/12X, lane speeds
# SDR 2.5 … XDR 200 Gb/s (include/rdma/ib_verbs.h, enum ib_port_speed). Anything else is not a port's rate.
LANE_GBIT_S = {
    "SDR": 2.5,
    "DDR": 5.0,
    "QDR": 10.0,
    "FDR10": 10.0,
    "FDR": 14.0,
    "EDR": 25.0,
    "HDR": 50.0,
    "NDR": 100.0,
    "XDR": 200.0,
}
WIDTHS = (1, 2, 4, 8, 12)
PORT_RATES_GBIT_S = frozenset(w * lane for w in WIDTHS for lane in LANE_GBIT_S.values())
# The speeds an Ethernet link reports in /sys/class/net/*/speed (Mbit/s): ethtool's SPEED_* values
# (include/uapi/linux/ethtool.h). A virtual NIC may report any number its host sets; that is not judged.
ETHERNET_MBIT_S = frozenset(
    (
        10,
        100,
        1000,
        2500,
        5000,
        10000,
        14000,
        20000,
        25000,
        40000,
        50000,
        56000,
        100000,
        200000,
        400000,
        800000,
    )
)


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
    rate_doubt: str | None = None  # why `rate_gbit_s` is None for a port that has a rate file or should

    def describe(self) -> str:
        return f"{self.device} port {self.port}"

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
            "rate_doubt": self.rate_doubt,
        }


@dataclass(frozen=True, slots=True)
class NetInterface:
    name: str
    speed_mbit_s: int | None  # None: link down, not reported, or not a speed Ethernet has (`speed_doubt`)
    operstate: str | None
    speed_doubt: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "speed_mbit_s": self.speed_mbit_s,
            "operstate": self.operstate,
            "speed_doubt": self.speed_doubt,
        }


def parse_rate(text: str, where: str) -> float:
    """A port's `rate` in Gbit/s: a ReadError when it is not written as the kernel writes it, a
    `ImpossibleReading` when it is but names no rate a port has (a width or lane speed that does not exist,
    or a figure that is not their product)."""
    match = _RATE.match(text)
    if not match:
        raise ReadError(
            where,
            f"rate {text.strip()[:60]!r}",
            line=1,
            expected="'<number> Gb/sec (…)', e.g. '200 Gb/sec (4X HDR)'",
        )
    rate = float(match.group(1))
    width, lane = match.group(2), match.group(3)
    if width is not None and lane is not None:
        if int(width) not in WIDTHS or lane not in LANE_GBIT_S:
            raise ImpossibleReading(
                _("{rate} Gb/sec names {width}X {lane}, a width or lane speed no port has").format(
                    rate=f"{rate:g}", width=width[:4], lane=lane[:8]
                )
            )
        if rate != int(width) * LANE_GBIT_S[lane]:
            raise ImpossibleReading(
                _("{rate} Gb/sec is not {width}X {lane} ({expected} Gb/sec)").format(
                    rate=f"{rate:g}", width=width, lane=lane, expected=f"{int(width) * LANE_GBIT_S[lane]:g}"
                )
            )
    elif rate not in PORT_RATES_GBIT_S:
        raise ImpossibleReading(
            _("{rate} Gb/sec is not a rate an InfiniBand or RoCE port has").format(rate=f"{rate:.6g}")
        )
    return rate


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
            rate: float | None = None
            doubt: str | None = None
            if rate_text is None:
                doubt = _("its rate file is empty or missing")
            else:
                try:
                    rate = parse_rate(rate_text, machine.shown(f"{port}/rate"))
                except ImpossibleReading as impossible:
                    doubt = str(impossible)
            ports.append(
                RdmaPort(
                    device=device[:64],
                    port=int(number[:6]),
                    rate_gbit_s=rate,
                    rate_doubt=doubt,
                    rate_text=None if rate_text is None else rate_text[:80],
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
        doubt = None
        if speed is not None and speed not in ETHERNET_MBIT_S:
            doubt = _("{speed} Mbit/s is not a speed Ethernet has").format(speed=speed)
            speed = None
        interfaces.append(NetInterface(name[:64], speed, _optional(machine, f"{base}/operstate"), doubt))
    path = None if machine.live else machine.shown(NET_ROOT)
    return tuple(interfaces), Reading("ethernet", NET_ROOT, "sysfs", "read", path=path)


def summarize_rdma(ports: tuple[RdmaPort, ...]) -> dict[str, Any]:
    """Active ports per link layer with their rates, for the report and the checks. A total is given only
    when every active port's rate was judged (`unjudged` lists those that were not, with why)."""
    summary: dict[str, Any] = {}
    for kind in ("infiniband", "roce"):
        active = [p for p in ports if p.kind == kind and p.active]
        rates = sorted({p.rate_gbit_s for p in active if p.rate_gbit_s is not None})
        unjudged = [
            _("{port}: could not judge its rate ({reason})").format(port=p.describe(), reason=p.rate_doubt)
            for p in active
            if p.rate_gbit_s is None
        ]
        summary[kind] = {
            "active_ports": len(active),
            "rates_gbit_s": rates,
            "total_gbit_s": None if unjudged else sum(p.rate_gbit_s or 0.0 for p in active),
            "max_port_gbit_s": max(rates) if rates else None,
            "inactive_ports": len([p for p in ports if p.kind == kind and not p.active]),
            "unjudged": unjudged,
        }
    return summary
