"""Write Gapscope AOT capture files: reference intermediate outputs of an ExecuTorch model.

Submodules: ``capture_format`` reads and writes the file format without
importing ExecuTorch; ``capture`` produces captures from an ETRecord or an
in-memory program, and float references of quantised ones; ``quantization`` reads quantisation parameters off graph
nodes; ``cli`` is the ``gapscope-capture`` command. The test fixtures (the
demo and the parity zoo) are ``gapscope_zoo``, beside this package and never
installed with it.
"""

__version__ = "0.1.0"
# The AOT capture format version this exporter writes (docs/formats/aot-capture.md);
# here rather than in capture_format so that --version needs no torch.
CAPTURE_FORMAT_VERSION = 1
