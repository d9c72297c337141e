"""The zoo's model names, importable without torch (for the command line)."""

MODEL_NAMES = (
    "vit",
    "mobilenetv3",
    "decoder",
    "indexing",
    "llm",
    "recurrent",
    "elementwise",
    "hf-llama",
    "hf-qwen2",
    "hf-gpt2",
    "multirun",
    "decode-loop",
    "bn-cnn",
    "llm-8da4w",
    "taps",
    "fix",
    "arm",
)
