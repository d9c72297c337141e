"""Write one real QNN-delegated session with ExecuTorch's Qualcomm backend (HTP simulator).

usage: make_qnn_session.py OUT MODEL QUANT [SOC [DEBUG_BUFFER_BYTES]]
  MODEL  convnet | attention | multiout | llama | demo
  QUANT  8a8w | 16a8w | 16a4w | fp16, or xnnpack-int8: the same model, weights, input and
         calibration lowered to XNNPACK with PT2E int8 instead (the A/B of
         docs/compare-runs.md: one model, two backends), or portable: the float model
         on ExecuTorch's portable kernels, no delegate
  DEBUG_BUFFER_BYTES  the runtime's debug buffer, written whole (default 4 MiB)
  --float-reference  also capture_float.gscap.safetensors: the float model keyed by
         the debugger's handles (capture_float_reference)

Follows the flow of shared/qnn-x86/example_qnn_session.py (what a user runs) and
adds Gapscope's exporter at the point where the debugger is alive. OUT receives
model.pte, etrecord.bin, run.etdp, run.debug.bin, capture.gscap.safetensors
(gapscope_capture.capture.capture_from_qnn_debugger) and qnn_debugger_cosine.csv,
the per-layer table of ExecuTorch's own QNN intermediate debugger (the referee).
Run it with the kit's venv after sourcing its env.sh.
"""
import os
import shutil
import sys

import torch
from executorch.backends.qualcomm.debugger.qcom_numerical_comparator_sample import (
    QcomCosineSimilarityComparator,
)
from executorch.backends.qualcomm.debugger.qnn_intermediate_debugger import (
    OutputFormat,
    QNNIntermediateDebugger,
)
from executorch.backends.qualcomm.export_utils import QnnConfig, build_executorch_binary
from executorch.backends.qualcomm.quantizer.quantizer import QuantDtype
from executorch.extension.pybindings.portable_lib import _load_for_executorch

from gapscope_capture.capture import capture_float_reference, capture_from_qnn_debugger


class ConvNet(torch.nn.Module):
    """The kit example's model: conv, relu, sigmoid, a residual add, mean, linear."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        # In place, as torchvision's ReLU(inplace=True): the graph names it relu_,
        # which QNN's aten_relu_default must pair with (issue 56).
        y = torch.nn.functional.relu(self.c1(x), inplace=True)
        z = torch.sigmoid(self.c2(y)) + y
        return self.fc(z.mean(dim=(2, 3)))

    @staticmethod
    def example():
        return torch.randn(1, 3, 16, 16)


class Attention(torch.nn.Module):
    """A transformer block: layer_norm, single-head attention with softmax, MLP."""

    def __init__(self, dim=32):
        super().__init__()
        self.norm1 = torch.nn.LayerNorm(dim)
        self.q = torch.nn.Linear(dim, dim)
        self.k = torch.nn.Linear(dim, dim)
        self.v = torch.nn.Linear(dim, dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 2 * dim)
        self.fc2 = torch.nn.Linear(2 * dim, dim)
        self.scale = dim ** -0.5

    def forward(self, x):
        h = self.norm1(x)
        attn = torch.softmax(torch.matmul(self.q(h), self.k(h).transpose(-1, -2)) * self.scale, dim=-1)
        x = x + self.proj(torch.matmul(attn, self.v(h)))
        return x + self.fc2(torch.relu(self.fc1(self.norm2(x))))

    @staticmethod
    def example():
        return torch.randn(1, 16, 32)


class MultiOut(torch.nn.Module):
    """Multi-output ops: split into three chunks and topk, whose values and indices are
    also program outputs (ExecuTorch 1.5.1's QNN delegate returns those two swapped)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 12, 3, padding=1)

    def forward(self, x):
        a, b, c = torch.split(torch.relu(self.conv(x)), 4, dim=1)
        values, indices = torch.topk(a.mean(dim=(2, 3)) + b.mean(dim=(2, 3)), 2, dim=1)
        return values, indices, c * 0.5

    @staticmethod
    def example():
        return torch.randn(1, 3, 8, 8)


class LlamaDecoderLayer(torch.nn.Module):
    """One Llama decoder layer as ExecuTorch's Qualcomm Llama recipe writes it
    (examples/qualcomm/oss_scripts/llama/model/static_llama.py, batch prefill): RMSNorm,
    grouped-query attention (4 query heads over 2 key/value heads, repeat_kv), rotate-half
    RoPE from cos/sin inputs, an additive causal mask, SwiGLU MLP, two residual adds.
    Written out here because importing that module pulls in its whole example tree."""

    dim, heads, kv_heads, hidden, tokens = 64, 4, 2, 128, 16

    def __init__(self):
        super().__init__()
        d, hd = self.dim, self.dim // self.heads
        self.attention_norm = torch.nn.RMSNorm(d, eps=1e-5)
        self.wq = torch.nn.Linear(d, self.heads * hd, bias=False)
        self.wk = torch.nn.Linear(d, self.kv_heads * hd, bias=False)
        self.wv = torch.nn.Linear(d, self.kv_heads * hd, bias=False)
        self.wo = torch.nn.Linear(self.heads * hd, d, bias=False)
        self.ffn_norm = torch.nn.RMSNorm(d, eps=1e-5)
        self.w1 = torch.nn.Linear(d, self.hidden, bias=False)
        self.w2 = torch.nn.Linear(self.hidden, d, bias=False)
        self.w3 = torch.nn.Linear(d, self.hidden, bias=False)

    @staticmethod
    def rope(x, cos, sin):
        x_r, x_i = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        cos, sin = cos[None, None, :, :], sin[None, None, :, :]
        return torch.cat([x_r * cos - x_i * sin, x_r * sin + x_i * cos], dim=-1)

    @staticmethod
    def repeat_kv(x, n_rep):
        b, kv, s, hd = x.shape
        return x[:, :, None, :, :].expand(b, kv, n_rep, s, hd).reshape(b, kv * n_rep, s, hd)

    def forward(self, x, freqs_cos, freqs_sin, atten_mask):
        b, s, _ = x.shape
        hd = self.dim // self.heads
        h = self.attention_norm(x)
        q = self.wq(h).view(b, s, self.heads, hd).transpose(1, 2)
        k = self.wk(h).view(b, s, self.kv_heads, hd).transpose(1, 2)
        v = self.wv(h).view(b, s, self.kv_heads, hd).transpose(1, 2)
        q = self.rope(q, freqs_cos, freqs_sin)
        k = self.rope(k, freqs_cos, freqs_sin).transpose(2, 3)
        n_rep = self.heads // self.kv_heads
        attn = q @ self.repeat_kv(k, n_rep) / hd ** 0.5
        attn = torch.softmax(attn + atten_mask, dim=-1)
        y = (attn @ self.repeat_kv(v, n_rep)).transpose(1, 2).reshape(b, s, -1)
        h = x + self.wo(y)
        f = self.ffn_norm(h)
        return h + self.w2(torch.nn.functional.silu(self.w1(f)) * self.w3(f))

    @classmethod
    def example(cls):
        hd = cls.dim // cls.heads
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        angles = torch.outer(torch.arange(cls.tokens).float(), inv_freq)
        mask = torch.full((cls.tokens, cls.tokens), -255.0).triu(1)
        return torch.randn(1, cls.tokens, cls.dim), angles.cos(), angles.sin(), mask


class Demo(torch.nn.Module):
    """The app's QNN demo: a conv stem, one attention block over its 64 tokens, a softmax head."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.block = Attention(32)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        y = torch.relu(self.c2(torch.relu(self.c1(x))))
        tokens = self.block(y.flatten(2).transpose(1, 2))
        logits = self.head(tokens.mean(dim=1))
        return torch.softmax(logits, dim=-1)

    @staticmethod
    def example():
        return torch.randn(1, 3, 32, 32)


MODELS = {"convnet": ConvNet, "attention": Attention, "multiout": MultiOut, "demo": Demo,
          "llama": LlamaDecoderLayer}


def write_xnnpack_int8(out, model, x, calibration, buffer_bytes):
    """The zoo's XNNPACK int8 session (gapscope_zoo.zoo.write_session) of this model."""
    from pathlib import Path

    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torch.export import export
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from gapscope_capture.capture import capture_from_etrecord, capture_from_program
    from gapscope_capture.host_run import lower_and_run

    prepared = prepare_pt2e(export(model, x).module(),
                            XNNPACKQuantizer().set_global(get_symmetric_quantization_config()))
    with torch.no_grad():
        for batch in calibration:
            prepared(*batch)
    exported = export(convert_pt2e(prepared), x)
    program = lower_and_run(Path(out), exported, x, [XnnpackPartitioner()], buffer_bytes)
    capture = capture_from_etrecord(Path(out) / "etrecord.bin")
    capture.fill_quantization(capture_from_program(program))
    capture.write(f"{out}/capture.gscap.safetensors")
    print({f: os.path.getsize(f"{out}/{f}") for f in sorted(os.listdir(out))})


def write_portable(out, model, x, buffer_bytes):
    """The float model on the portable kernels, captured from its ETRecord."""
    from pathlib import Path

    from torch.export import export

    from gapscope_capture.capture import capture_from_etrecord
    from gapscope_capture.host_run import lower_and_run

    lower_and_run(Path(out), export(model, x), x, [], buffer_bytes)
    capture_from_etrecord(Path(out) / "etrecord.bin").write(f"{out}/capture.gscap.safetensors")


def main():
    # --profile-level=N turns on QNN's own profiling (2: detailed, 3: optrace), so the
    # ETDump holds the delegate's per-op events beside the intermediate outputs.
    # --runs=N runs the method N times into one ETDump (the timing table's runs).
    profile_level, runs, float_reference = 0, 1, False
    argv = []
    for arg in sys.argv[1:]:
        if arg.startswith("--profile-level="):
            profile_level = int(arg.split("=", 1)[1])
        elif arg.startswith("--runs="):
            runs = int(arg.split("=", 1)[1])
        elif arg == "--float-reference":
            float_reference = True
        else:
            argv.append(arg)
    out, model_name, quant = argv[0], argv[1], argv[2]
    soc = argv[3] if len(argv) > 3 else "SM8650"
    buffer_bytes = int(argv[4]) if len(argv) > 4 else 4 << 20
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cls = MODELS[model_name]
    model = cls().eval()
    def inputs():  # example() gives one tensor or a tuple of inputs
        example = cls.example()
        return example if isinstance(example, tuple) else (example,)

    x = inputs()
    calibration = [x] + [inputs() for _ in range(7)]
    if quant == "xnnpack-int8":
        return write_xnnpack_int8(out, model, x, calibration, buffer_bytes)
    if quant == "portable":
        return write_portable(out, model, x, buffer_bytes)

    cfg = QnnConfig(soc_model=soc, build_folder="unused", enable_x86_64=True,
                    dump_intermediate_outputs=True, profile_level=profile_level)
    dbg = QNNIntermediateDebugger(sample_input=calibration[0])
    build_executorch_binary(model, cfg, f"{out}/model", calibration,
                            quant_dtype=None if quant == "fp16" else getattr(QuantDtype, "use_" + quant),
                            qnn_intermediate_debugger=dbg)

    m = _load_for_executorch(f"{out}/model.pte", enable_etdump=True, debug_buffer_size=buffer_bytes)
    for _ in range(runs):
        m.run_method("forward", x)
    m.write_etdump_result_to_file(f"{out}/run.etdp", f"{out}/run.debug.bin")

    # Gapscope's exporter: the debugger's reference with its quantisation and layout.
    capture = capture_from_qnn_debugger(dbg)
    capture.write(f"{out}/capture.gscap.safetensors")
    if float_reference:
        # The float model under the same handles (issue 54): what the recipe costs per op.
        float_program = torch.export.export(model, x)
        capture_float_reference(float_program, capture).write(f"{out}/capture_float.gscap.safetensors")

    # The referee. It raises on some models (split/topk: an IndexError in ExecuTorch's
    # alignment); the session is still valid and Gapscope must still compare it.
    try:
        dbg.setup_inspector(etdump_path=f"{out}/run.etdp", debug_buffer_path=f"{out}/run.debug.bin")
        cos = dbg.create_comparator(QcomCosineSimilarityComparator, threshold=0.9)
        dbg.generate_results(title="qnn_debugger_cosine", path=out, output_format=OutputFormat.CSV_FILE,
                             comparator=cos)
    except Exception as exc:  # noqa: BLE001 - recorded for the parity check
        with open(f"{out}/qnn_debugger_error.txt", "w") as f:
            f.write(f"{type(exc).__name__}: {exc}\n")
        print(f"ExecuTorch's QNN debugger raised: {type(exc).__name__}: {exc}")
    shutil.move(f"{out}/debug.etrecord", f"{out}/etrecord.bin")
    print({f: os.path.getsize(f"{out}/{f}") for f in sorted(os.listdir(out))})


if __name__ == "__main__":
    main()
