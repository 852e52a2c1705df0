"""Sizing: the formulas on hand-checked numbers, and the source documents' own figures as test cases."""

from __future__ import annotations

from typing import Any

import pytest

from catalogs.errors import SizingError
from catalogs.needs import ClusterSpec, NeedsProfile
from catalogs.sizing import (
    activations_gb,
    fits,
    gradient_bytes,
    implied_internode_gbit_s,
    memory_per_gpu,
    min_gpus,
    ring_allreduce_bytes,
    size,
    state_bytes_per_param,
    step_seconds,
    sync_bytes_per_step,
    weights_gb,
)


def needs(
    params: float,
    mode: str = "full",
    strategy: str = "zero3",
    model: dict[str, Any] | None = None,
    **training: Any,
) -> NeedsProfile:
    return NeedsProfile.model_validate(
        {
            "model": {"params": params, **(model or {})},
            "training": {"mode": mode, "strategy": strategy, **training},
        }
    )


# --- the documents' figures ----------------------------------------------------------------------------------


def test_70b_in_bf16_is_about_140_gb_of_weights() -> None:
    # document 001, FAQ 1: "仅以BF16精度加载70B参数模型就需要约140GB显存"
    assert weights_gb(70e9, "bf16") == pytest.approx(140.0)
    assert size(needs(70e9), 80).weights_gb == pytest.approx(140.0)


def test_7b_full_training_with_zero3_starts_on_4_x_80gb() -> None:
    # document 003, FAQ: 7B on 4 × A800 80GB with DeepSpeed ZeRO-3 can start (pre-)training
    job = needs(7e9, sequence_length=4096)
    assert fits(job, 80, 4)
    assert not fits(job, 80, 1)  # 16 bytes × 7B = 112 GB of model states: not one GPU
    assert min_gpus(job, 80) is not None and min_gpus(job, 80) <= 4


@pytest.mark.parametrize(
    ("params", "mode", "strategy", "gpu_gb"),
    [(7e9, "lora", "dp", 80), (13e9, "lora", "dp", 80), (7e9, "qlora", "dp", 24), (70e9, "qlora", "dp", 80)],
)
def test_lora_and_qlora_fit_on_one_or_two_gpus(
    params: float, mode: str, strategy: str, gpu_gb: float
) -> None:
    # document 003: parameter-efficient fine-tuning (LoRA) needs far less memory, one or two GPUs may do
    count = min_gpus(needs(params, mode, strategy), gpu_gb)
    assert count is not None and count <= 2


def test_lora_needs_far_less_than_full_training() -> None:
    full = size(needs(70e9), 80).model_states_gb
    lora = size(needs(70e9, "lora"), 80).model_states_gb
    qlora = size(needs(70e9, "qlora"), 80).model_states_gb
    assert full == pytest.approx(1120.0)
    assert lora < full / 7 and qlora < lora / 3


# The scale tables row by row, each with its assumptions: tests/catalogs/test_documents_tables.py.


def test_memory_totals_of_the_scale_table_sit_inside_our_estimates() -> None:
    # document 003: "> 160 GB" for 7–13B, "> 640 GB" for 30–70B, "> 1.28 TB" for 70B+ (16 bytes/param)
    states = {p: size(needs(p * 1e9), 80).model_states_gb for p in (7, 13, 30, 70, 80)}
    assert states[7] < 160 < states[13]
    assert states[30] < 640 < states[70]
    assert states[70] < 1280 <= states[80]


def test_13b_on_two_nodes_with_half_a_million_token_steps_needs_about_200_gbit() -> None:
    # document 003: 7B–13B → 200 Gb/s between nodes. Hand check: 13B bf16 gradients = 26 GB; 16 GPUs in ZeRO-3
    # → 2·15/16 × 26 GB × 1.5 = 73.1 GB per node per step; step = 6·13e9·524288 / (16 · 989e12 · 0.4) = 6.46 s;
    # within half the step: 73.1e9 · 8 / 3.23 s = 181 Gbit/s.
    job = needs(13e9, tokens_per_step=524288)
    seconds = step_seconds(job, 16, 989)
    assert seconds == pytest.approx(6 * 13e9 * 524288 / (16 * 989e12 * 0.4))
    assert sync_bytes_per_step(job, 16, 8) == pytest.approx(2 * 15 / 16 * 26e9 * 1.5)
    bandwidth = implied_internode_gbit_s(job, 16, seconds, 8)  # type: ignore[arg-type]
    assert bandwidth == pytest.approx(2 * 15 / 16 * 26e9 * 1.5 * 8 / (seconds * 0.5) / 1e9)  # type: ignore[operator]
    assert 100 < bandwidth < 400


# --- the formulas on hand-checked numbers -------------------------------------------------------------------


def test_zero_paper_bytes_per_parameter() -> None:
    assert state_bytes_per_param("bf16", "adamw").total == 16  # 2 + 2 + 12 (ZeRO §3)
    assert state_bytes_per_param("fp16", "adam").total == 16
    assert state_bytes_per_param("bf16", "adamw-8bit").total == 10  # 2 + 2 + 4 + 2 × 1
    assert state_bytes_per_param("bf16", "sgd").total == 12
    assert state_bytes_per_param("fp32", "adamw").total == 16  # 4 + 4 + 8


@pytest.mark.parametrize(
    ("strategy", "weights", "gradients", "optimizer"),
    [
        # 1e9 params on 4 GPUs, bf16 + Adam: 2 / 2 / 12 GB before sharding
        ("dp", 2.0, 2.0, 12.0),
        ("zero1", 2.0, 2.0, 3.0),
        ("zero2", 2.0, 0.5, 3.0),
        ("zero3", 0.5, 0.5, 3.0),
        ("fsdp", 0.5, 0.5, 3.0),
    ],
)
def test_sharding_by_zero_stage(strategy: str, weights: float, gradients: float, optimizer: float) -> None:
    breakdown = memory_per_gpu(needs(1e9, strategy=strategy), 4)
    assert (breakdown.weights_gb, breakdown.gradients_gb, breakdown.optimizer_gb) == pytest.approx(
        (weights, gradients, optimizer)
    )


def test_tensor_and_pipeline_parallel_split_the_model_first() -> None:
    # 8e9 params, TP 2 × PP 2 on 8 GPUs → 2e9 per shard, 2 data-parallel ranks; ZeRO-3 → 16 · 2e9 / 2 = 16 GB
    b = memory_per_gpu(needs(8e9, tensor_parallel=2, pipeline_parallel=2), 8)
    assert b.weights_gb + b.gradients_gb + b.optimizer_gb == pytest.approx(16.0)
    with pytest.raises(SizingError, match="tensor × pipeline"):
        memory_per_gpu(needs(8e9, tensor_parallel=2, pipeline_parallel=2), 6)
    assert min_gpus(needs(8e9, tensor_parallel=2, pipeline_parallel=2), 80) % 4 == 0  # type: ignore[operator]


def test_activations_follow_korthikanti() -> None:
    shape = {"layers": 32, "hidden_size": 4096, "attention_heads": 32}
    s, b, h, a, layers = 2048, 1, 4096, 32, 32
    plain = needs(7e9, model=shape, sequence_length=s, activation_checkpointing=False, flash_attention=False)
    assert activations_gb(plain) == pytest.approx(layers * s * b * h * (34 + 5 * a * s / h) / 1e9)
    checkpointed = needs(
        7e9, model=shape, sequence_length=s, activation_checkpointing=True, flash_attention=True
    )
    assert activations_gb(checkpointed) == pytest.approx((2 * s * b * h * layers + 34 * s * b * h) / 1e9)
    tp = needs(7e9, model=shape, sequence_length=s, tensor_parallel=2)
    assert activations_gb(tp) == pytest.approx(activations_gb(checkpointed) / 2)


def test_ring_all_reduce_volume() -> None:
    assert ring_allreduce_bytes(4, 100.0) == pytest.approx(150.0)  # 2 · 3/4 · 100
    assert ring_allreduce_bytes(1, 100.0) == 0.0
    assert ring_allreduce_bytes(1000, 1.0) == pytest.approx(1.998)
    with pytest.raises(SizingError):
        ring_allreduce_bytes(0, 1.0)
    assert gradient_bytes(needs(7e9)) == pytest.approx(14e9)
    assert gradient_bytes(needs(7e9, "lora", lora_fraction=0.01)) == pytest.approx(1.4e8)
    assert sync_bytes_per_step(needs(1e9, strategy="zero2"), 4, 8) == pytest.approx(2 * 3 / 4 * 2e9)


def test_inter_node_traffic_counts_every_shard_a_node_holds() -> None:
    # The reviewer's case: 70B, ZeRO-1, TP 8 inside 8-GPU nodes, 32 GPUs, 1,048,576 tokens per step.
    # M = 8 shards of 70e9/8 params; N_d = 32/8 = 4 ranks per data-parallel group; each GPU of a node is in a
    # different group and sends its own shard's ring volume: 8 × 2·3/4 × (8.75e9 × 2 B) = 8 × 26.25 GB = 210 GB.
    # Step: 6 · 70e9 · 1,048,576 / (32 · 989e12 · 0.4) = 34.79 s; sync within half of it: 210e9 · 8 / 17.40 s
    # = 96.6 Gbit/s per node (it used to say 12: one GPU's shard taken for the whole node).
    job = needs(70e9, "full", "zero1", tensor_parallel=8, tokens_per_step=1048576)
    assert sync_bytes_per_step(job, 32, 8) == pytest.approx(8 * 2 * 3 / 4 * 70e9 / 8 * 2)
    seconds = 6 * 70e9 * 1048576 / (32 * 989e12 * 0.4)
    assert step_seconds(job, 32, 989) == pytest.approx(seconds)
    result = size(job.model_copy(update={"cluster": ClusterSpec(gpus_wanted=32)}), 80, 8, 989)
    assert result.planned_gpus == 32 and result.nodes == 4
    assert result.internode_gbit_s == pytest.approx(210e9 * 8 / (seconds * 0.5) / 1e9)
    assert result.internode_gbit_s == pytest.approx(96.6, abs=0.1)
    # Plain data parallelism moves one ring's volume per node whatever the node size: the node's GPUs reduce
    # over NVLink first. TP 2 in 8-GPU nodes: 2 shards per node, each half the model → the same per node.
    plain = needs(70e9, "full", "zero1", tokens_per_step=1048576)
    assert sync_bytes_per_step(plain, 32, 8) == pytest.approx(2 * 31 / 32 * 140e9)
    tp2 = needs(70e9, "full", "zero1", tensor_parallel=2)
    assert sync_bytes_per_step(tp2, 32, 8) == pytest.approx(2 * 2 * 15 / 16 * 70e9)
    # TP 8 × PP 2 = 16 shards; an 8-GPU node holds 8 of them (one pipeline stage): 8 × ring of 70e9/16 params
    deep = needs(70e9, "full", "zero1", tensor_parallel=8, pipeline_parallel=2)
    assert sync_bytes_per_step(deep, 32, 8) == pytest.approx(8 * 2 * 1 / 2 * 70e9 / 16 * 2)


def test_plain_data_parallel_with_a_model_bigger_than_the_gpu_never_fits() -> None:
    assert min_gpus(needs(70e9, strategy="dp"), 80) is None
    result = size(needs(70e9, strategy="dp"), 80)
    assert result.min_gpus is None and result.planned_gpus is None and result.per_gpu is None


def test_size_plans_multi_node_and_bandwidth() -> None:
    result = size(needs(70e9, tokens_per_step=4194304), 80, 8, 989)
    assert result.min_gpus == min_gpus(needs(70e9, tokens_per_step=4194304), 80)
    assert result.nodes == -(-result.planned_gpus // 8)  # type: ignore[operator]
    assert result.spans_nodes is True
    assert result.internode_gbit_s is not None and result.internode_gbit_s > 0
    single = size(needs(7e9, "lora", "dp"), 80)
    assert single.spans_nodes is False and single.internode_gbit_s is None


def test_target_step_time_wins_over_the_estimate() -> None:
    job = needs(13e9, tokens_per_step=524288, target_step_seconds=2.0)
    assert step_seconds(job, 16, 989) == 2.0
    assert step_seconds(needs(13e9), 16, 989) is None  # no tokens per step: unknown, not made up
