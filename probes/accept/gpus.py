"""GPUs: model, count, memory, PCIe generation and width, NVLink links — from NVML (`nvidia-ml-py`, the
`linkvet[accept]` extra), else from `nvidia-smi -q -x`; per-link NVLink speeds from `nvidia-smi nvlink -s`.

The XML is parsed with defusedxml (entity declarations are refused: the text is untrusted). Values
nvidia-smi prints as `N/A` are unknown (`None`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from probes.accept.errors import ReadError
from probes.accept.machine import Machine, Reading
from probes.errors import Unavailable
from probes.i18n import N_, _

XML_FILE = "nvidia-smi-q.xml"
NVLINK_FILE = "nvidia-smi-nvlink-s.txt"
NVML_HINT = N_("nvidia-ml-py is not installed (pip install 'linkvet[accept]' to read through NVML)")


@dataclass(frozen=True, slots=True)
class NvLink:
    """One NVLink of a GPU: up or not, its version and per-direction speed where known."""

    link: int
    active: bool
    speed_gbytes_s: float | None = None  # per direction, as nvidia-smi prints it (GB/s)
    version: int | None = None
    remote: str | None = None  # "gpu", "switch", ... (NVML only)

    def as_dict(self) -> dict[str, Any]:
        return {
            "link": self.link,
            "active": self.active,
            "speed_gbytes_s": self.speed_gbytes_s,
            "version": self.version,
            "remote": self.remote,
        }


@dataclass(frozen=True, slots=True)
class Gpu:
    index: int
    name: str
    uuid: str | None = None
    bus_id: str | None = None
    memory_total_mib: int | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    nvlinks: tuple[NvLink, ...] = ()

    @property
    def active_nvlinks(self) -> tuple[NvLink, ...]:
        return tuple(link for link in self.nvlinks if link.active)

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "uuid": self.uuid,
            "bus_id": self.bus_id,
            "memory_total_mib": self.memory_total_mib,
            "pcie_gen_current": self.pcie_gen_current,
            "pcie_gen_max": self.pcie_gen_max,
            "pcie_width_current": self.pcie_width_current,
            "pcie_width_max": self.pcie_width_max,
            "nvlinks": [link.as_dict() for link in self.nvlinks],
            "nvlinks_active": len(self.active_nvlinks),
        }


@dataclass(frozen=True, slots=True)
class GpuInventory:
    gpus: tuple[Gpu, ...]
    driver_version: str | None = None
    cuda_version: str | None = None
    read_with: str = "nvidia-smi -q -x"

    def as_dict(self) -> dict[str, Any]:
        names = sorted({gpu.name for gpu in self.gpus})
        return {
            "count": len(self.gpus),
            "models": names,
            "driver_version": self.driver_version,
            "cuda_version": self.cuda_version,
            "read_with": self.read_with,
            "gpus": [gpu.as_dict() for gpu in self.gpus],
        }


@dataclass(frozen=True, slots=True)
class GpuFacts:
    inventory: GpuInventory | None
    readings: tuple[Reading, ...] = field(default=())


# -- nvidia-smi -q -x -------------------------------------------------------------------------------------


def _text(node: Element | None, path: str) -> str | None:
    if node is None:
        return None
    found = node.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return None if value in ("", "N/A", "Unknown Error", "[N/A]") else value


def _number(value: str | None, where: str, field_name: str, unit: str = "") -> int | None:
    if value is None:
        return None
    match = re.fullmatch(r"(\d+)\s*" + re.escape(unit), value.strip(), flags=re.IGNORECASE)
    if not match:
        expected = _("a whole number followed by {unit!r}").format(unit=unit) if unit else _("a whole number")
        raise ReadError(
            where,
            _("{field}: {value!r} is not a number").format(field=field_name, value=value),
            expected=expected,
        )
    return int(match.group(1))


def parse_nvidia_smi_xml(text: str, where: str = XML_FILE) -> GpuInventory:
    """`nvidia-smi -q -x` output → GpuInventory. Malformed or truncated XML is a ReadError with its line."""
    try:
        root = SafeET.fromstring(text)
    except ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise ReadError(
            where,
            _("not valid XML ({reason})").format(reason=exc.msg),
            line=line,
            expected=_("nvidia-smi -q -x output"),
        ) from None
    except DefusedXmlException as exc:
        raise ReadError(
            where,
            _("refused: {reason}").format(reason=exc),
            expected=_("nvidia-smi -q -x output without entities"),
        ) from None
    if root.tag != "nvidia_smi_log":
        raise ReadError(
            where,
            _("the document is <{tag}>").format(tag=root.tag),
            expected="<nvidia_smi_log> (nvidia-smi -q -x)",
        )
    elements = root.findall("gpu")
    attached = _number(_text(root, "attached_gpus"), where, "attached_gpus")
    if attached is not None and attached != len(elements):
        raise ReadError(
            where,
            _("attached_gpus says {attached} but the file describes {count} GPU(s): truncated?").format(
                attached=attached, count=len(elements)
            ),
        )
    gpus = []
    for position, node in enumerate(elements):
        label = f"gpu[{position}]"
        name = _text(node, "product_name")
        if name is None:
            raise ReadError(
                where, _("{gpu} has no product_name").format(gpu=label), expected="<product_name>"
            )
        minor = _text(node, "minor_number")
        link = "pci/pci_gpu_link_info"
        gpus.append(
            Gpu(
                index=int(minor) if minor is not None and minor.isdigit() else position,
                name=name,
                uuid=_text(node, "uuid"),
                bus_id=node.get("id") or _text(node, "pci/pci_bus_id"),
                memory_total_mib=_number(
                    _text(node, "fb_memory_usage/total"), where, f"{label} fb_memory_usage/total", "MiB"
                ),
                pcie_gen_current=_number(
                    _text(node, f"{link}/pcie_gen/current_link_gen"), where, f"{label} current_link_gen"
                ),
                pcie_gen_max=_number(
                    _text(node, f"{link}/pcie_gen/max_link_gen"), where, f"{label} max_link_gen"
                ),
                pcie_width_current=_number(
                    _text(node, f"{link}/link_widths/current_link_width"),
                    where,
                    f"{label} current_link_width",
                    "x",
                ),
                pcie_width_max=_number(
                    _text(node, f"{link}/link_widths/max_link_width"), where, f"{label} max_link_width", "x"
                ),
            )
        )
    return GpuInventory(
        gpus=tuple(gpus),
        driver_version=_text(root, "driver_version"),
        cuda_version=_text(root, "cuda_version"),
        read_with="nvidia-smi -q -x",
    )


# -- nvidia-smi nvlink -s -----------------------------------------------------------------------------------

_GPU_LINE = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: ([^)]*)\))?\s*$")
_LINK_LINE = re.compile(r"^\s+Link (\d+): (?:([0-9.]+) GB/s|<inactive>)\s*$")


def parse_nvlink_status(text: str, where: str = NVLINK_FILE) -> dict[int, tuple[NvLink, ...]]:
    """`nvidia-smi nvlink -s` → links per GPU index. A line that is neither a GPU nor a link line is a
    ReadError with its number (except blank lines and nvidia-smi's 'NVML' notes)."""
    links: dict[int, list[NvLink]] = {}
    current: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        gpu = _GPU_LINE.match(line)
        if gpu:
            current = int(gpu.group(1))
            links.setdefault(current, [])
            continue
        link = _LINK_LINE.match(line)
        if link and current is not None:
            speed = float(link.group(2)) if link.group(2) else None
            links[current].append(
                NvLink(int(link.group(1)), active=speed is not None and speed > 0, speed_gbytes_s=speed)
            )
            continue
        raise ReadError(
            where,
            _("unexpected line {line!r}").format(line=line.strip()[:80]),
            line=number,
            expected="'GPU N: NAME (UUID: …)' or '\\tLink N: S GB/s' / '<inactive>'",
        )
    return {gpu: tuple(items) for gpu, items in links.items()}


# -- NVML ---------------------------------------------------------------------------------------------------

_REMOTE_TYPES = {0: "gpu", 1: "ibmnpu", 2: "switch"}


def read_nvml() -> GpuInventory:
    """The GPUs through NVML (nvidia-ml-py). Unavailable when the library or the driver is missing."""
    try:
        import pynvml  # nvidia-ml-py, the optional `accept` extra
    except ImportError:
        raise Unavailable(_(NVML_HINT)) from None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        raise Unavailable(_("NVML could not start: {reason}").format(reason=exc)) from None
    try:
        driver = pynvml.nvmlSystemGetDriverVersion()
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)

            def ask(function: str, *args: Any, device: Any = handle) -> Any:
                try:
                    return getattr(pynvml, function)(device, *args)
                except (pynvml.NVMLError, AttributeError):
                    return None

            links = []
            for link in range(getattr(pynvml, "NVML_NVLINK_MAX_LINKS", 18)):
                state = ask("nvmlDeviceGetNvLinkState", link)
                if state is None:
                    continue
                remote = ask("nvmlDeviceGetNvLinkRemoteDeviceType", link)
                links.append(
                    NvLink(
                        link,
                        active=bool(state),
                        version=ask("nvmlDeviceGetNvLinkVersion", link),
                        remote=_REMOTE_TYPES.get(remote) if isinstance(remote, int) else None,
                    )
                )
            memory = ask("nvmlDeviceGetMemoryInfo")
            pci = ask("nvmlDeviceGetPciInfo")
            name = pynvml.nvmlDeviceGetName(handle)
            gpus.append(
                Gpu(
                    index=index,
                    name=name.decode() if isinstance(name, bytes) else str(name),
                    uuid=_str(ask("nvmlDeviceGetUUID")),
                    bus_id=_str(getattr(pci, "busId", None)),
                    memory_total_mib=int(memory.total // (1024 * 1024)) if memory is not None else None,
                    pcie_gen_current=ask("nvmlDeviceGetCurrPcieLinkGeneration"),
                    pcie_gen_max=ask("nvmlDeviceGetMaxPcieLinkGeneration"),
                    pcie_width_current=ask("nvmlDeviceGetCurrPcieLinkWidth"),
                    pcie_width_max=ask("nvmlDeviceGetMaxPcieLinkWidth"),
                    nvlinks=tuple(links),
                )
            )
        return GpuInventory(tuple(gpus), driver_version=_str(driver), read_with="NVML (nvidia-ml-py)")
    except pynvml.NVMLError as exc:
        raise Unavailable(f"NVML: {exc}") from None
    finally:
        with contextlib.suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()


def _str(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


# -- the reader ---------------------------------------------------------------------------------------------


def _merge_speeds(inventory: GpuInventory, status: dict[int, tuple[NvLink, ...]]) -> GpuInventory:
    """Per-link speeds from `nvidia-smi nvlink -s` over what NVML or the XML said (XML lists no links)."""
    gpus = []
    for gpu in inventory.gpus:
        listed = status.get(gpu.index)
        if listed is None:
            gpus.append(gpu)
            continue
        known = {link.link: link for link in gpu.nvlinks}
        merged = []
        for link in listed:
            before = known.get(link.link)
            merged.append(
                link
                if before is None
                else replace(before, active=link.active, speed_gbytes_s=link.speed_gbytes_s)
            )
        gpus.append(replace(gpu, nvlinks=tuple(merged)))
    return replace(inventory, gpus=tuple(gpus))


def read_gpus(machine: Machine, *, use_nvml: bool = True) -> GpuFacts:
    """NVML first (live only), else `nvidia-smi -q -x`; then NVLink speeds from `nvidia-smi nvlink -s`."""
    readings: list[Reading] = []
    inventory: GpuInventory | None = None
    if machine.live and use_nvml:
        try:
            inventory = read_nvml()
            readings.append(Reading("gpus", "NVML (nvidia-ml-py)", "library", "read"))
        except Unavailable as exc:
            readings.append(Reading("gpus", "NVML (nvidia-ml-py)", "library", "not read", reason=str(exc)))
    recording = getattr(machine, "record_dir", None) is not None
    if inventory is None or recording:
        try:
            text = machine.run(["nvidia-smi", "-q", "-x"], record_as=XML_FILE)
            parsed = parse_nvidia_smi_xml(text, machine.shown(XML_FILE))
            inventory = inventory or parsed
            readings.append(
                Reading("gpus", "nvidia-smi -q -x", "command", "read", path=_path(machine, XML_FILE))
            )
        except Unavailable as exc:
            readings.append(Reading("gpus", "nvidia-smi -q -x", "command", "not read", reason=str(exc)))
    if inventory is not None:
        try:
            text = machine.run(["nvidia-smi", "nvlink", "-s"], record_as=NVLINK_FILE)
            inventory = _merge_speeds(inventory, parse_nvlink_status(text, machine.shown(NVLINK_FILE)))
            readings.append(
                Reading("nvlink", "nvidia-smi nvlink -s", "command", "read", path=_path(machine, NVLINK_FILE))
            )
        except Unavailable as exc:
            readings.append(Reading("nvlink", "nvidia-smi nvlink -s", "command", "not read", reason=str(exc)))
    return GpuFacts(inventory, tuple(readings))


def _path(machine: Machine, name: str) -> str | None:
    return None if machine.live else machine.shown(name)


def model_names(inventory: GpuInventory) -> Sequence[str]:
    return sorted({gpu.name for gpu in inventory.gpus})
