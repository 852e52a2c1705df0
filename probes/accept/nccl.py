"""NCCL bandwidth from nccl-tests' `all_reduce_perf`: its text log (the current table with `root` and
`#wrong`, the pre-2022 one without `root` and with `error`, NCCL INFO lines and `srun`/`mpirun` line prefixes
mixed in) or its `-J` JSON file, or a bounded run (`all_reduce_perf -b 1G -e 8G -f 2`).

The figure that counts is the **peak bus bandwidth at messages of 1 GiB or more** (out-of-place or
in-place, whichever is higher). The log's "Avg bus bandwidth" footer averages every size, tiny messages
included, so it understates the link; it is kept in the report but never judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading, read_file
from probes.errors import Unavailable
from probes.i18n import _
from probes.inputfile import parse_json

GIB = 1 << 30
RUN_FILE = "nccl/all_reduce_perf.log"
Format = Literal["current", "pre-2022", "json"]

_PREFIX = re.compile(r"^(?:\d+:\s?|.*?<std(?:out|err)>:)")
_RANK = re.compile(
    r"#\s*Rank\s+(\d+)(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s+(.+?)\s*$"
)
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"


@dataclass(frozen=True, slots=True)
class NcclRow:
    size_bytes: int
    dtype: str
    redop: str
    busbw_out_gbytes_s: float
    busbw_in_gbytes_s: float | None
    algbw_out_gbytes_s: float

    @property
    def busbw_gbytes_s(self) -> float:
        return max(self.busbw_out_gbytes_s, self.busbw_in_gbytes_s or 0.0)


@dataclass(frozen=True, slots=True)
class NcclRun:
    source: str
    format: Format
    collective: str | None
    ranks: int | None
    hosts: tuple[str, ...]
    devices: tuple[str, ...]  # GPU names as the log names them
    rows: tuple[NcclRow, ...]
    avg_busbw_gbytes_s: float | None  # the footer: reported, never judged

    def peak(self, min_bytes: int = GIB) -> NcclRow | None:
        big = [row for row in self.rows if row.size_bytes >= min_bytes]
        return max(big, key=lambda row: row.busbw_gbytes_s) if big else None

    @property
    def nodes(self) -> int | None:
        return len(self.hosts) if self.hosts else None

    def as_dict(self) -> dict[str, Any]:
        peak = self.peak()
        return {
            "source": self.source,
            "format": self.format,
            "collective": self.collective,
            "ranks": self.ranks,
            "nodes": self.nodes,
            "hosts": list(self.hosts),
            "devices": sorted(set(self.devices)),
            "peak_busbw_gbytes_s": None if peak is None else peak.busbw_gbytes_s,
            "peak_at_bytes": None if peak is None else peak.size_bytes,
            "judged_from_bytes": GIB,
            "largest_bytes": max((row.size_bytes for row in self.rows), default=None),
            "avg_busbw_gbytes_s_footer": self.avg_busbw_gbytes_s,
            "rows": [
                {
                    "size_bytes": r.size_bytes,
                    "type": r.dtype,
                    "redop": r.redop,
                    "busbw_out_gbytes_s": r.busbw_out_gbytes_s,
                    "busbw_in_gbytes_s": r.busbw_in_gbytes_s,
                    "algbw_out_gbytes_s": r.algbw_out_gbytes_s,
                }
                for r in self.rows
            ],
        }


def _row_pattern(has_root: bool) -> re.Pattern[str]:
    side = rf"(\S+)\s+{_NUM}\s+{_NUM}\s+(\S+)"
    root = r"(-?\d+)\s+" if has_root else ""
    return re.compile(rf"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+{root}{side}(?:\s+{side})?\s*$")


def parse_nccl_text(text: str, where: str) -> NcclRun:
    header_line: int | None = None
    has_root = False
    pattern: re.Pattern[str] | None = None
    rows: list[NcclRow] = []
    hosts: list[str] = []
    devices: list[str] = []
    ranks: set[int] = set()
    avg: float | None = None
    collective: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _PREFIX.sub("", raw, count=1) if not raw.lstrip().startswith("#") else raw
        stripped = line.strip()
        if stripped.startswith("#"):
            rank = _RANK.search(stripped)
            if rank:
                ranks.add(int(rank.group(1)))
                if rank.group(2) not in hosts:
                    hosts.append(rank.group(2))
                devices.append(rank.group(4))
            elif (found := _AVG.search(stripped)) is not None:
                avg = float(found.group(1))
            elif "Collective test starting:" in stripped:
                collective = stripped.split(":", 1)[1].strip()
            elif re.search(r"\bsize\b", stripped) and "busbw" in stripped:
                header_line = number
                has_root = re.search(r"\broot\b", stripped) is not None
                pattern = _row_pattern(has_root)
            continue
        if pattern is None or not re.match(r"^\d+\s", stripped):
            continue  # NCCL INFO lines, banners, anything before the table
        match = pattern.match(stripped)
        if not match:
            columns = (
                "size count type redop root time algbw busbw #wrong …"
                if has_root
                else "size count type redop time algbw busbw error …"
            )
            raise ReadError(
                where,
                _("a result row that does not fit the header at line {line}").format(line=header_line),
                line=number,
                expected=columns,
            )
        g = match.groups()
        offset = 5 if has_root else 4
        try:
            rows.append(
                NcclRow(
                    size_bytes=int(g[0]),
                    dtype=g[2],
                    redop=g[3],
                    algbw_out_gbytes_s=float(g[offset + 1]),
                    busbw_out_gbytes_s=float(g[offset + 2]),
                    busbw_in_gbytes_s=float(g[offset + 6]) if g[offset + 6] is not None else None,
                )
            )
        except ValueError:
            raise ReadError(where, _("a bandwidth that is not a number"), line=number) from None
    if header_line is None:
        raise ReadError(
            where,
            _("no all_reduce_perf results table (no '# size count … busbw' header)"),
            expected=_("an nccl-tests log"),
        )
    if not rows:
        raise ReadError(
            where,
            _("the table at line {line} has no size rows (did the test fail?)").format(line=header_line),
            expected=_("one row per message size"),
        )
    return NcclRun(
        source=where,
        format="current" if has_root else "pre-2022",
        collective=collective or ("all_reduce_perf" if has_root else None),
        ranks=len(ranks) or None,
        hosts=tuple(hosts),
        devices=tuple(devices),
        rows=tuple(rows),
        avg_busbw_gbytes_s=avg,
    )


def _json_float(value: Any, where: str, field: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ReadError(where, f"{field} is {value!r}", expected="a number")


def parse_nccl_json(text: str, where: str) -> NcclRun:
    """nccl-tests' `-J FILE` output (JSON file version 2: `config.devices`, `results[].out_of_place.bus_bw`)."""
    data = parse_json(
        text, lambda message, line: ReadError(where, message, line=line, expected="nccl-tests -J output")
    )
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ReadError(where, _("no `results` list"), expected=_("nccl-tests -J output"))
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    assert isinstance(config, dict)
    devices = [d for d in config.get("devices", []) if isinstance(d, dict)]
    rows = []
    for index, item in enumerate(data["results"]):
        if not isinstance(item, dict) or not isinstance(item.get("size"), int):
            raise ReadError(
                where,
                _("results[{index}] has no size").format(index=index),
                expected="size, out_of_place.bus_bw",
            )
        out = item.get("out_of_place") or {}
        inn = item.get("in_place") or {}
        if not isinstance(out, dict) or not isinstance(inn, dict) or not (out or inn):
            raise ReadError(
                where,
                _("results[{index}] has no bandwidths").format(index=index),
                expected=_("out_of_place / in_place objects"),
            )
        busbw_out = (
            _json_float(out.get("bus_bw", 0.0), where, f"results[{index}].out_of_place.bus_bw")
            if out
            else 0.0
        )
        rows.append(
            NcclRow(
                size_bytes=item["size"],
                dtype=str(item.get("type", "")),
                redop=str(item.get("redop", "")),
                busbw_out_gbytes_s=busbw_out,
                busbw_in_gbytes_s=_json_float(inn["bus_bw"], where, f"results[{index}].in_place.bus_bw")
                if "bus_bw" in inn
                else None,
                algbw_out_gbytes_s=_json_float(
                    out.get("alg_bw", 0.0), where, f"results[{index}].out_of_place.alg_bw"
                )
                if out
                else 0.0,
            )
        )
    if not rows:
        raise ReadError(
            where,
            _("the results list is empty (did the test fail?)"),
            expected=_("one result per message size"),
        )
    avg = data.get("average_bus_bandwidth")
    hosts: list[str] = []
    for device in devices:
        host = str(device.get("hostname", ""))
        if host and host not in hosts:
            hosts.append(host)
    name = next(
        (
            item.get("experiment_name")
            for item in data["results"]
            if isinstance(item, dict) and item.get("experiment_name")
        ),
        None,
    )
    return NcclRun(
        source=where,
        format="json",
        collective=str(name) if name else None,
        ranks=len(devices) or None,
        hosts=tuple(hosts),
        devices=tuple(str(d.get("device_info", "")) for d in devices),
        rows=tuple(rows),
        avg_busbw_gbytes_s=float(avg["bandwidth"])
        if isinstance(avg, dict) and isinstance(avg.get("bandwidth"), int | float)
        else None,
    )


def parse_nccl(text: str, where: str) -> NcclRun:
    return parse_nccl_json(text, where) if text.lstrip().startswith("{") else parse_nccl_text(text, where)


def all_reduce_command(binary: Path, gpus: int) -> list[str]:
    return [str(binary), "-b", "1G", "-e", "8G", "-f", "2", "-g", str(max(1, gpus))]


def read_nccl(
    machine: Machine,
    *,
    logs: tuple[Path, ...] = (),
    tests_dir: Path | None = None,
    gpus: int = 1,
    timeout_s: float = 600.0,
) -> tuple[tuple[NcclRun, ...], tuple[Reading, ...]]:
    runs: list[NcclRun] = []
    readings: list[Reading] = []
    files = list(logs) + [p for p in machine.recorded("nccl") if p.suffix in (".log", ".json", ".txt")]
    for path in files:
        try:
            text = read_file(path)
            runs.append(parse_nccl(text, str(path)))
            if path in logs:
                machine.save(f"nccl/{path.name}", text)  # a recording keeps the user's logs too
            readings.append(Reading("nccl", str(path), "file", "read", path=str(path)))
        except Unavailable as exc:
            readings.append(Reading("nccl", str(path), "file", "not read", reason=str(exc)))
    if tests_dir is not None and machine.live:
        binary = tests_dir / "all_reduce_perf"
        if not binary.exists():
            binary = tests_dir / "build" / "all_reduce_perf"
        command = all_reduce_command(binary, gpus)
        try:
            text = machine.run(command, record_as=RUN_FILE, timeout_s=timeout_s)
            runs.append(parse_nccl(text, " ".join(command)))
            readings.append(Reading("nccl", " ".join(command), "command", "read"))
        except Unavailable as exc:
            readings.append(Reading("nccl", " ".join(command), "command", "not read", reason=str(exc)))
    if not files and tests_dir is None:
        readings.append(
            Reading(
                "nccl",
                "all_reduce_perf",
                "file",
                "not read",
                reason=_("no log given (--nccl-log FILE or --nccl-tests DIR)"),
            )
        )
    return tuple(runs), tuple(readings)
