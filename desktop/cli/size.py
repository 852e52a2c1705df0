"""`linkvet size`: the GPU memory, GPU count and inter-node bandwidth a training job needs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from catalogs.checklist import default_checklist
from catalogs.i18n import clauses
from catalogs.needs import NeedsProfile, load_needs, validate_needs
from catalogs.sizing import SizingResult, scale_table_note, shards_per_node, size
from desktop.cli.errors import EXIT_OK, UsageError, context
from desktop.i18n import _
from desktop.usecases.sizing import DEFAULT_GPU, reference_gpu


def _params(text: str) -> float:
    """70e9, 70B, 7b, 1.5T or 7000000000."""
    cleaned = text.strip().lower().replace("_", "")
    factor = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}.get(cleaned[-1:], 1.0)
    if factor != 1.0:
        cleaned = cleaned[:-1]
    try:
        return float(cleaned) * factor
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            _("{text!r} is not a parameter count (e.g. 70e9 or 70B)").format(text=text)
        ) from exc


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "size", help=_("size a training job: memory per GPU, GPU count, bandwidth")
    )
    parser.add_argument(
        "--needs", type=Path, metavar="FILE", help=_("a needs profile (TOML); options below override it")
    )
    parser.add_argument("--params", type=_params, metavar="N", help=_("parameters, e.g. 70e9 or 70B"))
    parser.add_argument(
        "--active-params", type=_params, metavar="N", help=_("MoE: parameters active per token")
    )
    parser.add_argument("--mode", choices=["pretrain", "full", "lora", "qlora"])
    parser.add_argument("--strategy", choices=["dp", "zero1", "zero2", "zero3", "fsdp"])
    parser.add_argument("--precision", choices=["bf16", "fp16", "fp32"])
    parser.add_argument("--optimizer", choices=["adamw", "adam", "adamw-8bit", "sgd"])
    parser.add_argument("--tp", type=int, metavar="N", help=_("tensor-parallel degree"))
    parser.add_argument("--pp", type=int, metavar="N", help=_("pipeline-parallel degree"))
    parser.add_argument("--seq-len", type=int, metavar="N", help=_("sequence length (tokens)"))
    parser.add_argument("--micro-batch", type=int, metavar="N", help=_("micro-batch per GPU"))
    parser.add_argument(
        "--offload-optimizer",
        choices=["none", "cpu", "nvme"],
        help=_("keep optimizer states and gradients in host RAM or on NVMe (ZeRO-Offload)"),
    )
    parser.add_argument(
        "--offload-params",
        choices=["none", "cpu", "nvme"],
        help=_("keep the parameters in host RAM or on NVMe (ZeRO-Infinity; zero3/fsdp only)"),
    )
    parser.add_argument(
        "--gpus", type=int, metavar="N", help=_("GPUs wanted (at least the minimum is planned)")
    )
    parser.add_argument(
        "--tokens-per-step", type=int, metavar="N", help=_("global batch in tokens (for step time)")
    )
    parser.add_argument("--step-seconds", type=float, metavar="S", help=_("target step time"))
    gpu = parser.add_mutually_exclusive_group()
    gpu.add_argument(
        "--gpu", metavar="MODEL", help=_("GPU model from the reference (default: 80 GB, e.g. H100)")
    )
    gpu.add_argument("--gpu-memory", type=float, metavar="GB", help=_("GPU memory in GB"))
    parser.add_argument(
        "--gpus-per-node", type=int, default=8, metavar="N", help=_("GPUs per node (default 8)")
    )
    parser.add_argument("--json", action="store_true", help=_("print JSON"))
    parser.set_defaults(run=run)


def needs_from_args(args: argparse.Namespace) -> NeedsProfile:
    base: dict[str, Any] = {}
    if args.needs is not None:
        base = load_needs(args.needs).model_dump(exclude_defaults=False)
    elif args.params is None:
        raise UsageError(_("give --params (e.g. --params 70e9) or --needs FILE"))
    model = dict(base.get("model", {}))
    training = dict(base.get("training", {}))
    cluster = dict(base.get("cluster", {}))
    overrides = {
        ("model", "params"): args.params,
        ("model", "active_params"): args.active_params,
        ("training", "mode"): args.mode,
        ("training", "strategy"): args.strategy,
        ("training", "precision"): args.precision,
        ("training", "optimizer"): args.optimizer,
        ("training", "tensor_parallel"): args.tp,
        ("training", "pipeline_parallel"): args.pp,
        ("training", "sequence_length"): args.seq_len,
        ("training", "micro_batch"): args.micro_batch,
        ("training", "tokens_per_step"): args.tokens_per_step,
        ("training", "target_step_seconds"): args.step_seconds,
        ("training", "offload_optimizer"): args.offload_optimizer,
        ("training", "offload_params"): args.offload_params,
        ("cluster", "gpus_wanted"): args.gpus,
    }
    tables = {"model": model, "training": training, "cluster": cluster}
    for (table, key), value in overrides.items():
        if value is not None:
            tables[table][key] = value
    if args.active_params is not None:
        model["architecture"] = "moe"
    if args.params is not None and args.needs is None:
        model.pop("layers", None), model.pop("hidden_size", None), model.pop("attention_heads", None)
    data = {**base, "model": model, "training": training, "cluster": cluster}
    with context(_("invalid sizing input")):
        return validate_needs(data)


def gpu_from_args(args: argparse.Namespace) -> tuple[float, float | None, str]:
    if args.gpu_memory is not None:  # held to its range by `catalogs.sizing.size`, as a catalog's figure is
        return args.gpu_memory, None, _("{gb} GB GPUs").format(gb=f"{args.gpu_memory:g}")
    return reference_gpu(args.gpu or DEFAULT_GPU)


def _describe(needs: NeedsProfile, result: SizingResult, gpu_label: str) -> str:
    t, m = needs.training, needs.model
    head = f"{m.params / 1e9:g}B {m.architecture}"
    if m.active_params:
        head = _("{model} ({active}B active)").format(model=head, active=f"{m.active_params / 1e9:g}")
    head += f", {t.mode}, {t.precision} + {t.optimizer}, {t.strategy}"
    head += f", TP {t.tensor_parallel}" if t.tensor_parallel > 1 else ""
    head += f", PP {t.pipeline_parallel}" if t.pipeline_parallel > 1 else ""
    lines = [
        head,
        _("Weights alone ({precision}): {gb} GB").format(
            precision=t.precision, gb=f"{result.weights_gb:,.1f}"
        ),
        _("Model states before sharding: {gb} GB").format(gb=f"{result.model_states_gb:,.1f}"),
    ]
    usable = _("{usable} GB usable of {memory} GB").format(
        usable=f"{result.usable_gb:.1f}", memory=f"{result.gpu_memory_gb:g}"
    )
    if result.min_gpus is None or result.per_gpu is None or result.planned_gpus is None:
        lines.append(
            _("On {gpu} ({usable}): does not fit at any GPU count with {strategy}").format(
                gpu=gpu_label, usable=usable, strategy=t.strategy
            )
        )
    else:
        if result.spans_nodes:
            fits = _(
                "On {gpu} ({usable}): fits from {least} GPU(s); planned {planned} = {nodes} node(s) of "
                "{per_node} (spans nodes)"
            )
        else:
            fits = _(
                "On {gpu} ({usable}): fits from {least} GPU(s); planned {planned} = {nodes} node(s) of "
                "{per_node} (fits in one node)"
            )
        lines.append(
            fits.format(
                gpu=gpu_label,
                usable=usable,
                least=result.min_gpus,
                planned=result.planned_gpus,
                nodes=result.nodes,
                per_node=result.gpus_per_node,
            )
        )
        p = result.per_gpu
        lines.append(
            _(
                "Per GPU at {planned}: weights {weights} + gradients {gradients} + optimizer {optimizer} + "
                "activations {activations} = {total} GB"
            ).format(
                planned=result.planned_gpus,
                weights=f"{p.weights_gb:.1f}",
                gradients=f"{p.gradients_gb:.1f}",
                optimizer=f"{p.optimizer_gb:.1f}",
                activations=f"{p.activations_gb:.1f}",
                total=f"{p.total_gb:.1f}",
            )
        )
        for amount, offloaded in (
            (result.host_offload_gb_per_node, _("Offloaded to host RAM: {gb} GB per node")),
            (result.nvme_offload_gb_per_node, _("Offloaded to local NVMe: {gb} GB per node")),
        ):
            if amount is not None:
                lines.append(offloaded.format(gb=f"{amount:,.0f}"))
        if result.sync_gb_per_step is not None:
            lines.append(_sync_line(needs, result))
        if result.internode_gbit_s is not None and result.step_seconds is not None:
            lines.append(
                _(
                    "Inter-node bandwidth needed: {gbit} Gbit/s per node (step {step} s, sync within {share} "
                    "of it)"
                ).format(
                    gbit=f"{result.internode_gbit_s:,.0f}",
                    step=f"{result.step_seconds:,.1f}",
                    share=f"{t.comm_fraction:.0%}",
                )
            )
        elif result.spans_nodes:
            lines.append(_("Inter-node bandwidth: give --tokens-per-step or --step-seconds to estimate it"))
    note = scale_table_note(result, default_checklist().scale_row(m.params))
    if note:
        lines.append(note)
    lines.append(_("Assumptions: {assumptions}").format(assumptions=clauses(result.assumptions)))
    return "\n".join(lines)


def _sync_line(needs: NeedsProfile, result: SizingResult) -> str:
    """What one step's gradient sync moves over each node's inter-node links."""
    t = needs.training
    shards = shards_per_node(needs, result.gpus_per_node)
    words = {
        "gradients": f"{result.gradient_gb:,.1f}",
        "sync": f"{result.sync_gb_per_step:,.1f}",
        "shards": shards,
    }
    per_shard = t.tensor_parallel * t.pipeline_parallel > 1
    sharded = t.strategy in ("zero3", "fsdp")
    ring = _("ring all-reduce 2(N−1)/N")
    if shards > 1:
        ring = _("{ring}, × {shards} shards on each node").format(ring=ring, shards=shards)
    if sharded:
        ring = _("{ring}, ×1.5 for ZeRO-3/FSDP").format(ring=ring)
    words["ring"] = ring
    if per_shard:
        text = _(
            "Gradient sync per step: {gradients} GB of gradients per shard → {sync} GB over each node's "
            "inter-node links ({ring})"
        )
    else:
        text = _(
            "Gradient sync per step: {gradients} GB of gradients → {sync} GB over each node's inter-node links "
            "({ring})"
        )
    return text.format(**words)


def run(args: argparse.Namespace) -> int:
    needs = needs_from_args(args)
    memory, tflops, label = gpu_from_args(args)
    with context(_("invalid sizing input")):
        result = size(needs, memory, args.gpus_per_node, tflops)
    if args.json:
        data = result.as_dict()
        data["scale_table_note"] = scale_table_note(result, default_checklist().scale_row(needs.model.params))
        data["gpu"] = label
        data["needs"] = needs.model_dump(mode="json")
        print(json.dumps(data, indent=2))
    else:
        print(_describe(needs, result, label))
    return EXIT_OK
