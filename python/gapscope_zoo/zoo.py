"""A model zoo for end-to-end parity: real models, each lowered three ways.

Every model has seeded weights and inputs and downloads nothing. Each is lowered
as ``portable`` (no delegate), ``fp32`` (XNNPACK) and ``int8`` (PT2E
``XNNPACKQuantizer`` + XNNPACK), run once with ETDump at intermediate-output
level, captured with ``capture_from_etrecord`` and compared by ExecuTorch's own
``Inspector.calculate_numeric_gap`` (MSE, L1, SNR), so that Gapscope can be
checked against ExecuTorch on each. Where ExecuTorch raises, the exception is
written to ``executorch_error.txt`` instead of the tables. ``llm`` is a
two-method program (``zoo_multimethod``), portable and XNNPACK fp32; ``bn-cnn``
a conv + BatchNorm CNN in int8 on portable kernels with its float reference
(``zoo_bn``); ``llm-8da4w`` a torchao 8da4w Llama on XNNPACK with its float
reference and ExecuTorch's rows compared one by one (``zoo_torchao``).
"""

from __future__ import annotations

import json
import logging
import math
import time
from pathlib import Path
from typing import Any, Callable

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer,
    get_symmetric_quantization_config,
)
from executorch.devtools import Inspector
from torch.export import export
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from gapscope_zoo import zoo_hf
from gapscope_capture.capture import capture_from_etrecord, capture_from_program
from gapscope_capture.capture_format import json_float
from gapscope_zoo.demo import METRICS, gap_rows
from gapscope_capture.host_run import lower_and_run
from gapscope_zoo.zoo_names import MODEL_NAMES

log = logging.getLogger(__name__)

SEED = 0
VARIANTS = ("portable", "fp32", "int8")
CALIBRATION_BATCHES = 3
DEBUG_BUFFER_SIZE = 4 << 20
# Written instead of a session where ExecuTorch's PT2E flow cannot quantise the model.
NOT_QUANTIZED = "not_quantized.txt"


class ViT(torch.nn.Module):
    """A ViT: patches of a square image, a class token, nn.MultiheadAttention, GELU MLP.

    The zoo's is two blocks of 8x8 patches of a 32x32 image; ``bench/vit_scale.py``
    builds ViT-S/16 (224x224, 16x16 patches, 384 wide, 6 heads, 12 blocks, MLP 4x).
    """

    def __init__(
        self,
        dim: int = 32,
        heads: int = 2,
        depth: int = 2,
        classes: int = 10,
        image: int = 32,
        patch: int = 8,
        mlp_ratio: int = 2,
    ) -> None:
        super().__init__()
        tokens = (image // patch) ** 2 + 1
        self.patch = torch.nn.Conv2d(3, dim, patch, stride=patch)
        self.cls = torch.nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = torch.nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(
                dim, heads, mlp_ratio * dim, dropout=0.0, activation="gelu", norm_first=True
            )
            for _ in range(depth)
        )
        self.norm = torch.nn.LayerNorm(dim)
        self.head = torch.nn.Linear(dim, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = self.patch(x).flatten(2).transpose(1, 2)  # 1 x patches x D
        tokens = torch.cat([self.cls.expand(x.shape[0], -1, -1), tokens], dim=1) + self.pos
        tokens = tokens.transpose(0, 1)  # sequence first, as nn.MultiheadAttention defaults to
        for block in self.blocks:
            tokens = block(tokens)
        return self.head(self.norm(tokens[0]))

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 3, 32, 32),)


class MobileNetV3Block(torch.nn.Module):
    """MobileNetV3-style: conv-BN-hardswish stem, an inverted residual with depthwise conv and
    squeeze-excitation (hardsigmoid), global pooling and a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.BatchNorm2d(16), torch.nn.Hardswish()
        )
        self.expand = torch.nn.Sequential(
            torch.nn.Conv2d(16, 48, 1), torch.nn.BatchNorm2d(48), torch.nn.Hardswish()
        )
        self.depthwise = torch.nn.Sequential(
            torch.nn.Conv2d(48, 48, 3, 1, 1, groups=48), torch.nn.BatchNorm2d(48), torch.nn.Hardswish()
        )
        self.se_reduce = torch.nn.Conv2d(48, 12, 1)
        self.se_expand = torch.nn.Conv2d(12, 48, 1)
        self.project = torch.nn.Sequential(torch.nn.Conv2d(48, 16, 1), torch.nn.BatchNorm2d(16))
        self.classifier = torch.nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.stem(x)
        h = self.depthwise(self.expand(y))
        scale = torch.nn.functional.adaptive_avg_pool2d(h, 1)
        scale = torch.nn.functional.hardsigmoid(self.se_expand(torch.relu(self.se_reduce(scale))))
        y = y + self.project(h * scale)
        return self.classifier(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 3, 32, 32),)


class DecoderBlock(torch.nn.Module):
    """A decoder-only transformer block: RMSNorm, rotary embedding, causal mask, SiLU-gated MLP."""

    def __init__(self, dim: int = 32, heads: int = 2, seq: int = 8) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.norm1 = torch.nn.Parameter(torch.ones(dim))
        self.norm2 = torch.nn.Parameter(torch.ones(dim))
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.out = torch.nn.Linear(dim, dim, bias=False)
        self.gate = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.up = torch.nn.Linear(dim, 2 * dim, bias=False)
        self.down = torch.nn.Linear(2 * dim, dim, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv)
        self.register_buffer("cos", torch.cat([angles.cos(), angles.cos()], dim=-1))
        self.register_buffer("sin", torch.cat([angles.sin(), angles.sin()], dim=-1))
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    @staticmethod
    def _rms(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    def _rope(self, x: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * self.cos + rotated * self.sin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self._rms(x, self.norm1)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        q, k = self._rope(q), self._rope(k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + self.mask
        attended = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.out(attended)
        h = self._rms(x, self.norm2)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 8, 32),)


class Indexing(torch.nn.Module):
    """Multi-output ops and indexing: topk, max.dim, split and gather."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(16, 24)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = self.fc(x)  # 4x24
        a, b, c = torch.split(y, 8, dim=-1)
        top_values, top_indices = torch.topk(a, 3, dim=-1)
        best, where = torch.max(b, dim=-1)
        picked = torch.gather(c, -1, top_indices)
        return top_values + picked, best * 2.0, where

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(4, 16),)


class Recurrent(torch.nn.Module):
    """An LSTM and a GRU over a short sequence: zero initial states, gates, a head.

    ``aten.lstm`` takes another CPU kernel with autograd off, so it pins that the
    reference is captured the way ExecuTorch's Inspector runs it; its all-zero
    initial states agree exactly (SNR 0/0) and must not count as divergence.
    """

    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 16, batch_first=True)
        self.gru = torch.nn.GRU(16, 12, batch_first=True)
        self.head = torch.nn.Linear(12, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, (_, c) = self.lstm(x)
        g, _ = self.gru(h)
        return self.head(g.mean(1)), c[0]

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 5, 8),)


class Elementwise(torch.nn.Module):
    """Element-wise ops, reductions and reshapes after a linear layer.

    where, clamp, abs, exp, log1p, cumsum, pow, var, std, logsumexp, permute,
    expand and argmax. Int8 XNNPACK lowers the first ops into one delegate whose
    two outputs end in the same debug handle: ExecuTorch keeps one row for them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(12, 12)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.fc(x)  # 2 x 4 x 12
        a = torch.where(y > 0, y, 0.5 * y)
        b = torch.clamp(a, -1.0, 1.5).abs()
        c = torch.exp(-b) + torch.log1p(b)
        d = torch.cumsum(c, dim=-1)
        e = torch.pow(d, 2) / (d.abs() + 1.0)
        v = e.var(-1, keepdim=True)
        s = e.std(-1, keepdim=True)
        lse = torch.logsumexp(e, dim=-1, keepdim=True)
        z = (e - lse) * s + v
        p = z.permute(2, 0, 1).reshape(12, 8)
        q = p.unsqueeze(0).expand(3, 12, 8).sum(0)
        return q.t().contiguous(), torch.argmax(q, dim=0)

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(2, 4, 12),)


MODELS: dict[str, Callable[[], torch.nn.Module]] = {
    name: model
    for name, model in zip(
        MODEL_NAMES,
        (
            ViT,
            MobileNetV3Block,
            DecoderBlock,
            Indexing,
            None,
            Recurrent,
            Elementwise,
            zoo_hf.Llama,
            zoo_hf.Qwen2,
            zoo_hf.Gpt2,
        ),
    )
    if model is not None
}
MULTI_METHOD = "llm"  # two methods in one program: see zoo_multimethod
# Several executions in one ETDump (zoo_runs): each variant and its writer.
MULTI_RUN = {
    "multirun": (("fp32", "write_multirun"),),
    "decode-loop": (
        ("portable", "write_decode_loop"),
        ("int8", "write_decode_loop_int8"),
        ("8da4w", "write_decode_loop_8da4w"),
    ),
}
# A conv + BatchNorm CNN, int8 on portable kernels, with its float reference (zoo_bn).
CONV_BN = "bn-cnn"
# ExecuTorch's LLM quantisation: torchao 8da4w on XNNPACK, with its float reference (zoo_torchao).
TORCHAO_8DA4W = "llm-8da4w"
# ExecuTorch's intermediate-output tap on an int8 CNN (zoo_taps): whole tensors, and statistics.
TAPS = "taps"
# An int8 CNN with one culprit block, and gapscope-capture fix's verified answer (zoo_fix).
FIX = "fix"


def write_session(directory: Path, name: str, variant: str) -> Path:
    """Lower, run, capture and let ExecuTorch compare one model in one variant."""
    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    cls = MODELS[name]
    model = cls().eval()
    inputs = cls.example()
    exported = export(model, inputs)
    if variant == "int8":
        try:
            prepared = prepare_pt2e(
                exported.module(), XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
            )
            with torch.no_grad():
                for _ in range(CALIBRATION_BATCHES):
                    prepared(*cls.example())
            exported = export(convert_pt2e(prepared), inputs)
        except Exception as exc:  # noqa: BLE001 - where PT2E cannot quantise the model is a result
            # XNNPACKQuantizer's symmetric config quantises an embedding's integer
            # indices too, and the calibrated graph then indexes with floats.
            (directory / NOT_QUANTIZED).write_text(f"{type(exc).__name__}: {exc}\n")
            log.info("%s/int8: PT2E could not quantise it: %s", name, type(exc).__name__)
            return directory
    partitioners = [] if variant == "portable" else [XnnpackPartitioner()]
    program = lower_and_run(directory, exported, inputs, partitioners, DEBUG_BUFFER_SIZE)

    capture = capture_from_etrecord(directory / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(directory / "capture.gscap.safetensors")

    try:
        write_executorch_tables(directory)
    except Exception as exc:  # noqa: BLE001 - ExecuTorch's failure is a result to pin
        (directory / "executorch_error.txt").write_text(f"{type(exc).__name__}: {exc}\n")
        log.info("%s/%s: ExecuTorch's Inspector raised %s", name, variant, type(exc).__name__)
    log.info("%s/%s written in %.1f s", name, variant, time.monotonic() - started)
    return directory


def write_executorch_tables(directory: Path) -> None:
    """ExecuTorch's calculate_numeric_gap tables (MSE, L1, SNR) of a session folder, written
    beside it as executorch_gap_<metric>.json; raises what the Inspector raises, nothing
    written then."""
    inspector = Inspector(
        etdump_path=str(directory / "run.etdp"),
        etrecord=str(directory / "etrecord.bin"),
        debug_buffer_path=str(directory / "run.debug.bin"),
    )
    tables = {m: gap_rows(inspector.calculate_numeric_gap(m)) for m in METRICS}
    for metric, rows in tables.items():
        _write_json(directory / f"executorch_gap_{metric.lower()}.json", rows)


def write_executorch_row_tables(directory: Path) -> None:
    """ExecuTorch's rows and its own comparators (MSE, L1, SNR), row by row, as
    ``executorch_rows_<metric>.json``: where ``calculate_numeric_gap`` raises on
    the whole table because one row's comparator raises (shapes that do not
    broadcast), every other row still has ExecuTorch's numbers and that row has
    ``raises`` with the message. The rows are ExecuTorch's pairing, unchanged:
    only the comparison of each is guarded."""
    from executorch.devtools.inspector.numerical_comparator import (
        L1Comparator,
        MSEComparator,
        SNRComparator,
    )

    class Raised(str):
        """What one row's comparator raised, in place of its gaps."""

    def guarded(comparator: type) -> type:
        class Guarded(comparator):  # type: ignore[misc, valid-type]
            def _compare_intermediate_outputs(self, a: Any, b: Any) -> Any:
                try:
                    return super()._compare_intermediate_outputs(a, b)
                except Exception as exc:  # noqa: BLE001 - the row's failure is the result
                    return Raised(f"{type(exc).__name__}: {exc}")

        return Guarded

    inspector = Inspector(
        etdump_path=str(directory / "run.etdp"),
        etrecord=str(directory / "etrecord.bin"),
        debug_buffer_path=str(directory / "run.debug.bin"),
    )
    for metric, comparator in (("mse", MSEComparator), ("l1", L1Comparator), ("snr", SNRComparator)):
        rows = []
        for row in inspector.calculate_numeric_gap(guarded(comparator)()).itertuples(index=False):
            entry: dict[str, Any] = {
                "aot_debug_handle": [int(h) for h in row.aot_debug_handle],
                "aot_ops": [str(op) for op in row.aot_ops],
                "runtime_ops": [str(op) for op in row.runtime_ops],
                "runtime_debug_handle": [int(h) for h in row.runtime_debug_handle],
            }
            if isinstance(row.gap, Raised):
                entry["raises"] = str(row.gap)
            else:
                entry["gap"] = [json_float(value) for value in row.gap]
            rows.append(entry)
        _write_json(directory / f"executorch_rows_{metric}.json", rows)


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=2, allow_nan=False) + "\n", encoding="utf-8")
