"""Reading a SkyPilot-format CSV's rows as they are, quirks included (the importer is `catalogs.skypilot`).

- The CSV is read by the csv module from the text itself (a U+2028 or any other character inside a quoted
  cell stays in its cell; only CR and LF end a row), up to `MAX_FILE_BYTES`; a cell over Excel's and the
  csv module's 131,072 characters makes its row unintelligible, not the file.
- GPU memory (`memory_of`): `GpuInfo` is a Python dict literal (read with `ast.literal_eval`, never
  evaluated). Some catalogs put the node's total memory in the per-GPU `SizeInMiB` (an 8 × H200 row reading
  1,150,168 MiB "per GPU"), others the per-GPU memory in `TotalGpuMemoryInMiB`: a figure no GPU of that
  model has is checked against the GPU reference, and corrected when the per-GPU reading of the other figure
  (or the total ÷ count) is one the reference knows, with a note saying so.
- Region cells like `", US, NA"` (no city) are read as `"US, NA"` (`region_label`).
"""

from __future__ import annotations

import ast
import contextlib
import csv
import io
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from catalogs.gpus import GpuReference

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_CELL = 131_072  # the csv module's default field limit, and more than any catalog cell needs
MEMORY_TOLERANCE = 0.08  # a figure within 8% of a reference memory is that memory (HBM sizes vary a little)
_LIMIT_LOCK = threading.Lock()


@contextlib.contextmanager
def _wide_fields() -> Iterator[None]:
    """Let the csv module read over-long cells (so their row can be reported), then restore its limit."""
    with _LIMIT_LOCK:
        before = csv.field_size_limit()
        csv.field_size_limit(MAX_FILE_BYTES)
        try:
            yield
        finally:
            csv.field_size_limit(before)


def read_rows(text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and every row with the line it starts on (rows spanning lines keep their first line);
    `csv.Error` for a file the csv module cannot read at all."""
    with _wide_fields():
        reader = csv.reader(io.StringIO(text, newline=""))
        header = next(reader, [])
        rows: list[tuple[int, list[str]]] = []
        line = reader.line_num + 1
        for cells in reader:
            rows.append((line, cells))
            line = reader.line_num + 1
    return header, rows


def too_long(cells: list[str]) -> int | None:
    """The length of the first cell over `MAX_CELL` characters, if any."""
    return next((len(c) for c in cells if len(c) > MAX_CELL), None)


def _lowered(mapping: object) -> dict[str, object]:
    return {str(k).lower(): v for k, v in mapping.items()} if isinstance(mapping, dict) else {}


def gpu_info_mib(info: str) -> tuple[float | None, float | None]:
    """(`SizeInMiB` of the first GPU entry, `TotalGpuMemoryInMiB`) from a `GpuInfo` cell, None where it does
    not say or cannot be read."""
    try:
        parsed = ast.literal_eval(info)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None, None
    top = _lowered(parsed)
    size = total = None
    gpus = top.get("gpus")
    if isinstance(gpus, list) and gpus:
        memory = _lowered(_lowered(gpus[0]).get("memoryinfo"))
        size = _number(memory.get("sizeinmib"))
    total = _number(top.get("totalgpumemoryinmib"))
    return size, total


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    if isinstance(value, str) and not re.match(r"^\s*(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$", value):
        return None  # float() would read `3_2` as 32
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number > 0 and number == number and number != float("inf") else None


@dataclass(frozen=True, slots=True)
class Memory:
    """Per-GPU memory in GB (GiB, as SkyPilot's MiB figures give it) and what was done to get it."""

    gb: float | None
    note: str | None = None
    corrected: bool = False


def _known_memories(gpus: GpuReference, accelerator: str) -> list[float]:
    match = gpus.get(accelerator)
    if match is None:
        family = re.sub(r"[-_](mega|sxm|pcie)$", "", accelerator, flags=re.IGNORECASE)
        match = gpus.get(family)
    return sorted({s.memory_gb for s in match.candidates if s.memory_gb}) if match is not None else []


def _matches(gb: float, known: list[float]) -> float | None:
    return next((m for m in known if abs(gb - m) <= MEMORY_TOLERANCE * m), None)


def memory_of(
    accelerator: str, count: int, size_mib: float | None, total_mib: float | None, gpus: GpuReference
) -> Memory:
    """Per-GPU memory from a row's `GpuInfo` figures, corrected against the GPU reference where one of them
    is plainly not per GPU (see the module)."""
    known = _known_memories(gpus, accelerator)
    size = None if size_mib is None else round(size_mib / 1024, 2)
    total = None if total_mib is None else round(total_mib / 1024, 2)
    if size is not None and size_mib is not None:
        if not known or _matches(size, known) is not None:
            if count > 1 and total is not None and total == size and known:
                return Memory(
                    size, f"TotalGpuMemoryInMiB {total_mib:.0f} equals the per-GPU SizeInMiB: read as per GPU"
                )
            return Memory(size)
        if count > 1 and (reference := _matches(size / count, known)) is not None:
            per = round(size / count, 2)
            note = (
                f"SizeInMiB {size_mib:.0f} is the {count} GPUs' total, not per GPU: {size_mib / count:.0f} MiB "
                f"({per:g} GB) per GPU, as the GPU reference has {accelerator} at {reference:g} GB"
            )
            return Memory(per, note, corrected=True)
        return Memory(
            size,
            f"SizeInMiB {size_mib:.0f} ({size:g} GB) per GPU is not a memory the GPU reference has for "
            f"{accelerator} ({', '.join(f'{m:g}' for m in known)} GB); kept as the source says",
        )
    if total is not None and total_mib is not None:
        if count > 1 and _matches(total / count, known) is not None:
            return Memory(round(total / count, 2))
        if (reference := _matches(total, known)) is not None:
            note = (
                f"TotalGpuMemoryInMiB {total_mib:.0f} is the per-GPU memory (the GPU reference has {accelerator} "
                f"at {reference:g} GB), not the {count} GPUs' total"
            )
            return Memory(total, note, corrected=count > 1)
    return Memory(None)


def region_label(raw: str) -> tuple[str, str | None, str | None]:
    """(the region label to use, the country it names, a note when the cell was repaired): `", US, NA"`
    (a "City, CC, Continent" cell with no city) reads as `"US, NA"`, country US."""
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) < 2:
        return raw.strip(), None, None
    country = next((p for p in parts[1:2] if re.fullmatch(r"[A-Z]{2}", p)), None)
    if parts[0]:
        return raw.strip(), country, None
    kept = [p for p in parts if p]
    label = ", ".join(kept)
    return label, country, f"the region cell {raw!r} names no city: read as {label!r}"
