"""Run every reader on one machine (live, recording, or a replay directory) and gather what they read
into the report's `facts` and `read` sections. Each reader is independent: one that cannot read says so
and the others go on; malformed input raises `ReadError` (file, line, expected), which stops the run."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes import __version__
from probes.accept import fabric, management, nccl, nccl_reference, storage
from probes.accept.gpus import GpuInventory, read_gpus
from probes.accept.machine import LiveMachine, Machine, Reading, ReplayMachine
from probes.accept.report import FORMAT, FORMAT_VERSION
from probes.accept.topology import read_topology
from probes.timestamps import iso_utc


@dataclass(frozen=True, slots=True)
class AcceptOptions:
    replay_dir: Path | None = None
    record_dir: Path | None = None
    nccl_logs: tuple[Path, ...] = ()
    nccl_tests_dir: Path | None = None
    nccl_timeout_s: float = 600.0
    fio_device: str | None = None
    fio_json: Path | None = None
    return_route: bool = False
    trace_protocol: str = "icmp"
    office: str | None = None
    use_nvml: bool = True
    networks: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def machine_for(options: AcceptOptions) -> Machine:
    if options.replay_dir is not None:
        return ReplayMachine(options.replay_dir)
    return LiveMachine(options.record_dir)


def collect(options: AcceptOptions) -> dict[str, Any]:
    """The report without its checks: format, tool, host, time, how each input was read, every raw figure."""
    machine = machine_for(options)
    started = time.time()
    readings: list[Reading] = []
    facts: dict[str, Any] = {}

    inventory = _gpu_facts(machine, options, readings, facts)
    _fabric_facts(machine, readings, facts)
    _storage_facts(machine, options, readings, facts)

    mgmt, mgmt_readings = management.read_management(machine)
    readings.extend(mgmt_readings)
    facts["management"] = mgmt.as_dict()

    _nccl_facts(machine, options, inventory, readings, facts)
    _route_facts(machine, options, readings, facts)

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tool": {"name": "linkvet", "version": __version__},
        "host": {
            "hostname": machine.hostname(),
            "kernel": platform.release() if machine.live else None,
            "privileged": (os.geteuid() == 0) if machine.live and hasattr(os, "geteuid") else None,
        },
        "created_at": iso_utc(int(started * 1_000_000)),
        "mode": "live" if machine.live else "replay",
        "machine": machine.describe(),
        "recorded_to": str(options.record_dir) if options.record_dir and machine.live else None,
        "read": [r.as_dict() for r in readings],
        "facts": facts,
    }


def _gpu_facts(
    machine: Machine, options: AcceptOptions, readings: list[Reading], facts: dict[str, Any]
) -> GpuInventory | None:
    """`gpus` and `topology` (the matrix held to the GPU query's count); the GPU inventory, if read."""
    gpu_facts = read_gpus(machine, use_nvml=options.use_nvml)
    readings.extend(gpu_facts.readings)
    inventory = gpu_facts.inventory
    facts["gpus"] = None if inventory is None else inventory.as_dict()

    topology, reading = read_topology(machine)
    readings.append(reading)
    if topology is not None:
        topology = topology.against_gpu_query(None if inventory is None else len(inventory.gpus))
    facts["topology"] = None if topology is None else topology.as_dict()
    return inventory


def _fabric_facts(machine: Machine, readings: list[Reading], facts: dict[str, Any]) -> None:
    """`rdma` and `ethernet`."""
    ports, reading = fabric.read_rdma_ports(machine)
    readings.append(reading)
    facts["rdma"] = (
        None if ports is None else {"ports": [p.as_dict() for p in ports], **fabric.summarize_rdma(ports)}
    )

    nics, reading = fabric.read_net_interfaces(machine)
    readings.append(reading)
    facts["ethernet"] = None if nics is None else {"interfaces": [n.as_dict() for n in nics]}


def _storage_facts(
    machine: Machine, options: AcceptOptions, readings: list[Reading], facts: dict[str, Any]
) -> None:
    """`nvme` and `fio`."""
    disks, reading = storage.read_nvme(machine)
    readings.append(reading)
    facts["nvme"] = (
        None
        if disks is None
        else {
            "disks": [d.as_dict() for d in disks],
            "count": len(disks),
            "total_tb": sum(d.size_bytes for d in disks) / 1e12,
        }
    )

    fio, reading = storage.read_fio(machine, user_file=options.fio_json, run_on=options.fio_device)
    readings.append(reading)
    facts["fio"] = None if fio is None else fio.as_dict()


def _nccl_facts(
    machine: Machine,
    options: AcceptOptions,
    inventory: GpuInventory | None,
    readings: list[Reading],
    facts: dict[str, Any],
) -> None:
    """`nccl`: every run read or run, each judged against the reference for the GPUs read."""
    gpu_count = len(inventory.gpus) if inventory is not None else 1
    runs, nccl_readings = nccl.read_nccl(
        machine,
        logs=options.nccl_logs,
        tests_dir=options.nccl_tests_dir,
        gpus=gpu_count,
        timeout_s=options.nccl_timeout_s,
    )
    readings.extend(nccl_readings)
    gpu_names = sorted({g.name for g in inventory.gpus}) if inventory is not None else []
    facts["nccl"] = (
        {
            "runs": [run.as_dict() | {"judgement": nccl_reference.judge(run, gpu_names)} for run in runs],
        }
        if runs
        else None
    )


def _route_facts(
    machine: Machine, options: AcceptOptions, readings: list[Reading], facts: dict[str, Any]
) -> None:
    """`return_route` (traced when asked, or replayed) and `office` (the round trip to the office)."""
    facts["return_route"] = None
    facts["office"] = None
    if options.return_route or not machine.live:
        from probes.accept.return_route import direction, trace_return_route
        from probes.routes import load_network_table

        routes, route_readings = trace_return_route(
            machine, load_network_table(options.networks), protocol=options.trace_protocol
        )
        readings.extend(route_readings)
        if routes:
            facts["return_route"] = {"direction": direction(), "routes": routes}
    recorded_office = options.replay_dir is not None and (options.replay_dir / "office.json").exists()
    if options.office or recorded_office:
        from probes.accept.return_route import office_round_trip

        office, office_readings = office_round_trip(machine, options.office or "")
        readings.extend(office_readings)
        facts["office"] = office
