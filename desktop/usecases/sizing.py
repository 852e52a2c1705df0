"""Sizing a training job on a GPU of the reference (`linkvet size --gpu NAME`, the Needs & score screen's
live sizing): `catalogs.sizing.size` with the GPU's memory and BF16 figures."""

from __future__ import annotations

from catalogs.gpus import default_gpu_reference
from catalogs.needs import NeedsProfile
from catalogs.sizing import SizingResult, size
from desktop.i18n import _
from desktop.usecases.errors import InputError

DEFAULT_GPU = "H100 SXM"  # what sizing assumes when no GPU is named (an 80 GB part)


def gpu_names() -> list[str]:
    """The GPU models the reference knows, as `--gpu` takes them."""
    return list(default_gpu_reference().names())


def reference_gpu(name: str) -> tuple[float, float | None, str]:
    """A GPU of the reference: (memory GB, BF16 dense TFLOPS or None, its description); `InputError` for a
    model the reference does not know (or knows without its memory)."""
    match = default_gpu_reference().get(name)
    if match is None or match.memory_gb is None:
        raise InputError(
            _("unknown GPU model {model!r} (known: {known})").format(model=name, known=", ".join(gpu_names()))
        )
    return match.memory_gb, match.bf16_dense_tflops, match.describe()


def size_on(needs: NeedsProfile, gpu_name: str, gpus_per_node: int = 8) -> tuple[SizingResult, str]:
    """Size `needs` on a GPU of the reference; the result and the GPU's description."""
    memory_gb, tflops, label = reference_gpu(gpu_name)
    return size(needs, memory_gb, gpus_per_node, tflops), label
