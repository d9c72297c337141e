"""Decoder-only LLMs of the zoo, built from Hugging Face ``transformers`` configs.

Random weights from a seeded config: nothing is downloaded. Each is small (2 layers,
64 wide, 8 tokens) but has its family's structure: Llama with grouped-query
attention (2 KV heads for 4 query heads, ``repeat_kv``) and rotary embeddings,
Qwen2 likewise with biased QKV projections, GPT-2 with learned positions and
fused QKV. Lowered to XNNPACK, RoPE's cos/sin and RMSNorm's ``pow`` land in one
delegate with several outputs of one shape (``docs/metrics.md``, delegate pairing).
"""

from __future__ import annotations

import torch

VOCAB = 128
TOKENS = 8


class CausalLM(torch.nn.Module):
    """A ``transformers`` causal LM returning only its logits, without a KV cache."""

    family = ""

    def __init__(self) -> None:
        super().__init__()
        import transformers

        if self.family == "gpt2":
            config = transformers.GPT2Config(
                n_embd=64, n_layer=2, n_head=4, vocab_size=VOCAB, n_positions=64
            )
            model_class = transformers.GPT2LMHeadModel
        else:
            config_class, model_class = {
                "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
                "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
            }[self.family]
            config = config_class(
                hidden_size=64,
                intermediate_size=128,
                num_hidden_layers=2,
                num_attention_heads=4,
                num_key_value_heads=2,
                vocab_size=VOCAB,
                max_position_embeddings=64,
            )
        config._attn_implementation = "sdpa"
        self.model = model_class(config).eval()

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits

    @staticmethod
    def example() -> tuple[torch.Tensor, ...]:
        return (torch.randint(0, VOCAB, (1, TOKENS)),)


class Llama(CausalLM):
    family = "llama"


class Qwen2(CausalLM):
    family = "qwen2"


class Gpt2(CausalLM):
    family = "gpt2"
