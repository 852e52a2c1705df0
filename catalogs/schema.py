"""The shape of a provider catalog file (`catalogs/providers/*.toml`), validated with pydantic.

One file per provider::

    format_version = 1
    [provider]   id, name, website, source, as_of
    [service]    support, SLA, DDoS protection, BMC/IPMI, billing, delivery time, scale-out (all optional)
    [[regions]]  id, city, country, line_types (as the vendor claims them), endpoints (probe targets)
    [[offerings]] GPU, GPUs per node, intra-node interconnect, inter-node fabric, storage, power, cooling,
                  prices, minimum term, regions where offered

Every fact is optional unless it identifies something: a fact the source does not state is left out and
read as unknown (`None`), never as false. Implausible numbers (a unit slip such as VRAM 80000 "GB") are
rejected with a message that says what was probably meant.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from catalogs.facts import (
    MAX_GPU_MEMORY_GB,
    MAX_GPUS_PER_NODE,
    AsOf,
    HostName,
    Provenance,
    Slug,
    Sourced,
    SourcedTable,
    Text,
    WebUrl,
    implausible,
)
from catalogs.i18n import _

FORMAT_VERSION = 1

LineType = Literal[
    "cn2-gia", "cn2-gt", "bgp", "cmi", "cu-9929", "cu-4837", "163", "standard", "local", "unknown"
]
EndpointKind = Literal["ping", "tcp", "http", "http_file", "looking_glass", "iperf3"]
IntraNodeKind = Literal["nvswitch", "nvlink", "pcie", "xgmi"]
Fabric = Literal["infiniband", "roce", "ethernet", "efa", "other"]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
Country = Annotated[str, Field(pattern=r"^[A-Z]{2}$")]


def _positive(value: float | None) -> None:
    if value is not None and value <= 0:
        raise implausible(
            _("must be greater than 0, not {value}").format(value=value), _("a number greater than 0")
        )


class Endpoint(Sourced):
    """A public address in a region that linkvet can probe (or, for `looking_glass`, a page for humans)."""

    kind: EndpointKind
    host: HostName | None = None
    url: WebUrl | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    line_type: LineType | None = None  # the line this address sits on, when the vendor says
    note: str | None = None

    @model_validator(mode="after")
    def _has_address(self) -> Endpoint:
        if self.kind in ("ping", "iperf3") and not self.host:
            raise implausible(
                _("a {kind} endpoint needs `host`").format(kind=self.kind), _('host = "name or IP address"')
            )
        if self.kind == "tcp" and not (self.host and self.port):
            raise implausible(_("a tcp endpoint needs `host` and `port`"), _("host and port, e.g. port = 22"))
        if self.kind in ("http", "http_file", "looking_glass") and not self.url:
            raise implausible(_("a {kind} endpoint needs `url`").format(kind=self.kind), 'url = "https://…"')
        return self


class Region(SourcedTable):
    id: Slug
    name: str | None = None  # the vendor's own label, e.g. "East Coast (NY2)"
    city: str | None = None
    country: Country | None = None
    line_types: tuple[LineType, ...] = ()  # as the vendor claims them; empty = nothing claimed
    endpoints: tuple[Endpoint, ...] = ()
    notes: str | None = None


class IntraNode(Sourced):
    """How the GPUs inside one node talk to each other."""

    kind: IntraNodeKind
    bandwidth_gbytes_s: float | None = None  # per GPU, bidirectional, GB/s (as NVIDIA quotes NVLink)
    note: str | None = None

    @field_validator("bandwidth_gbytes_s")
    @classmethod
    def _plausible_bandwidth(cls, value: float | None) -> float | None:
        _positive(value)
        if value is not None and value > 10_000:
            raise implausible(
                _(
                    "{value:g} GB/s per GPU is more than any GPU link (NVLink 5 is 1800 GB/s); "
                    "is it in MB/s or Gbit/s?"
                ).format(value=value),
                _("GB/s per GPU, e.g. 900 for NVLink 4"),
            )
        return value


class InterNode(Sourced):
    """The training fabric between nodes."""

    fabric: Fabric
    bandwidth_gbit_s: float | None = None  # per node, all rails together, Gbit/s
    rails: int | None = Field(default=None, ge=1, le=64)
    rdma: bool | None = None
    lossless: bool | None = None  # PFC/ECN configured (matters for RoCE)
    upgrade_path: str | None = None  # e.g. "100G → 400G"
    note: str | None = None

    @field_validator("bandwidth_gbit_s")
    @classmethod
    def _plausible_bandwidth(cls, value: float | None) -> float | None:
        _positive(value)
        if value is not None and value > 51_200:
            raise implausible(
                _(
                    "{value:g} Gbit/s per node is more than 64 rails of 800G; is it in Mbit/s ({gbit:g} Gbit/s)?"
                ).format(value=value, gbit=value / 1000),
                _("Gbit/s per node, e.g. 3200 for 8 × 400G"),
            )
        return value


class Storage(Sourced):
    local_nvme_tb: float | None = None  # per node, TB
    shared_fs: str | None = None  # e.g. "Lustre", "NAS", "NFS", "none"
    parallel_fs: bool | None = None  # a parallel file system (Lustre, GPFS, …) rather than NAS/NFS
    network_gbit_s: float | None = None  # storage / management NIC per node, Gbit/s
    note: str | None = None

    @field_validator("local_nvme_tb")
    @classmethod
    def _plausible_nvme(cls, value: float | None) -> float | None:
        if value is not None and value < 0:
            raise implausible(
                _("local NVMe cannot be negative ({value})").format(value=value), _("TB per node, 0 or more")
            )
        if value is not None and value > 1000:
            raise implausible(
                _("{value:g} TB of local NVMe per node is implausible; is it in GB ({tb:g} TB)?").format(
                    value=value, tb=value / 1000
                ),
                _("TB per node, e.g. 30.72"),
            )
        return value

    @field_validator("network_gbit_s")
    @classmethod
    def _plausible_network(cls, value: float | None) -> float | None:
        _positive(value)
        if value is not None and value > 51_200:
            raise implausible(
                _("{value:g} Gbit/s is implausible; is it in Mbit/s?").format(value=value),
                _("Gbit/s per node, e.g. 100"),
            )
        return value


class Price(Sourced):
    """A price. Give what the source gives (per GPU-hour, per node-hour or per node-month); linkvet derives
    the others from GPUs per node and 730 hours a month (`catalogs.prices`, the one place the rule is
    written), and says that it did."""

    region: Slug | None = None  # None: the same in every region of the offering
    gpu_hour: float | None = None
    node_hour: float | None = None
    node_month: float | None = None
    spot_node_hour: float | None = None
    currency: Currency | None = None  # None: the offering's currency
    covers: Literal["node", "gpus-only"] = "node"  # gpus-only: host VM/CPU/RAM are billed on top
    note: str | None = None

    @field_validator("gpu_hour", "node_hour", "node_month", "spot_node_hour")
    @classmethod
    def _positive_price(cls, value: float | None) -> float | None:
        if value is not None and value < 0:
            raise implausible(
                _("a price cannot be negative ({value})").format(value=value), _("a price greater than 0")
            )
        if value is not None and value == 0:
            raise implausible(
                _(
                    "a price of 0 is not a price: a free offering is not something to rent (leave the price out "
                    "if the source does not state it)"
                ),
                _("a price greater than 0"),
            )
        return value

    @model_validator(mode="after")
    def _plausible(self) -> Price:
        if self.gpu_hour is None and self.node_hour is None and self.node_month is None:
            raise implausible(_("a price needs gpu_hour, node_hour or node_month"), _("at least one of them"))
        if self.gpu_hour is not None and self.gpu_hour > 500:
            raise implausible(
                _("{value:g} per GPU-hour is implausible; is it a monthly or per-node price?").format(
                    value=self.gpu_hour
                ),
                _("price per GPU per hour, e.g. 2.49 (use node_month for monthly prices)"),
            )
        if self.node_hour is not None and self.node_hour > 5000:
            raise implausible(
                _("{value:g} per node-hour is implausible; is it a monthly price?").format(
                    value=self.node_hour
                ),
                _("price per node per hour (use node_month for monthly prices)"),
            )
        return self


class Offering(SourcedTable):
    """A server or instance type a provider rents out."""

    id: Slug
    name: str | None = None
    gpu: Text | None = None  # a GPU reference id, alias or family; None = not stated
    gpus_per_node: int | None = None
    gpu_memory_gb: float | None = None  # per GPU, when the source states it (else the GPU reference's)
    intra_node: IntraNode | None = None
    inter_node: InterNode | None = None
    max_nodes: int | None = Field(default=None, ge=1, le=100_000)
    max_gpus: int | None = Field(default=None, ge=1, le=1_000_000)  # largest cluster offered, in GPUs
    cpu: str | None = None
    vcpus: int | None = Field(default=None, ge=1, le=4096)
    ram_gib: float | None = None
    storage: Storage | None = None
    management_network_separate: bool | None = None
    bmc_ipmi: bool | None = None
    power_redundancy: Literal["2N", "N+1", "N"] | None = None
    cooling: Literal["air", "liquid", "hybrid"] | None = None
    currency: Currency | None = None
    prices: tuple[Price, ...] = ()
    min_term_days: float | None = Field(default=None, ge=0, le=3650)  # the shortest rental, in days
    regions: tuple[Slug, ...] = ()  # region ids of this provider; empty = the source does not say where
    notes: str | None = None

    @field_validator("gpus_per_node")
    @classmethod
    def _plausible_gpu_count(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise implausible(
                _("a node has at least one GPU, not {value}").format(value=value),
                _("a whole number from 1 to {high}").format(high=MAX_GPUS_PER_NODE),
            )
        if value is not None and value > MAX_GPUS_PER_NODE:
            raise implausible(
                _(
                    "{value} GPUs in one node is more than any node holds (NVL72 racks have 72); "
                    "is it the cluster total? Put the node count in max_nodes"
                ).format(value=value),
                _("GPUs in one node, from 1 to {high}").format(high=MAX_GPUS_PER_NODE),
            )
        return value

    @field_validator("gpu_memory_gb")
    @classmethod
    def _plausible_gpu_memory(cls, value: float | None) -> float | None:
        _positive(value)
        if value is not None and value > MAX_GPU_MEMORY_GB:
            raise implausible(
                _(
                    "{value:g} GB per GPU is implausible (the largest GPUs have under 300 GB); is it in MB or "
                    "MiB (≈ {gib:.0f} GiB)?"
                ).format(value=value, gib=value / 1024),
                _("GB per GPU, e.g. 80"),
            )
        return value

    @field_validator("ram_gib")
    @classmethod
    def _plausible_ram(cls, value: float | None) -> float | None:
        _positive(value)
        if value is not None and value > 65_536:
            raise implausible(
                _("{value:g} GiB of RAM per node is implausible; is it in MiB (≈ {gib:.0f} GiB)?").format(
                    value=value, gib=value / 1024
                ),
                _("GiB per node, e.g. 2048"),
            )
        return value

    def prices_for(self, region: str | None) -> tuple[Price, ...]:
        """The prices that apply in `region` (region-specific ones, else those for every region)."""
        specific = tuple(p for p in self.prices if p.region is not None and p.region == region)
        return specific or tuple(p for p in self.prices if p.region is None)

    def fact(self, path: str) -> Provenance:
        """Provenance of a fact given as `field` or `table.field` (e.g. "inter_node.fabric")."""
        own = self.provenance(path.split(".", 1)[0])
        if "." in path:
            table_name, field = path.split(".", 1)
            table = getattr(self, table_name, None)
            if isinstance(table, Sourced):
                return table.provenance(field, own)
        return own


class Service(SourcedTable):
    """What the provider promises around the hardware."""

    support_hours: str | None = None  # e.g. "24/7", "business hours (UTC-8)"
    support_24x7: bool | None = None
    support_channels: tuple[str, ...] = ()
    sla_uptime_percent: float | None = None
    ddos_protection_gbit_s: float | None = None
    ddos_protection: str | None = None  # the claim in words
    bmc_ipmi: bool | None = None  # out-of-band management for every offering unless an offering says
    billing: tuple[str, ...] = ()  # e.g. "hourly", "monthly", "per-minute"
    delivery_days: float | None = Field(default=None, ge=0, le=365)
    scale_out: bool | None = None  # the provider claims on-demand scale-out
    notes: str | None = None

    @field_validator("sla_uptime_percent")
    @classmethod
    def _plausible_sla(cls, value: float | None) -> float | None:
        if value is not None and 0 < value <= 1:
            raise implausible(
                _("{value:g} looks like a fraction; write the SLA in percent (e.g. {percent:g})").format(
                    value=value, percent=value * 100
                ),
                _("a percentage such as 99.9"),
            )
        if value is not None and not 0 < value <= 100:
            raise implausible(
                _("{value:g} is not a percentage").format(value=value), _("a percentage such as 99.9")
            )
        return value

    @field_validator("ddos_protection_gbit_s")
    @classmethod
    def _plausible_ddos(cls, value: float | None) -> float | None:
        if value is not None and value < 0:
            raise implausible(
                _("DDoS protection cannot be negative ({value})").format(value=value), _("Gbit/s, 0 or more")
            )
        if value is not None and value > 100_000:
            raise implausible(
                _("{value:g} Gbit/s is implausible; is it in Mbit/s?").format(value=value),
                _("Gbit/s, e.g. 1000 for 1 Tbit/s"),
            )
        return value


class Provider(SourcedTable):
    id: Slug
    name: Text
    website: WebUrl | None = None
    notes: str | None = None


class CatalogFile(BaseModel):
    """A whole provider catalog file."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    format_version: Literal[1]
    provider: Provider
    service: Service | None = None
    regions: tuple[Region, ...] = ()
    offerings: tuple[Offering, ...] = ()


__all__ = [
    "FORMAT_VERSION",
    "AsOf",
    "CatalogFile",
    "Endpoint",
    "InterNode",
    "IntraNode",
    "Offering",
    "Price",
    "Provider",
    "Region",
    "Service",
    "Storage",
]
