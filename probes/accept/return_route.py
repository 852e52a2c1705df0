"""The return route (回程): traces from this server to the bundled China carrier endpoints
(`carriers.toml`, China Telecom / Unicom / Mobile in four cities), each path classified with linkvet's
route classifier (`probes.routes`) — the direction the public route-check tools classify, which the office
cannot see. With an office address, also the RTT back to the office (and iperf3 where a server runs).

Recorded traces (`DIR/traces/*.json`, one `TraceResult.as_dict()` each, as `--record` writes them, or a
`linkvet trace --json` document) are classified again with the current network table.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import Unavailable
from probes.files.inputfile import parse_json, parse_toml, read_text
from probes.i18n import _
from probes.routes import NetworkTable, PathHop, class_name, classify_path
from probes.traceroute.result import verdict_dict

CARRIERS_PATH = Path(__file__).with_name("carriers.toml")


def direction() -> str:
    """The direction these traces see, in the current language."""
    return _("server → China, the return path (回程)")


@dataclass(frozen=True, slots=True)
class Endpoint:
    city: str
    carrier: str
    label: str
    address: str

    @property
    def key(self) -> str:
        return f"{self.city}-{self.carrier}"


def _error_in(where: str, expected: str | None = None) -> Callable[[str, int | None], ReadError]:
    return lambda message, line: ReadError(where, message, line=line, expected=expected)


@cache
def carrier_endpoints(path: Path = CARRIERS_PATH) -> tuple[tuple[Endpoint, ...], str]:
    data = parse_toml(read_text(path, _error_in(str(path))), _error_in(str(path)))
    return tuple(Endpoint(e["city"], e["carrier"], e["label"], e["address"]) for e in data["endpoint"]), data[
        "source"
    ]


def _hops_of(trace: dict[str, Any], where: str) -> tuple[tuple[PathHop, ...], bool]:
    hops = trace.get("hops")
    if not isinstance(hops, list):
        raise ReadError(where, _("no `hops` list"), expected=_("a linkvet trace (TraceResult JSON)"))
    path = []
    for index, hop in enumerate(hops):
        if not isinstance(hop, dict) or not isinstance(hop.get("ttl"), int):
            raise ReadError(
                where, _("hops[{index}] has no ttl").format(index=index), expected="{ttl, addresses}"
            )
        addresses = hop.get("addresses") or ([hop["address"]] if hop.get("address") else [])
        if not isinstance(addresses, list) or not all(isinstance(a, str) for a in addresses):
            raise ReadError(
                where, _("hops[{index}].addresses is not a list of addresses").format(index=index)
            )
        path.append(PathHop(hop["ttl"], tuple(addresses)))
    return tuple(path), bool(trace.get("reached"))


def classify_trace(
    trace: dict[str, Any], table: NetworkTable, endpoint: Endpoint | None, where: str
) -> dict[str, Any]:
    path, reached = _hops_of(trace, where)
    verdict = classify_path(path, table, reached=reached)
    return {
        "city": endpoint.city if endpoint else None,
        "carrier": endpoint.carrier if endpoint else None,
        "label": endpoint.label if endpoint else None,
        "address": trace.get("address") or trace.get("target"),
        "class": verdict.line_class,
        "class_name": class_name(verdict.line_class),
        "reached": reached,
        "hops": len(path),
        "path": [[hop.ttl, list(hop.addresses)] for hop in path],
        "verdict": verdict_dict(verdict),
        "source": where,
    }


def _endpoint_for(trace: dict[str, Any], name: str) -> Endpoint | None:
    endpoints, _ = carrier_endpoints()
    address = trace.get("address") or trace.get("target")
    return next((e for e in endpoints if e.address == address or e.key == name), None)


def read_recorded_traces(machine: Machine, table: NetworkTable) -> tuple[list[dict[str, Any]], list[Reading]]:
    routes: list[dict[str, Any]] = []
    readings: list[Reading] = []
    for path in machine.recorded("traces"):
        if path.suffix != ".json":
            continue
        try:
            text = machine.read_recorded(path)
        except Unavailable as exc:
            readings.append(Reading("return_route", str(path), "file", "not read", reason=str(exc)))
            continue
        document = parse_json(text, _error_in(str(path), expected=_("a linkvet trace")))
        traces = document.get("traces") if isinstance(document, dict) and "traces" in document else [document]
        if not isinstance(traces, list):
            raise ReadError(str(path), _("`traces` is not a list"))
        for trace in traces:
            if not isinstance(trace, dict):
                raise ReadError(str(path), _("a trace is not an object"), expected="TraceResult JSON")
            routes.append(classify_trace(trace, table, _endpoint_for(trace, path.stem), str(path)))
        readings.append(Reading("return_route", str(path), "file", "read", path=str(path)))
    if not readings:
        readings.append(
            Reading("return_route", "traces/*.json", "file", "not read", reason=_("no recorded traces"))
        )
    return routes, readings


async def _trace_all(
    endpoints: tuple[Endpoint, ...], table: NetworkTable, protocol: str, probes: int
) -> list[Any]:
    from probes.icmp.engine import IcmpEngine
    from probes.traceroute import TraceOptions, trace_host

    options = TraceOptions(protocol=protocol, probes_per_hop=probes)  # type: ignore[arg-type]
    if protocol == "icmp":
        async with IcmpEngine() as engine:
            return list(
                await asyncio.gather(
                    *(trace_host(e.address, options, table, icmp=engine, name=e.label) for e in endpoints)
                )
            )
    return list(
        await asyncio.gather(*(trace_host(e.address, options, table, name=e.label) for e in endpoints))
    )


def trace_return_route(
    machine: Machine, table: NetworkTable, *, protocol: str = "icmp", probes_per_hop: int = 3
) -> tuple[list[dict[str, Any]], list[Reading]]:
    """Trace every bundled endpoint from this machine (live), or classify the recorded traces (replay)."""
    if not machine.live:
        return read_recorded_traces(machine, table)
    endpoints, source = carrier_endpoints()
    try:
        results = asyncio.run(_trace_all(endpoints, table, protocol, probes_per_hop))
    except Exception as exc:
        return [], [
            Reading("return_route", f"traceroute ({protocol})", "network", "not read", reason=str(exc))
        ]
    routes = []
    for endpoint, result in zip(endpoints, results, strict=True):
        record = result.as_dict()
        record["direction"] = direction()
        machine.save(f"traces/{endpoint.key}.json", json.dumps(record, ensure_ascii=False, indent=1))
        if result.error is not None:
            routes.append(
                {
                    "city": endpoint.city,
                    "carrier": endpoint.carrier,
                    "label": endpoint.label,
                    "address": endpoint.address,
                    "class": None,
                    "error": str(result.error),
                    "message": result.message,
                }
            )
            continue
        routes.append(
            classify_trace(record, table, endpoint, _("trace to {address}").format(address=endpoint.address))
        )
    return routes, [
        Reading(
            "return_route",
            f"traceroute ({protocol}) to {len(endpoints)} endpoints; {source}",
            "network",
            "read",
        )
    ]


def office_round_trip(
    machine: Machine, host: str, *, iperf3: bool = True
) -> tuple[dict[str, Any] | None, list[Reading]]:
    """Ping (and iperf3 where a server answers) from this server back to the office."""
    if not machine.live:
        try:
            text = machine.run(["office"], record_as="office.json")
        except Unavailable as exc:
            return None, [Reading("office", "office.json", "file", "not read", reason=str(exc))]
        where = machine.shown("office.json")
        office = parse_json(text, _error_in(where))
        return office, [Reading("office", "office.json", "file", "read", path=where)]
    from probes.runner import run
    from probes.target import Method, ProbeOptions, Target

    targets = [Target(method=Method.ICMP, host=host)]
    if iperf3:
        targets.append(Target(method=Method.IPERF3, host=host))
    results = run(targets, ProbeOptions(count=10, interval_s=0.2, iperf3_seconds=5))
    record = {"host": host, "results": [r.as_dict(samples=False) for r in results]}
    machine.save("office.json", json.dumps(record, ensure_ascii=False, indent=1))
    readings = [
        Reading(
            "office",
            f"{r.target.method} to {host}",
            "network",
            "read" if r.error is None else "not read",
            reason=None if r.error is None else f"{r.error}: {r.message}",
        )
        for r in results
    ]
    return record, readings
