"""Training-needs profiles (`catalogs/needs/*.toml`): what the team wants to train, how, where it sits and
what it may spend. Versioned (`format_version = 1`); read with `load_needs`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from catalogs import _toml
from catalogs.errors import NeedsProfileError
from catalogs.facts import implausible
from catalogs.i18n import _, ngettext
from probes.files.filemodel import FileModel

NEEDS_FORMAT_VERSION = 1
Mode = Literal["pretrain", "full", "lora", "qlora"]
Strategy = Literal["dp", "zero1", "zero2", "zero3", "fsdp"]
Precision = Literal["bf16", "fp16", "fp32"]
Optimizer = Literal["adamw", "adam", "adamw-8bit", "sgd"]
OffloadDevice = Literal["none", "cpu", "nvme"]

EXAMPLE_NEEDS = Path(__file__).with_name("needs") / "example-70b-full.toml"  # the documents' 70B case


class ModelSpec(FileModel):
    params: float  # total parameters, e.g. 70e9
    architecture: Literal["dense", "moe"] = "dense"
    active_params: float | None = None  # MoE: parameters active per token
    layers: int | None = Field(default=None, ge=1, le=10_000)
    hidden_size: int | None = Field(default=None, ge=64, le=1_000_000)
    attention_heads: int | None = Field(default=None, ge=1, le=10_000)

    @field_validator("params", "active_params")
    @classmethod
    def _plausible_params(cls, value: float | None) -> float | None:
        if value is None:
            return None
        if value <= 0:
            raise implausible(
                _("a model has more than {value:g} parameters").format(value=value),
                _("a parameter count such as 70e9"),
            )
        if value < 1e6:
            raise implausible(
                _("{value:g} parameters is tiny; did you mean {value:g} billion ({value:g}e9)?").format(
                    value=value
                ),
                _("the full count, e.g. 70e9 for 70B"),
            )
        if value > 1e14:
            raise implausible(
                _("{value:g} parameters is implausible").format(value=value),
                _("a parameter count such as 70e9"),
            )
        return value

    @model_validator(mode="after")
    def _moe_consistent(self) -> ModelSpec:
        if self.active_params is not None and self.active_params > self.params:
            raise implausible(_("active_params cannot exceed params"), "active_params ≤ params")
        return self

    @property
    def compute_params(self) -> float:
        """Parameters doing work per token: the active ones for MoE, all of them for dense models."""
        return self.active_params if self.architecture == "moe" and self.active_params else self.params


class TrainingSpec(FileModel):
    mode: Mode = "full"
    precision: Precision = "bf16"  # bf16/fp16 = mixed precision with fp32 master weights
    optimizer: Optimizer = "adamw"
    strategy: Strategy = "zero3"
    tensor_parallel: int = Field(default=1, ge=1, le=1024)
    pipeline_parallel: int = Field(default=1, ge=1, le=1024)
    sequence_length: int = Field(default=4096, ge=1, le=10_000_000)
    micro_batch: int = Field(default=1, ge=1, le=100_000)
    activation_checkpointing: bool = True
    flash_attention: bool = True
    lora_fraction: float = Field(default=0.005, gt=0, le=1)  # trainable share of parameters under LoRA
    tokens_per_step: int | None = Field(default=None, ge=1)  # global batch in tokens per optimizer step
    target_step_seconds: float | None = Field(default=None, gt=0)
    comm_fraction: float = Field(default=0.5, gt=0, le=1)  # share of a step gradient sync may take
    mfu: float = Field(default=0.4, gt=0, le=1)  # model FLOPs utilisation assumed for step time
    # DeepSpeed ZeRO-Offload / ZeRO-Infinity: keep optimizer states (and gradients) or the parameters in host
    # memory ("cpu") or on local NVMe ("nvme") instead of GPU memory (see catalogs/sizing.py)
    offload_optimizer: OffloadDevice = "none"
    offload_params: OffloadDevice = "none"

    @model_validator(mode="after")
    def _offload_fits_strategy(self) -> TrainingSpec:
        if self.offload_optimizer != "none" and self.strategy == "dp":
            raise implausible(
                _("offload_optimizer needs a ZeRO strategy (ZeRO-Offload runs on ZeRO stages 1-3 or FSDP)"),
                _('strategy = "zero1", "zero2", "zero3" or "fsdp", or offload_optimizer = "none"'),
            )
        if self.offload_params != "none" and self.strategy not in ("zero3", "fsdp"):
            raise implausible(
                _(
                    "offload_params needs the parameters sharded (ZeRO-3 or FSDP; ZeRO-Infinity offloads them "
                    "only under stage 3)"
                ),
                _('strategy = "zero3" or "fsdp", or offload_params = "none"'),
            )
        return self


class ClusterSpec(FileModel):
    gpus_wanted: int | None = Field(default=None, ge=1, le=1_000_000)
    nodes_wanted: int | None = Field(default=None, ge=1, le=100_000)
    memory_reserve: float = Field(default=0.10, ge=0, lt=1)  # share of GPU memory kept free


class LocationSpec(FileModel):
    team: str | None = None  # where the team works, e.g. "Shanghai"
    data: str | None = None  # where the training data is
    vantage: str | None = None  # the LinkSummary vantage that stands for the team's office
    dataset_gb: float | None = Field(default=None, gt=0, le=1e9)  # the training data to move to the GPUs


CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]


class BudgetSpec(FileModel):
    """What the team may spend, and in which currency prices are compared.

    Prices are compared only within one currency: an offering priced in another currency is "price unknown"
    unless `exchange_rates` says what one unit of it is worth in `currency` (e.g. `CNY = 0.14` with
    `currency = "USD"`: 1 CNY = 0.14 USD). Rates are the team's own; linkvet fetches none."""

    gpu_hour_max: float | None = Field(default=None, gt=0)
    month_max: float | None = Field(default=None, gt=0)
    currency: CurrencyCode = "USD"
    exchange_rates: dict[CurrencyCode, Annotated[float, Field(gt=0)]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _no_rate_for_itself(self) -> BudgetSpec:
        if self.currency in self.exchange_rates:
            raise implausible(
                _("exchange_rates gives a rate for {currency}, the budget's own currency").format(
                    currency=self.currency
                ),
                _("rates for the other currencies only"),
            )
        return self

    def __hash__(self) -> int:  # frozen, but the rates are a dict: hash them as sorted pairs
        return hash(
            (self.gpu_hour_max, self.month_max, self.currency, tuple(sorted(self.exchange_rates.items())))
        )

    def in_budget_currency(self, amount: float, currency: str | None) -> float | None:
        """`amount` of `currency` in the budget's currency; None when the currency is not stated or no
        exchange rate for it is given."""
        if currency is None:
            return None
        if currency == self.currency:
            return amount
        rate = self.exchange_rates.get(currency)
        return None if rate is None else amount * rate


class NeedsProfile(FileModel):
    format_version: Literal[1] = 1
    name: str = "training needs"
    model: ModelSpec
    training: TrainingSpec = TrainingSpec()
    cluster: ClusterSpec = ClusterSpec()
    location: LocationSpec = LocationSpec()
    budget: BudgetSpec = BudgetSpec()
    notes: str | None = None


def parse_needs_text(text: str, path: Path | None = None) -> NeedsProfile:
    """Validate a needs profile's TOML text; a problem raises `NeedsProfileError` (file, line, field)."""

    raw = _toml.parse(text, path, NeedsProfileError)
    version = raw.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > NEEDS_FORMAT_VERSION:
        raise NeedsProfileError(
            _(
                "format_version {version} is newer than this linkvet understands (up to {known}); update linkvet"
            ).format(version=version, known=NEEDS_FORMAT_VERSION),
            path=path,
            field="format_version",
            expected=f"format_version = {NEEDS_FORMAT_VERSION}",
        )
    return validate_needs(raw, path, _toml.LineFinder(text))


def validate_needs(
    raw: dict[str, Any],
    path: Path | None = None,
    lines: Callable[[tuple[str | int, ...]], int | None] | None = None,
) -> NeedsProfile:
    """Validate a needs profile given as plain data; a problem raises `NeedsProfileError` naming the field."""
    try:
        return NeedsProfile.model_validate(raw)
    except ValidationError as exc:
        errors = _toml.validation_errors(
            exc, path, raw, lines or (lambda loc: None), NeedsProfile, NeedsProfileError
        )
        first = errors[0]
        message = first.message
        if len(errors) > 1:
            more = len(errors) - 1
            message = ngettext(
                "{problem} (and {n} more problem)", "{problem} (and {n} more problems)", more
            ).format(problem=first.message, n=more)
        raise NeedsProfileError(
            message,
            path=path,
            line=first.line,
            field=first.field,
            expected=first.expected,
        ) from exc


def load_needs(path: Path) -> NeedsProfile:
    """Read a needs profile file."""
    return parse_needs_text(_toml.read_text(path, NeedsProfileError, NeedsProfileError), path)
