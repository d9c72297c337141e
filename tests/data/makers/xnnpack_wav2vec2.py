"""Writes tests/data/xnnpack_wav2vec2_{fp32,int8}: a tiny Hugging Face Wav2Vec2 (CTC
head, random weights from a seeded config) on XNNPACK, fp32 and PT2E int8, with
ExecuTorch's rows and comparators row by row (executorch_rows_<metric>.json).

Its positional convolution's weight norm (pow, sum, pow, div, mul: one debug
handle) is split over two delegate calls and two kernel calls, and the delegates
return several outputs (issue 54).

usage: PYTHONPATH=python python xnnpack_wav2vec2.py OUTDIR   (in a venv with the exporter, torch 2.13.0,
executorch 1.5.1, transformers). The model file is not kept.
"""
import sys
from pathlib import Path

import torch

import gapscope_zoo.zoo as zoo


class Wav2Vec2(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        import transformers

        config = transformers.Wav2Vec2Config(
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            conv_dim=(16, 16),
            conv_stride=(5, 2),
            conv_kernel=(10, 3),
            num_conv_pos_embeddings=16,
            num_conv_pos_embedding_groups=2,
            vocab_size=16,
        )
        config._attn_implementation = "eager"
        self.model = transformers.Wav2Vec2ForCTC(config).eval()

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        return self.model(audio).logits

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randn(1, 400),)


out = Path(sys.argv[1])
zoo.MODELS["wav2vec2"] = Wav2Vec2
zoo.DEBUG_BUFFER_SIZE = 1 << 20  # what the run writes, with room; keeps the fixture small
for variant in ("fp32", "int8"):
    directory = out / f"xnnpack_wav2vec2_{variant}"
    zoo.write_session(directory, "wav2vec2", variant)
    zoo.write_executorch_row_tables(directory)
    (directory / "model.pte").unlink()
print("ok")
