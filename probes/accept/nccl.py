"""NCCL bandwidth from nccl-tests' `all_reduce_perf`: its text log (the current table with `root` and
`#wrong`, the pre-2022 one without `root` and with `error`, NCCL INFO lines and `srun`/`mpirun` line prefixes
mixed in) or its `-J` JSON file, or a bounded run (`all_reduce_perf -b 1G -e 8G -f 2`).

The figure that counts is the **peak bus bandwidth at messages of 1 GiB or more** (out-of-place or
in-place, whichever is higher). The log's "Avg bus bandwidth" footer averages every size, tiny messages
included, so it understates the link; it is kept in the report but never judged.

Only what the log itself vouches for is a reading: a side of a row whose correctness check failed (`#wrong`
not 0, a pre-2022 `error` over nccl-tests' bound) or whose figures are not arithmetic of each other (algbw =
size ÷ time, busbw = algbw × 2(n-1)/n) is not used (`side_problem`). A log holding two runs (a second banner,
device list or header after rows) is read as two runs, each judged apart; a run that lists a rank twice,
counts wrong values in its footer or is of another collective carries a doubt and is not judged
(`nccl_reference.judge` says "could not judge" and why).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading, read_file
from probes.errors import Unavailable
from probes.files.inputfile import parse_json
from probes.i18n import _

GIB = 1 << 30
RUN_FILE = "nccl/all_reduce_perf.log"
Format = Literal["current", "pre-2022", "json"]

_PREFIX = re.compile(r"^(?:\d+:\s?|.*?<std(?:out|err)>:)")
_RANK = re.compile(
    r"#\s*Rank\s+(\d+)(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s+(.+?)\s*$"
)
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_OUT_OF_BOUNDS = re.compile(r"#\s*Out of bounds values\s*:\s*(\d+)")
_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"
# What a row may be off by and still be arithmetic of its own figures: nccl-tests prints bandwidths to
# 0.01 GB/s and times to 4-5 digits (src/common.cu), so a row's algbw is its size ÷ time and its busbw its
# algbw × 2(n-1)/n to well under this.
ROW_TOLERANCE = 0.02
# The largest error a pre-2022 `error` column may show for a row that passed (nccl-tests' DeltaMaxValue:
# half 1e-2, float 1e-5, double 1e-12, integers 0); a bfloat16 row is held to half's bound.
_ERROR_BOUND = {"half": 1e-2, "bfloat16": 1e-2, "float": 1e-5, "double": 1e-12}


@dataclass(frozen=True, slots=True)
class NcclSide:
    """One side (out-of-place or in-place) of a result row, as printed."""

    time_us: float | None
    algbw_gbytes_s: float
    busbw_gbytes_s: float
    wrong: str | None  # the #wrong (or pre-2022 `error`) cell as printed; None when the file has none


@dataclass(frozen=True, slots=True)
class NcclRow:
    size_bytes: int
    dtype: str
    redop: str
    out: NcclSide
    inn: NcclSide | None = None
    line: int | None = None

    @property
    def busbw_out_gbytes_s(self) -> float:
        return self.out.busbw_gbytes_s

    @property
    def busbw_in_gbytes_s(self) -> float | None:
        return None if self.inn is None else self.inn.busbw_gbytes_s

    @property
    def busbw_gbytes_s(self) -> float:
        """The higher of the row's two sides that pass the row's own checks (`side_problem`), else 0."""
        usable = [side.busbw_gbytes_s for side in self.sides() if side_problem(self, side, None) is None]
        return max(usable, default=0.0)

    def sides(self) -> tuple[NcclSide, ...]:
        return (self.out,) if self.inn is None else (self.out, self.inn)


def side_problem(row: NcclRow, side: NcclSide, ranks: int | None) -> str | None:
    """Why a side of a row cannot be judged (None: it can): a failed correctness check, a figure that is not
    a finite number, or figures that are not arithmetic of each other (algbw = size ÷ time, busbw = algbw ×
    2(n-1)/n for all_reduce over n ranks)."""
    wrong = _wrong(row, side)
    if wrong is not None:
        return wrong
    figures = (side.algbw_gbytes_s, side.busbw_gbytes_s, side.time_us if side.time_us is not None else 0.0)
    if not all(math.isfinite(f) and f >= 0 for f in figures):
        return _("a bandwidth or time that is not a finite number of 0 or more")
    if side.time_us is not None:
        if side.time_us <= 0:
            return _("a time of {time} µs").format(time=f"{side.time_us:g}")
        expected = row.size_bytes / side.time_us / 1e3
        if not _close(side.algbw_gbytes_s, expected):
            return _("algbw {algbw} GB/s is not its size ÷ time ({expected} GB/s)").format(
                algbw=f"{side.algbw_gbytes_s:g}", expected=f"{expected:.2f}"
            )
    if ranks is not None and ranks >= 1:
        factor = 2 * (ranks - 1) / ranks  # 0 for one rank: nothing crosses a bus
        if not _close(side.busbw_gbytes_s, side.algbw_gbytes_s * factor):
            return _("busbw {busbw} GB/s is not algbw × 2(n-1)/n for {ranks} ranks ({expected} GB/s)").format(
                busbw=f"{side.busbw_gbytes_s:g}",
                ranks=ranks,
                expected=f"{side.algbw_gbytes_s * factor:.2f}",
            )
    elif side.algbw_gbytes_s > 0 and not (
        (1 - ROW_TOLERANCE) * side.algbw_gbytes_s <= side.busbw_gbytes_s < 2 * side.algbw_gbytes_s
    ):
        return _("busbw {busbw} GB/s is not between 1 and 2 × algbw {algbw} GB/s, as all_reduce's is").format(
            busbw=f"{side.busbw_gbytes_s:g}", algbw=f"{side.algbw_gbytes_s:g}"
        )
    return None


def _close(value: float, expected: float) -> bool:
    return abs(value - expected) <= ROW_TOLERANCE * expected + 0.02


def _wrong(row: NcclRow, side: NcclSide) -> str | None:
    cell = side.wrong
    if cell is None or cell.upper() == "N/A":
        return None  # not checked by the run (validation: 0): said in the judgement, not refused
    try:
        value = float(cell)
    except ValueError:
        return _("its correctness cell reads {cell!r}").format(cell=cell[:20])
    bound = _ERROR_BOUND.get(row.dtype, 0.0) if "." in cell or "e" in cell.lower() else 0.0
    if not math.isfinite(value) or value > bound:
        return _("its correctness check failed (#wrong {cell})").format(cell=cell[:20])
    return None


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
    doubts: tuple[str, ...] = ()  # why the whole run cannot be judged (two runs in one, a failed check)
    first_line: int | None = None  # where the run starts in its file (when a file holds several)

    def peak(self, min_bytes: int = GIB) -> NcclRow | None:
        """The row of the highest bus bandwidth at ≥ `min_bytes` among the sides that pass the row's own
        checks (`side_problem`); None when there is none."""
        big = [
            row
            for row in self.rows
            if row.size_bytes >= min_bytes
            and any(side_problem(row, s, self.ranks) is None for s in row.sides())
        ]
        return max(big, key=lambda row: self.busbw(row) or 0.0) if big else None

    def busbw(self, row: NcclRow) -> float | None:
        usable = [s.busbw_gbytes_s for s in row.sides() if side_problem(row, s, self.ranks) is None]
        return max(usable) if usable else None

    @property
    def checked(self) -> bool:
        """Whether the run checked its results (`#wrong` is a count, not N/A)."""
        return all(
            side.wrong is not None and side.wrong.upper() != "N/A"
            for row in self.rows
            for side in row.sides()
        )

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
            "first_line": self.first_line,
            "doubts": list(self.doubts),
            "results_checked": self.checked,
            "peak_busbw_gbytes_s": None if peak is None else self.busbw(peak),
            "peak_at_bytes": None if peak is None else peak.size_bytes,
            "judged_from_bytes": GIB,
            "largest_bytes": max((row.size_bytes for row in self.rows), default=None),
            "avg_busbw_gbytes_s_footer": self.avg_busbw_gbytes_s,
            "rows": [
                {
                    "size_bytes": r.size_bytes,
                    "type": r.dtype,
                    "redop": r.redop,
                    "busbw_out_gbytes_s": r.out.busbw_gbytes_s,
                    "busbw_in_gbytes_s": None if r.inn is None else r.inn.busbw_gbytes_s,
                    "algbw_out_gbytes_s": r.out.algbw_gbytes_s,
                    "time_out_us": r.out.time_us,
                    "wrong_out": r.out.wrong,
                    "wrong_in": None if r.inn is None else r.inn.wrong,
                    "problem": _row_problem(r, self.ranks),
                }
                for r in self.rows
            ],
        }


def _row_problem(row: NcclRow, ranks: int | None) -> str | None:
    problems = [p for side in row.sides() if (p := side_problem(row, side, ranks)) is not None]
    return problems[0] if len(problems) == len(row.sides()) else None


def _row_pattern(has_root: bool) -> re.Pattern[str]:
    side = rf"(\S+)\s+{_NUM}\s+{_NUM}\s+(\S+)"
    root = r"(-?\d+)\s+" if has_root else ""
    return re.compile(rf"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+{root}{side}(?:\s+{side})?\s*$")


def _time(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value


class _Run:
    """One run of a text log while it is read: its devices, header, rows and footer."""

    def __init__(self, first_line: int) -> None:
        self.first_line = first_line
        self.header_line: int | None = None
        self.has_root = False
        self.pattern: re.Pattern[str] | None = None
        self.rows: list[NcclRow] = []
        self.hosts: list[str] = []
        self.devices: list[str] = []
        self.ranks: list[int] = []
        self.avg: float | None = None
        self.out_of_bounds: int | None = None
        self.collective: str | None = None

    @property
    def started(self) -> bool:
        return self.header_line is not None or bool(self.rows)

    def starts_next(self, stripped: str, rank: re.Match[str] | None) -> bool:
        """Whether a comment line after this run's start begins the next run: a second banner, device
        list or results header."""
        return self.started and (
            "Collective test starting:" in stripped
            or re.search(r"#\s*nThread\b", stripped) is not None
            or (rank is not None and bool(self.rows))
            or (re.search(r"\bsize\b", stripped) is not None and "busbw" in stripped)
        )

    def read_comment(self, stripped: str, rank: re.Match[str] | None, number: int) -> None:
        """A `#` line: a rank's device, the footer's average, the out-of-bounds count, the collective or
        the results header."""
        if rank:
            self.ranks.append(int(rank.group(1)))
            if rank.group(2) not in self.hosts:
                self.hosts.append(rank.group(2))
            self.devices.append(rank.group(4))
        elif (found := _AVG.search(stripped)) is not None:
            self.avg = _time(found.group(1))
        elif (bounds := _OUT_OF_BOUNDS.search(stripped)) is not None:
            self.out_of_bounds = int(bounds.group(1))
        elif "Collective test starting:" in stripped:
            self.collective = stripped.split(":", 1)[1].strip()
        elif re.search(r"\bsize\b", stripped) and "busbw" in stripped:
            self.header_line = number
            self.has_root = re.search(r"\broot\b", stripped) is not None
            self.pattern = _row_pattern(self.has_root)

    def read_row(self, pattern: re.Pattern[str], stripped: str, number: int, where: str) -> None:
        """A result row under the header; one that does not fit it is a ReadError."""
        match = pattern.match(stripped)
        if not match:
            columns = (
                "size count type redop root time algbw busbw #wrong …"
                if self.has_root
                else "size count type redop time algbw busbw error …"
            )
            raise ReadError(
                where,
                _("a result row that does not fit the header at line {line}").format(line=self.header_line),
                line=number,
                expected=columns,
            )
        g = match.groups()
        offset = 5 if self.has_root else 4
        try:
            out = NcclSide(_time(g[offset]), float(g[offset + 1]), float(g[offset + 2]), g[offset + 3])
            inn = (
                NcclSide(_time(g[offset + 4]), float(g[offset + 5]), float(g[offset + 6]), g[offset + 7])
                if g[offset + 6] is not None
                else None
            )
        except ValueError:
            raise ReadError(where, _("a bandwidth that is not a number"), line=number) from None
        self.rows.append(NcclRow(int(g[0]), g[2], g[3], out, inn, number))

    def finish(self, where: str) -> NcclRun:
        if not self.rows:
            raise ReadError(
                where,
                _("the table at line {line} has no size rows (did the test fail?)").format(
                    line=self.header_line
                ),
                expected=_("one row per message size"),
            )
        doubts: list[str] = []
        repeated = sorted({rank for rank in self.ranks if self.ranks.count(rank) > 1})
        if repeated:
            doubts.append(
                _("rank {ranks} listed more than once: two runs pasted into one log?").format(
                    ranks=", ".join(str(r) for r in repeated[:5])
                )
            )
        if self.out_of_bounds:
            doubts.append(
                _("nccl-tests counted {count} wrong values in this run (Out of bounds values)").format(
                    count=self.out_of_bounds
                )
            )
        collective = self.collective or ("all_reduce_perf" if self.has_root else None)
        if collective is not None and not collective.startswith("all_reduce"):
            doubts.append(
                _("the log is of {collective}; the references are all_reduce_perf's").format(
                    collective=collective[:60]
                )
            )
        return NcclRun(
            source=where,
            format="current" if self.has_root else "pre-2022",
            collective=collective,
            ranks=len(set(self.ranks)) or None,
            hosts=tuple(self.hosts),
            devices=tuple(self.devices),
            rows=tuple(self.rows),
            avg_busbw_gbytes_s=self.avg,
            doubts=tuple(doubts),
            first_line=self.first_line,
        )


def parse_nccl_text(text: str, where: str) -> tuple[NcclRun, ...]:
    """Every run of an all_reduce_perf text log: a second banner, device list or results header after a
    run's rows starts the next run (two logs pasted into one are judged apart, never as one)."""
    runs: list[_Run] = []
    current = _Run(1)
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _PREFIX.sub("", raw, count=1) if not raw.lstrip().startswith("#") else raw
        stripped = line.strip()
        if stripped.startswith("#"):
            rank = _RANK.search(stripped)
            if current.starts_next(stripped, rank):
                runs.append(current)
                current = _Run(number)
            current.read_comment(stripped, rank, number)
        elif current.pattern is not None and re.match(r"^\d+\s", stripped):
            current.read_row(current.pattern, stripped, number, where)
        # else: NCCL INFO lines, banners, anything before the table
    if current.started:
        runs.append(current)
    if not runs:
        raise ReadError(
            where,
            _("no all_reduce_perf results table (no '# size count … busbw' header)"),
            expected=_("an nccl-tests log"),
        )
    finished = [run.finish(where) for run in runs]
    if len(finished) == 1:
        return (finished[0],)
    return tuple(
        replace(
            run,
            source=_("{file} (run {n} of {count}, from line {line})").format(
                file=where, n=n, count=len(finished), line=run.first_line
            ),
        )
        for n, run in enumerate(finished, start=1)
    )


def _json_float(value: Any, where: str, field: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ReadError(
        where, _("{field} is {value}").format(field=field, value=repr(value)[:80]), expected=_("a number")
    )


def _json_side(item: dict[str, Any], name: str, where: str, index: int) -> NcclSide | None:
    side = item.get(name)
    if not isinstance(side, dict) or "bus_bw" not in side:
        return None
    label = f"results[{index}].{name}"
    wrong = side.get("nwrong")
    return NcclSide(
        time_us=_json_float(side["time"], where, f"{label}.time") if "time" in side else None,
        algbw_gbytes_s=_json_float(side.get("alg_bw", 0.0), where, f"{label}.alg_bw"),
        busbw_gbytes_s=_json_float(side["bus_bw"], where, f"{label}.bus_bw"),
        wrong=None
        if wrong is None
        else f"{wrong:g}"
        if isinstance(wrong, int | float) and not isinstance(wrong, bool)
        else str(wrong)[:20],
    )


def _json_row(item: Any, index: int, where: str) -> NcclRow:
    """One entry of `results`: a size and at least one side's bandwidths, else a ReadError."""
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("size"), int)
        or isinstance(item.get("size"), bool)
        or item["size"] < 0
    ):
        raise ReadError(
            where,
            _("results[{index}] has no size").format(index=index),
            expected="size, out_of_place.bus_bw",
        )
    out = _json_side(item, "out_of_place", where, index)
    inn = _json_side(item, "in_place", where, index)
    if out is None and inn is None:
        raise ReadError(
            where,
            _("results[{index}] has no bandwidths").format(index=index),
            expected=_("out_of_place / in_place objects"),
        )
    first = out if out is not None else inn
    assert first is not None
    return NcclRow(
        size_bytes=item["size"],
        dtype=str(item.get("type", ""))[:20],
        redop=str(item.get("redop", ""))[:20],
        out=first,
        inn=inn if out is not None else None,
    )


def _json_doubts(devices: list[dict[str, Any]], collective: str | None) -> list[str]:
    """A rank listed twice, or a collective that is not all_reduce."""
    ranks = [d.get("rank") for d in devices]
    doubts = []
    repeated = sorted({str(r) for r in ranks if ranks.count(r) > 1})
    if repeated:
        doubts.append(
            _("rank {ranks} listed more than once: two runs pasted into one log?").format(
                ranks=", ".join(repeated[:5])
            )
        )
    if collective is not None and not collective.startswith("all_reduce"):
        doubts.append(
            _("the log is of {collective}; the references are all_reduce_perf's").format(
                collective=collective
            )
        )
    return doubts


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
    rows = [_json_row(item, index, where) for index, item in enumerate(data["results"])]
    if not rows:
        raise ReadError(
            where,
            _("the results list is empty (did the test fail?)"),
            expected=_("one result per message size"),
        )
    avg = data.get("average_bus_bandwidth")
    hosts = list(dict.fromkeys(h for d in devices if (h := str(d.get("hostname", ""))[:200])))
    name = next(
        (
            item.get("experiment_name")
            for item in data["results"]
            if isinstance(item, dict) and item.get("experiment_name")
        ),
        None,
    )
    collective = str(name)[:60] if name else None
    return NcclRun(
        source=where,
        format="json",
        collective=collective,
        ranks=len(devices) or None,
        hosts=tuple(hosts),
        devices=tuple(str(d.get("device_info", ""))[:200] for d in devices),
        rows=tuple(rows),
        avg_busbw_gbytes_s=float(avg["bandwidth"])
        if isinstance(avg, dict) and isinstance(avg.get("bandwidth"), int | float)
        else None,
        doubts=tuple(_json_doubts(devices, collective)),
    )


def parse_nccl(text: str, where: str) -> tuple[NcclRun, ...]:
    """Every run in an all_reduce_perf log or `-J` JSON file (a JSON file holds one)."""
    return (parse_nccl_json(text, where),) if text.lstrip().startswith("{") else parse_nccl_text(text, where)


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
    recorded = [p for p in machine.recorded("nccl") if p.suffix in (".log", ".json", ".txt")]
    files = list(logs) + recorded
    for path in files:
        try:
            text = machine.read_recorded(path) if path in recorded else read_file(path)
            runs.extend(parse_nccl(text, str(path)))
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
            runs.extend(parse_nccl(text, " ".join(command)))
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
