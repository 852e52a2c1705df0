"""Training-needs sizing: GPU memory per GPU under each parallel strategy, the smallest GPU count that fits,
whether the job must span nodes, gradient traffic per step, and the inter-node bandwidth that traffic
implies for a step time.

Units: bytes in the arithmetic, GB (10^9 bytes) in results, Gbit/s for network rates.

Sources of the formulas (each function's docstring says which one it uses):

* ZeRO — Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models" (SC20,
  arXiv:1910.02054), §3 and Fig. 1: mixed-precision Adam keeps 2Ψ (fp16/bf16 weights) + 2Ψ (gradients) +
  KΨ with K = 12 (fp32 master weights, momentum, variance) = 16Ψ bytes; stage 1 shards the optimizer
  states, stage 2 also the gradients, stage 3 also the weights, over the N_d data-parallel ranks; §7:
  stages 1–2 move 2Ψ per step like plain data parallelism, stage 3 moves 3Ψ (1.5×). PyTorch FSDP's full
  sharding is ZeRO-3's scheme (Zhao et al., "PyTorch FSDP", VLDB 2023).
* LoRA — Hu et al., arXiv:2106.09685: base weights frozen, only small low-rank adapters trained (we take
  `lora_fraction` of the parameters as trainable, 0.5 % by default). QLoRA — Dettmers et al.,
  arXiv:2305.14314, §3: frozen base in 4-bit NormalFloat with double quantization, ≈ 0.5 bytes + 0.127
  bits of quantization constants per parameter.
* 8-bit optimizers — Dettmers et al., arXiv:2110.02861: Adam's two states in 1 byte each.
* Activations — Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models"
  (arXiv:2205.05198), §4: one transformer layer stores s·b·h·(34 + 5·a·s/h) bytes in 16-bit training,
  divided by the tensor-parallel degree t with sequence parallelism; with full recomputation only each
  layer's input, 2·s·b·h bytes, is kept; FlashAttention (Dao et al., arXiv:2205.14135) does not store the
  a·s² attention matrix, which removes the 5·a·s/h term; with pipeline parallelism (1F1B) the first stage
  holds activations for about all L layers' worth.
* Ring all-reduce — each rank sends 2(N−1)/N × the buffer size (Patarasuk & Yuan, "Bandwidth optimal
  all-reduce algorithms", JPDC 2009; NCCL-tests doc/PERFORMANCE.md "bus bandwidth"). Every GPU of a node
  that holds a different model-parallel shard is a rank of a different data-parallel group, and each group
  runs its own all-reduce of its own shard's gradients across the nodes; the node's inter-node links carry
  all of them (see `sync_bytes_per_step` for the derivation).
* Step time — training compute ≈ 6 × parameters × tokens FLOPs (Kaplan et al., arXiv:2001.08361, §2.1;
  for MoE the active parameters), at a model FLOPs utilisation (Chowdhery et al., PaLM, arXiv:2204.02311,
  §4.1; 0.4 by default). LoRA skips weight gradients: ≈ 4 × parameters × tokens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from catalogs.checklist import ScaleRow
from catalogs.errors import SizingError
from catalogs.facts import MAX_GPU_MEMORY_GB, MAX_GPUS_PER_NODE
from catalogs.i18n import _, items, ngettext
from catalogs.needs import NeedsProfile

GB = 1e9
QLORA_BYTES_PER_PARAM = 0.5 + 0.127 / 8  # 4-bit NF4 + double-quantized constants (QLoRA §3)
_OPTIMIZER_STATE_BYTES = {"adamw": 8.0, "adam": 8.0, "adamw-8bit": 2.0, "sgd": 4.0}
HEAD_DIM = 128  # used only to estimate a model's shape when the profile does not give it


@dataclass(frozen=True, slots=True)
class StateBytes:
    """Bytes per parameter for weights, gradients and optimizer states (incl. fp32 master weights)."""

    weights: float
    gradients: float
    optimizer: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer


def state_bytes_per_param(precision: str, optimizer: str) -> StateBytes:
    """Bytes per trained parameter (ZeRO §3): bf16/fp16 mixed precision with Adam = 2 + 2 + 12 = 16."""
    states = _OPTIMIZER_STATE_BYTES[optimizer]
    if precision == "fp32":
        return StateBytes(4.0, 4.0, states)
    return StateBytes(2.0, 2.0, 4.0 + states)  # fp32 master copy + optimizer states


def weights_gb(params: float, precision: str = "bf16") -> float:
    """Memory for the weights alone: 2 bytes per parameter in bf16/fp16, 4 in fp32 (70B bf16 ≈ 140 GB)."""
    return params * (4.0 if precision == "fp32" else 2.0) / GB


@dataclass(frozen=True, slots=True)
class ModelShape:
    layers: int
    hidden_size: int
    attention_heads: int
    estimated: bool


def model_shape(needs: NeedsProfile) -> ModelShape:
    """Layers, hidden size and heads: as given, else estimated from 12·L·h² ≈ parameters (the transformer
    count without embeddings, Kaplan et al. §2.1) with h = 128·L (Llama-like aspect: 7B → 32 × 4096)."""
    model = needs.model
    if model.layers and model.hidden_size:
        heads = model.attention_heads or max(1, model.hidden_size // HEAD_DIM)
        return ModelShape(model.layers, model.hidden_size, heads, False)
    params = model.compute_params
    layers = max(1, round((params / (12 * HEAD_DIM**2)) ** (1 / 3)))
    hidden = model.hidden_size or HEAD_DIM * layers
    layers = model.layers or max(1, round(params / (12 * hidden**2)))
    return ModelShape(layers, hidden, model.attention_heads or max(1, hidden // HEAD_DIM), True)


def activations_gb(needs: NeedsProfile) -> float:
    """Activation memory per GPU (Korthikanti et al. §4), in GB."""
    t = needs.training
    shape = model_shape(needs)
    s, b, h, a = t.sequence_length, t.micro_batch, shape.hidden_size, shape.attention_heads
    attention_term = 0.0 if t.flash_attention else 5 * a * s / h
    per_layer_full = s * b * h * (34 + attention_term)
    if t.activation_checkpointing:
        total = 2 * s * b * h * shape.layers + per_layer_full  # kept inputs + one layer being recomputed
    else:
        total = per_layer_full * shape.layers
    return total / t.tensor_parallel / GB


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Memory one GPU needs, in GB."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float

    @property
    def total_gb(self) -> float:
        return self.weights_gb + self.gradients_gb + self.optimizer_gb + self.activations_gb


def _check_parallel(needs: NeedsProfile, n_gpus: int) -> int:
    model_parallel = needs.training.tensor_parallel * needs.training.pipeline_parallel
    if n_gpus < 1:
        raise SizingError(_("need at least one GPU, not {n}").format(n=n_gpus))
    if n_gpus % model_parallel:
        raise SizingError(
            _("{n} GPUs cannot be split into tensor × pipeline parallel groups of {size}").format(
                n=n_gpus, size=model_parallel
            )
        )
    return n_gpus // model_parallel


def trainable_params(needs: NeedsProfile) -> float:
    """Parameters that get gradients: all of them, or the LoRA adapters' share."""
    if needs.training.mode in ("lora", "qlora"):
        return needs.model.params * needs.training.lora_fraction
    return needs.model.params


def checkpoint_gb(needs: NeedsProfile) -> float:
    """One training checkpoint (GB): the trained parameters' weights and optimizer states, the fp32 master
    copy included (ZeRO §3: a resumable checkpoint holds the model states without the gradients, 2Ψ + 12Ψ =
    14Ψ bytes for bf16 Adam; DeepSpeed's ZeRO checkpoints hold exactly these). A LoRA checkpoint is the
    adapters and their states alone: the frozen base is moved once, as the weights (`weights_gb`)."""
    states = state_bytes_per_param(needs.training.precision, needs.training.optimizer)
    return trainable_params(needs) * (states.weights + states.optimizer) / GB


def _sharded_states(needs: NeedsProfile, n_gpus: int) -> tuple[float, float, float]:
    """Bytes of weights, gradients and optimizer states one GPU is responsible for, as the strategy shards
    them (before any offload)."""
    t = needs.training
    dp = _check_parallel(needs, n_gpus)
    shard = t.tensor_parallel * t.pipeline_parallel
    states = state_bytes_per_param(t.precision, t.optimizer)
    trained = trainable_params(needs) / shard
    if t.mode in ("lora", "qlora"):
        frozen_bytes = QLORA_BYTES_PER_PARAM if t.mode == "qlora" else (4.0 if t.precision == "fp32" else 2.0)
        frozen = needs.model.params / shard * frozen_bytes
        weights = trained * states.weights + frozen
    else:
        weights = trained * states.weights
    gradients = trained * states.gradients
    optimizer = trained * states.optimizer
    if t.strategy in ("zero1", "zero2", "zero3", "fsdp"):
        optimizer /= dp
    if t.strategy in ("zero2", "zero3", "fsdp"):
        gradients /= dp
    if t.strategy in ("zero3", "fsdp"):
        weights /= dp
    return weights, gradients, optimizer


def _param_working_set(needs: NeedsProfile) -> float:
    """Bytes of parameters a GPU holds while its parameters live off the GPU (ZeRO-Infinity): the layer
    being computed and the one being prefetched, unsharded (Rajbhandari et al. 2021, §5)."""
    t = needs.training
    per_param = 4.0 if t.precision == "fp32" else 2.0
    layers = model_shape(needs).layers
    return 2 * needs.model.params / (t.tensor_parallel * t.pipeline_parallel) / max(1, layers) * per_param


def memory_per_gpu(needs: NeedsProfile, n_gpus: int) -> MemoryBreakdown:
    """Per-GPU memory for `n_gpus` GPUs under the profile's strategy (ZeRO §3, LoRA, QLoRA; see module doc).

    With Ψ' = Ψ / (tensor × pipeline degree) parameters per model-parallel shard and N_d data-parallel ranks:
    dp: 16Ψ'; zero1: 4Ψ' + 12Ψ'/N_d; zero2: 2Ψ' + 14Ψ'/N_d; zero3/fsdp: 16Ψ'/N_d (bf16 + Adam).
    LoRA/QLoRA: frozen weights (2 or ≈0.516 bytes/param, sharded only under zero3/fsdp) plus full training
    states for the trainable share.

    Offload (`offload_optimizer`, `offload_params`): ZeRO-Offload (Ren et al., arXiv:2101.06840, §4) keeps
    the fp32 optimizer states and master weights *and* the gradients in host memory (the optimizer step runs
    on the CPU), so only the 16-bit parameters stay on the GPU; ZeRO-Infinity (Rajbhandari et al.,
    arXiv:2104.07857, §5) also moves the parameters (to CPU or NVMe), leaving a working set of about two
    layers on the GPU. What leaves the GPU is in `offloaded_gb_per_gpu`."""
    t = needs.training
    weights, gradients, optimizer = _sharded_states(needs, n_gpus)
    if t.offload_optimizer != "none":
        gradients = optimizer = 0.0
    if t.offload_params != "none":
        weights = min(weights, _param_working_set(needs))
    return MemoryBreakdown(weights / GB, gradients / GB, optimizer / GB, activations_gb(needs))


def offloaded_gb_per_gpu(needs: NeedsProfile, n_gpus: int) -> dict[str, float]:
    """GB each GPU keeps off the GPU, by device ("cpu" = host RAM, "nvme" = local NVMe); empty without
    offload."""
    t = needs.training
    weights, gradients, optimizer = _sharded_states(needs, n_gpus)
    away: dict[str, float] = {}
    if t.offload_optimizer != "none":
        away[t.offload_optimizer] = away.get(t.offload_optimizer, 0.0) + (gradients + optimizer) / GB
    if t.offload_params != "none":
        away[t.offload_params] = away.get(t.offload_params, 0.0) + weights / GB
    return away


def usable_gb(needs: NeedsProfile, gpu_memory_gb: float) -> float:
    """GPU memory the job may use: the rest is kept for the CUDA context, NCCL buffers and fragmentation."""
    return gpu_memory_gb * (1 - needs.cluster.memory_reserve)


def fits(needs: NeedsProfile, gpu_memory_gb: float, n_gpus: int) -> bool:
    return memory_per_gpu(needs, n_gpus).total_gb <= usable_gb(needs, gpu_memory_gb)


def min_gpus(needs: NeedsProfile, gpu_memory_gb: float, max_gpus: int = 1 << 20) -> int | None:
    """The smallest GPU count (a multiple of tensor × pipeline degree) whose per-GPU memory fits, or None
    when no count does (e.g. plain data parallelism with a model bigger than one GPU)."""
    return _min_gpus_cached(needs, gpu_memory_gb, max_gpus)


@lru_cache(maxsize=4096)
def _min_gpus_cached(needs: NeedsProfile, gpu_memory_gb: float, max_gpus: int) -> int | None:
    step = needs.training.tensor_parallel * needs.training.pipeline_parallel
    limit = usable_gb(needs, gpu_memory_gb)
    if memory_per_gpu(needs, step * max(1, max_gpus // step)).total_gb > limit:
        return None
    low, high = 1, max(1, max_gpus // step)  # per-GPU memory falls as GPUs are added: bisect
    while low < high:
        middle = (low + high) // 2
        if memory_per_gpu(needs, middle * step).total_gb <= limit:
            high = middle
        else:
            low = middle + 1
    return low * step


def ring_allreduce_bytes(n_ranks: int, buffer_bytes: float) -> float:
    """Bytes each rank sends in a ring all-reduce of `buffer_bytes`: 2(N−1)/N × buffer (Patarasuk & Yuan)."""
    if n_ranks < 1:
        raise SizingError(_("an all-reduce needs at least one rank, not {n}").format(n=n_ranks))
    return 2 * (n_ranks - 1) / n_ranks * buffer_bytes


def gradient_bytes(needs: NeedsProfile) -> float:
    """Gradient buffer one data-parallel rank reduces per step: trainable parameters per model-parallel
    shard × bytes per gradient (2 in bf16/fp16, 4 in fp32)."""
    t = needs.training
    per_grad = 4.0 if t.precision == "fp32" else 2.0
    return trainable_params(needs) / (t.tensor_parallel * t.pipeline_parallel) * per_grad


def shards_per_node(needs: NeedsProfile, gpus_per_node: int) -> int:
    """How many different model-parallel shards one node holds, i.e. how many data-parallel groups have a
    rank on it: min(tensor × pipeline degree, GPUs per node) (model-parallel groups packed into nodes first,
    Megatron-LM's default order: tensor-parallel innermost)."""
    return max(1, min(needs.training.tensor_parallel * needs.training.pipeline_parallel, gpus_per_node))


def sync_bytes_per_step(needs: NeedsProfile, n_gpus: int, gpus_per_node: int) -> float:
    """Bytes each node's inter-node links carry per optimizer step for gradient (and ZeRO-3 parameter)
    synchronisation.

    Derivation. With tensor × pipeline degree M, the model is cut into M shards of Ψ/M parameters and the
    GPUs holding the same shard form one data-parallel group of N_d = n_gpus / M ranks. Each group
    all-reduces its own shard's gradients, g = Ψ/M × bytes per gradient (`gradient_bytes`); in a ring each
    rank sends 2(N_d−1)/N_d × g (Patarasuk & Yuan), × 1.5 under zero3/fsdp (the extra parameter all-gather,
    ZeRO §7). A node holds S = min(M, GPUs per node) different shards (`shards_per_node`), so S groups cross
    its links at once, each moving its own shard's ring volume:

        per node = S × 2(N_d−1)/N_d × Ψ/M × bytes (× 1.5 under zero3/fsdp)

    With plain data parallelism (M = 1) that is one ring's volume: the node's GPUs hold the same shard and
    reduce inside the node (NVLink) first, then NCCL spreads the one inter-node ring over the node's NICs.
    With M ≥ GPUs per node (e.g. TP 8 in 8-GPU nodes) every GPU of the node sends its own shard's ring
    traffic: 8 × 2(N_d−1)/N_d × Ψ/8 × bytes ≈ 2 × Ψ × bytes per node, the same as M = 1, not 1/8 of it.
    Hand check: 70B, zero1, TP 8, 32 GPUs in 8-GPU nodes → N_d = 4, g = 17.5 GB, 8 × 1.5 × 17.5 = 210 GB per
    node per step."""
    dp = _check_parallel(needs, n_gpus)
    volume = ring_allreduce_bytes(dp, gradient_bytes(needs)) * shards_per_node(needs, gpus_per_node)
    if needs.training.strategy in ("zero3", "fsdp"):
        volume *= 1.5
    return volume


def step_seconds(needs: NeedsProfile, n_gpus: int, bf16_tflops: float | None) -> float | None:
    """The profile's target step time, else the compute estimate 6·P·tokens / (N · TFLOPS · MFU) (4·P·tokens
    under LoRA/QLoRA); None when neither the target nor tokens per step and TFLOPS are known."""
    t = needs.training
    if t.target_step_seconds is not None:
        return t.target_step_seconds
    if t.tokens_per_step is None or not bf16_tflops:
        return None
    flops_per_token = (4 if t.mode in ("lora", "qlora") else 6) * needs.model.compute_params
    return flops_per_token * t.tokens_per_step / (n_gpus * bf16_tflops * 1e12 * t.mfu)


def implied_internode_gbit_s(needs: NeedsProfile, n_gpus: int, seconds: float, gpus_per_node: int) -> float:
    """Per-node inter-node bandwidth so that the step's sync fits in `comm_fraction` of `seconds`."""
    if seconds <= 0:
        raise SizingError(_("a step takes some time, not {seconds} s").format(seconds=seconds))
    sync = sync_bytes_per_step(needs, n_gpus, gpus_per_node)
    return sync * 8 / (seconds * needs.training.comm_fraction) / 1e9


@dataclass(frozen=True, slots=True)
class SizingResult:
    """The sizing of one needs profile on one kind of GPU and node."""

    gpu_memory_gb: float
    gpus_per_node: int
    weights_gb: float  # the weights alone, unsharded
    model_states_gb: float  # weights + gradients + optimizer states, unsharded, whole model
    min_gpus: int | None
    planned_gpus: int | None  # max(min_gpus, what the profile asks for)
    nodes: int | None
    spans_nodes: bool | None
    per_gpu: MemoryBreakdown | None  # at planned_gpus
    usable_gb: float
    gradient_gb: float
    sync_gb_per_step: float | None
    step_seconds: float | None
    internode_gbit_s: float | None
    assumptions: tuple[str, ...] = field(default=())
    host_offload_gb_per_node: float | None = None  # host RAM the offload needs per node (GB)
    nvme_offload_gb_per_node: float | None = None  # local NVMe the offload needs per node (GB)

    def as_dict(self) -> dict[str, object]:
        per_gpu = None
        if self.per_gpu is not None:
            per_gpu = {
                "weights_gb": self.per_gpu.weights_gb,
                "gradients_gb": self.per_gpu.gradients_gb,
                "optimizer_gb": self.per_gpu.optimizer_gb,
                "activations_gb": self.per_gpu.activations_gb,
                "total_gb": self.per_gpu.total_gb,
            }
        return {
            "gpu_memory_gb": self.gpu_memory_gb,
            "gpus_per_node": self.gpus_per_node,
            "weights_gb": self.weights_gb,
            "model_states_gb": self.model_states_gb,
            "min_gpus": self.min_gpus,
            "planned_gpus": self.planned_gpus,
            "nodes": self.nodes,
            "spans_nodes": self.spans_nodes,
            "per_gpu": per_gpu,
            "usable_gb_per_gpu": self.usable_gb,
            "gradient_gb": self.gradient_gb,
            "sync_gb_per_step": self.sync_gb_per_step,
            "step_seconds": self.step_seconds,
            "internode_gbit_s": self.internode_gbit_s,
            "host_offload_gb_per_node": self.host_offload_gb_per_node,
            "nvme_offload_gb_per_node": self.nvme_offload_gb_per_node,
            "assumptions": list(self.assumptions),
        }


def size(
    needs: NeedsProfile,
    gpu_memory_gb: float,
    gpus_per_node: int = 8,
    bf16_tflops: float | None = None,
) -> SizingResult:
    """Size `needs` on GPUs of `gpu_memory_gb` in nodes of `gpus_per_node` (see module docstring)."""
    _check_node(gpu_memory_gb, gpus_per_node)
    t = needs.training
    model_states = _model_states_gb(needs)
    assumptions = _memory_assumptions(needs)
    fewest = min_gpus(needs, gpu_memory_gb)
    planned = _planned_gpus(needs, fewest, gpus_per_node)
    nodes = math.ceil(planned / gpus_per_node) if planned else None
    per_gpu = memory_per_gpu(needs, planned) if planned else None
    sync = sync_bytes_per_step(needs, planned, gpus_per_node) if planned else None
    seconds = step_seconds(needs, planned, bf16_tflops) if planned else None
    bandwidth = None
    if planned and seconds and nodes and nodes > 1:
        bandwidth = implied_internode_gbit_s(needs, planned, seconds, gpus_per_node)
        if t.target_step_seconds:
            sync_text = _("gradient sync may take {share:.0%} of a step")
        else:
            sync_text = _(
                "gradient sync may take {share:.0%} of a step; step time from 6·P·tokens at {mfu:.0%} MFU"
            )
        assumptions.append(sync_text.format(share=t.comm_fraction, mfu=t.mfu))
    offloaded = offloaded_gb_per_gpu(needs, planned) if planned else {}
    on_node = min(planned, gpus_per_node) if planned else 0
    if offloaded:
        assumptions.append(_offload_assumption(needs))
    return SizingResult(
        gpu_memory_gb=gpu_memory_gb,
        gpus_per_node=gpus_per_node,
        weights_gb=weights_gb(needs.model.params, t.precision),
        model_states_gb=model_states,
        min_gpus=fewest,
        planned_gpus=planned,
        nodes=nodes,
        spans_nodes=(nodes > 1) if nodes else None,
        per_gpu=per_gpu,
        usable_gb=usable_gb(needs, gpu_memory_gb),
        gradient_gb=gradient_bytes(needs) / GB,
        sync_gb_per_step=sync / GB if sync is not None else None,
        step_seconds=seconds,
        internode_gbit_s=bandwidth,
        assumptions=tuple(assumptions),
        host_offload_gb_per_node=offloaded["cpu"] * on_node if "cpu" in offloaded else None,
        nvme_offload_gb_per_node=offloaded["nvme"] * on_node if "nvme" in offloaded else None,
    )


def _check_node(gpu_memory_gb: float, gpus_per_node: int) -> None:
    if not (math.isfinite(gpu_memory_gb) and 0 < gpu_memory_gb <= MAX_GPU_MEMORY_GB):
        raise SizingError(
            _("GPU memory {value} is not a number of GB above 0, at most {high}").format(
                value=gpu_memory_gb, high=MAX_GPU_MEMORY_GB
            )
        )
    if isinstance(gpus_per_node, bool) or not 1 <= gpus_per_node <= MAX_GPUS_PER_NODE:
        raise SizingError(
            _("{value} GPUs per node is not a whole number from 1 to {high}").format(
                value=gpus_per_node, high=MAX_GPUS_PER_NODE
            )
        )


def _model_states_gb(needs: NeedsProfile) -> float:
    """Weights, gradients and optimizer states of the whole model, unsharded (LoRA: the frozen weights at
    their own bytes per parameter, the adapters with their states)."""
    t = needs.training
    states = state_bytes_per_param(t.precision, t.optimizer)
    trained = trainable_params(needs)
    if t.mode in ("lora", "qlora"):
        frozen = QLORA_BYTES_PER_PARAM if t.mode == "qlora" else (4.0 if t.precision == "fp32" else 2.0)
        return (needs.model.params * frozen + trained * states.total) / GB
    return trained * states.total / GB


def _memory_assumptions(needs: NeedsProfile) -> list[str]:
    """The bytes per trained parameter, the memory kept free, and an estimated model shape."""
    t = needs.training
    states = state_bytes_per_param(t.precision, t.optimizer)
    if t.precision == "fp32":
        precision = _("{precision} with {optimizer}: {bytes:g} bytes per trained parameter before sharding")
    else:
        precision = _(
            "{precision} mixed precision with {optimizer}: {bytes:g} bytes per trained parameter before sharding"
        )
    assumptions = [
        precision.format(precision=t.precision, optimizer=t.optimizer, bytes=states.total),
        _("{share:.0%} of GPU memory kept free (CUDA context, NCCL, fragmentation)").format(
            share=needs.cluster.memory_reserve
        ),
    ]
    if model_shape(needs).estimated:
        shape = model_shape(needs)
        assumptions.append(
            _("model shape estimated: {layers} layers × hidden {hidden}").format(
                layers=shape.layers, hidden=shape.hidden_size
            )
        )
    return assumptions


def _planned_gpus(needs: NeedsProfile, fewest: int | None, gpus_per_node: int) -> int | None:
    """The GPUs to plan for: the fewest that hold the job, or what the profile asks for if more, rounded up
    to whole tensor × pipeline groups; None when no count holds it."""
    if fewest is None:
        return None
    wanted = needs.cluster.gpus_wanted or (
        needs.cluster.nodes_wanted * gpus_per_node if needs.cluster.nodes_wanted else None
    )
    planned = max(fewest, wanted or 0)
    step = needs.training.tensor_parallel * needs.training.pipeline_parallel
    return math.ceil(planned / step) * step


def _offload_assumption(needs: NeedsProfile) -> str:
    t = needs.training
    moved = {
        ("optimizer", "cpu"): _("optimizer states and gradients to host RAM"),
        ("optimizer", "nvme"): _("optimizer states and gradients to local NVMe"),
        ("params", "cpu"): _("parameters to host RAM"),
        ("params", "nvme"): _("parameters to local NVMe"),
    }
    where = items(
        moved[what, device]
        for what, device in (("optimizer", t.offload_optimizer), ("params", t.offload_params))
        if device != "none"
    )
    return _(
        "offload (ZeRO-Offload/ZeRO-Infinity): {where}; the optimizer step runs on the CPU and steps are "
        "slower than the compute estimate"
    ).format(where=where)


def scale_table_note(result: SizingResult, row: ScaleRow | None) -> str | None:
    """How the sizing's GPU count compares with the documents' scale table row for the model's size, when it
    needs saying: memory alone needing fewer GPUs than the table (its counts are for training speed), or
    more (the strategy keeps too much on each GPU)."""
    if row is None or result.min_gpus is None:
        return None
    if row.min_params_b <= 0:
        band = _("models up to {high:g}B").format(high=row.max_params_b)
    elif row.max_params_b >= 1e5:
        band = _("{low:g}B+ models").format(low=row.min_params_b)
    else:
        band = _("{low:g}B–{high:g}B models").format(low=row.min_params_b, high=row.max_params_b)
    values = {"n": result.min_gpus, "table": row.gpus, "band": band}
    if row.min_gpus is not None and result.min_gpus < row.min_gpus:
        if row.min_params_b < 7 <= row.max_params_b:
            text = ngettext(
                "Memory alone needs only {n} GPU; the documents' scale table gives {table} GPUs for {band}. That "
                "is a throughput minimum, not a memory one: GPUs enough to train at a useful speed (document "
                "003: 7B with ZeRO-3 can start on 4 × A800 80 GB, and 8 GPUs are the more common start for a "
                "usable speed). With {n} GPU the job fits but trains proportionally slower.",
                "Memory alone needs only {n} GPUs; the documents' scale table gives {table} GPUs for {band}. "
                "That is a throughput minimum, not a memory one: GPUs enough to train at a useful speed "
                "(document 003: 7B with ZeRO-3 can start on 4 × A800 80 GB, and 8 GPUs are the more common "
                "start for a usable speed). With {n} GPUs the job fits but trains proportionally slower.",
                result.min_gpus,
            )
        else:
            text = ngettext(
                "Memory alone needs only {n} GPU; the documents' scale table gives {table} GPUs for {band}. That "
                "is a throughput minimum, not a memory one: GPUs enough to train at a useful speed. With {n} GPU "
                "the job fits but trains proportionally slower.",
                "Memory alone needs only {n} GPUs; the documents' scale table gives {table} GPUs for {band}. "
                "That is a throughput minimum, not a memory one: GPUs enough to train at a useful speed. With "
                "{n} GPUs the job fits but trains proportionally slower.",
                result.min_gpus,
            )
        return text.format(**values)
    if row.max_gpus is not None and result.min_gpus > row.max_gpus:
        return _(
            "Memory alone needs {n} GPUs, more than the {table} the documents' scale table gives for {band}: "
            "the strategy keeps too much on each GPU (ZeRO-3/FSDP or offload shrink it)."
        ).format(**values)
    return None
