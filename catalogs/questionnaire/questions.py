"""The questionnaire's questions: what linkvet asks a provider about its service, its regions and each
offering, in plain words, why each matters (from the source documents' reasoning: 000, 001, 003), its unit,
the answers allowed, and the catalog fact each answer becomes (an overlay key, `catalogs.overlay`).

The texts are gettext messages (domain `catalogs`): build the lists after choosing the language. Allowed
values are the catalog's own enumerated values and are never translated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from catalogs.facts import LINE_TYPES
from catalogs.gpus import default_gpu_reference
from catalogs.i18n import _
from catalogs.scoring.standing import CRITERION_FACTS

Kind = Literal["number", "integer", "yes-no", "choice", "choices", "text", "texts", "endpoints"]
Section = Literal["provider", "service", "region", "offering"]
YES_NO = ("yes", "no")
CURRENCIES = ("USD", "CNY", "EUR", "GBP", "HKD", "JPY", "SGD", "KRW", "TWD", "AUD", "CAD")


@dataclass(frozen=True, slots=True)
class Question:
    """One question. `path` is the fact's place in its table (`inter_node.fabric`, `price.gpu_hour`);
    `key(ident)` the overlay key its answer is written under."""

    section: Section
    path: str
    text: str
    why: str
    unit: str = ""
    kind: Kind = "text"
    allowed: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def key(self, ident: str | None = None) -> str:
        if self.section in ("provider", "service"):
            return f"{self.section}.{self.path}"
        return f"{self.section}[{ident}].{self.path}"

    @property
    def criteria(self) -> tuple[str, ...]:
        """The checklist criteria this answer feeds (what its place in `--needs` order depends on)."""
        path = f"{self.section}.{self.path}"
        return tuple(c for c, keys in CRITERION_FACTS.items() if path in keys)

    def allowed_text(self) -> str:
        if self.kind in ("choice", "yes-no"):
            return " / ".join(self.allowed)
        if self.kind == "choices":
            return _("one or more of {values}, separated by commas").format(values=", ".join(self.allowed))
        if self.kind in ("number", "integer"):
            low, high = _figure(self.minimum), _figure(self.maximum)
            if self.kind == "integer":
                return _("a whole number from {low} to {high}").format(low=low, high=high)
            return _("a number from {low} to {high}").format(low=low, high=high)
        if self.kind == "texts":
            return _("one or more, separated by commas")
        if self.kind == "endpoints":
            return _("IP addresses, host names, test-file or looking-glass URLs, separated by commas")
        return _("text")


def _figure(value: float | None) -> str:
    if value is None:
        return ""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def provider_questions() -> list[Question]:
    """The provider sheet: the service around the hardware (support, DDoS, delivery, billing)."""
    return [
        Question(
            "provider",
            "website",
            _("The provider's website"),
            _("Where buyers check the offer."),
            kind="text",
        ),
        Question(
            "service",
            "support_24x7",
            _("Is support available around the clock (24/7)?"),
            _(
                "Training runs for weeks: someone must answer at 3 a.m. (003: operations support and cluster stability)."
            ),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "service",
            "support_hours",
            _("Support hours and time zone, if not 24/7"),
            _("A failed node outside support hours stops the run until morning (003)."),
        ),
        Question(
            "service",
            "support_channels",
            _("Support channels (ticket, e-mail, phone, chat …)"),
            _("How fast a problem reaches an engineer (001: one-to-one support for complex clusters)."),
            kind="texts",
        ),
        Question(
            "service",
            "sla_uptime_percent",
            _("Uptime SLA"),
            _("An outage interrupts the training run; recovering from the last checkpoint costs days (000)."),
            unit="%",
            kind="number",
            minimum=90,
            maximum=100,
        ),
        Question(
            "service",
            "ddos_protection_gbit_s",
            _("DDoS protection capacity"),
            _("The documents cite terabit-class (T级) DDoS protection as part of a stable service (001)."),
            unit="Gbit/s",
            kind="number",
            minimum=0,
            maximum=100_000,
        ),
        Question(
            "service",
            "ddos_protection",
            _("DDoS protection in words (what is protected, how)"),
            _("The capacity alone does not say what is covered (001)."),
        ),
        Question(
            "service",
            "bmc_ipmi",
            _("Out-of-band management (BMC/IPMI) on every server?"),
            _("Power-cycle and console access when the OS hangs, without a ticket (001)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "service",
            "billing",
            _("Billing periods offered"),
            _("Budget and commitment (001: budget and delivery cycle)."),
            kind="choices",
            allowed=("hourly", "per-minute", "daily", "monthly", "yearly"),
        ),
        Question(
            "service",
            "delivery_days",
            _("Days from order to servers ready"),
            _("Training servers are heavy assets; delivery time decides when the project starts (001)."),
            unit=_("days"),
            kind="number",
            minimum=0,
            maximum=365,
        ),
        Question(
            "service",
            "scale_out",
            _("Can more servers be added on demand (scale-out)?"),
            _("Scaling beyond the first cluster without a new contract (001: elastic scale-out)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
    ]


def region_questions() -> list[Question]:
    """Per region: the line types sold there and addresses to test them."""
    return [
        Question(
            "region",
            "line_types",
            _("Line types to China in this region (CN2 GIA, BGP, CMI, 9929 …)"),
            _(
                "A team in China works over this line every day; CN2 GIA keeps latency and loss low at peak hours (000, 001)."
            ),
            kind="choices",
            allowed=LINE_TYPES,
        ),
        Question(
            "region",
            "endpoints",
            _("Test IPs, test-file URLs (e.g. …/100MB.test) or looking-glass addresses in this region"),
            _(
                "linkvet measures the line from your office to these addresses, above all at peak hours (001, 003)."
            ),
            kind="endpoints",
        ),
        Question(
            "region", "city", _("City of the data centre"), _("Distance and the route to China depend on it.")
        ),
    ]


def offering_questions(region_ids: Sequence[str] = ()) -> list[Question]:
    """Per offering: the hardware inside and between the nodes, storage, operations, price and capacity."""
    gpus = tuple(spec.id for spec in default_gpu_reference())
    return [
        Question(
            "offering",
            "gpu",
            _("GPU model"),
            _("Memory and compute per GPU decide whether the model fits (001)."),
            kind="choice",
            allowed=gpus,
        ),
        Question(
            "offering",
            "gpus_per_node",
            _("GPUs per server"),
            _("Fewer, larger nodes keep more traffic on NVLink instead of the network (003)."),
            kind="integer",
            minimum=1,
            maximum=72,
        ),
        Question(
            "offering",
            "gpu_memory_gb",
            _("Memory per GPU"),
            _("70B in BF16 needs about 140 GB before optimizer states (001)."),
            unit="GB",
            kind="number",
            minimum=1,
            maximum=1024,
        ),
        Question(
            "offering",
            "intra_node.kind",
            _("How the GPUs inside a server are connected"),
            _("PCIe-only servers should be avoided for training: under 128 GB/s between GPUs (003)."),
            kind="choice",
            allowed=("nvswitch", "nvlink", "pcie", "xgmi"),
        ),
        Question(
            "offering",
            "intra_node.bandwidth_gbytes_s",
            _("GPU-to-GPU bandwidth inside a server, per GPU"),
            _("NVLink 4 gives 900 GB/s per GPU; multi-GPU efficiency depends on it (003)."),
            unit="GB/s",
            kind="number",
            minimum=1,
            maximum=10_000,
        ),
        Question(
            "offering",
            "inter_node.fabric",
            _("Network between servers for training"),
            _("InfiniBand is the first choice for multi-node training; RoCE needs a lossless setup (003)."),
            kind="choice",
            allowed=("infiniband", "roce", "ethernet", "efa", "other"),
        ),
        Question(
            "offering",
            "inter_node.bandwidth_gbit_s",
            _("Training-network bandwidth per server, all ports together"),
            _(
                "Gradient sync between nodes runs at this speed; the scale tables ask 200–400 Gbit/s (000, 003)."
            ),
            unit="Gbit/s",
            kind="number",
            minimum=1,
            maximum=51_200,
        ),
        Question(
            "offering",
            "inter_node.rails",
            _("Training-network ports (rails) per server"),
            _("Rail-optimised fabrics give each GPU its own port (003)."),
            kind="integer",
            minimum=1,
            maximum=64,
        ),
        Question(
            "offering",
            "inter_node.rdma",
            _("RDMA enabled between servers?"),
            _("RDMA cuts latency and CPU load of gradient sync (000)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "offering",
            "inter_node.lossless",
            _("For RoCE: configured lossless (PFC/ECN)?"),
            _("RoCE without a lossless configuration loses its advantage (003)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "offering",
            "inter_node.upgrade_path",
            _("Upgrade path of the training network (e.g. 100G → 400G)"),
            _("Plan for bandwidth upgrades as the job grows (000)."),
        ),
        Question(
            "offering",
            "storage.local_nvme_tb",
            _("Local NVMe per server"),
            _("A fast local cache keeps GPUs from waiting for data (001)."),
            unit="TB",
            kind="number",
            minimum=0,
            maximum=1000,
        ),
        Question(
            "offering",
            "storage.shared_fs",
            _("Shared file system (Lustre, GPFS, NAS, NFS, none)"),
            _("Datasets and checkpoints for many nodes (001: Lustre or fast NAS)."),
        ),
        Question(
            "offering",
            "storage.parallel_fs",
            _("Is the shared file system a parallel one (Lustre, GPFS …)?"),
            _("Checkpoints of a large model are written by every node at once (000)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "offering",
            "storage.network_gbit_s",
            _("Storage / management network per server"),
            _("At least 10 Gbit/s to storage and management (001)."),
            unit="Gbit/s",
            kind="number",
            minimum=0.1,
            maximum=51_200,
        ),
        Question(
            "offering",
            "management_network_separate",
            _("Is the management network physically separate from the training network?"),
            _("Management and training networks should be physically apart (000)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "offering",
            "bmc_ipmi",
            _("BMC/IPMI on this server?"),
            _("Remote power and console when the system has crashed (001)."),
            kind="yes-no",
            allowed=YES_NO,
        ),
        Question(
            "offering",
            "power_redundancy",
            _("Power redundancy"),
            _("Weeks of full load need redundant power (001)."),
            kind="choice",
            allowed=("2N", "N+1", "N"),
        ),
        Question(
            "offering",
            "cooling",
            _("Cooling"),
            _("GPUs that run hot throttle or fail; 100B+ clusters may need liquid cooling (001)."),
            kind="choice",
            allowed=("air", "liquid", "hybrid"),
        ),
        Question(
            "offering",
            "price.gpu_hour",
            _("Price per GPU-hour"),
            _("The budget (001); linkvet turns any listed price into a price per GPU-hour."),
            unit=_("per GPU-hour"),
            kind="number",
            minimum=0.0001,
            maximum=500,
        ),
        Question(
            "offering",
            "price.node_month",
            _("Price per server per month"),
            _("Monthly rentals are how most dedicated servers are sold (001)."),
            unit=_("per server-month"),
            kind="number",
            minimum=0.01,
            maximum=10_000_000,
        ),
        Question(
            "offering",
            "currency",
            _("Currency of the prices"),
            _("Prices are compared in the budget's currency."),
            kind="choice",
            allowed=CURRENCIES,
        ),
        Question(
            "offering",
            "min_term_days",
            _("Minimum rental term"),
            _("A proof of concept first, then the long run (003: test scaling on a small cluster first)."),
            unit=_("days"),
            kind="number",
            minimum=0,
            maximum=3650,
        ),
        Question(
            "offering",
            "max_gpus",
            _("How many GPUs of this kind can be rented together (one cluster)"),
            _("The job needs its whole GPU count at once (003)."),
            kind="integer",
            minimum=1,
            maximum=1_000_000,
        ),
        Question(
            "offering",
            "regions",
            _("Regions where this server is offered"),
            _("The line to the team depends on the region (001)."),
            kind="choices",
            allowed=tuple(region_ids),
        ),
    ]
