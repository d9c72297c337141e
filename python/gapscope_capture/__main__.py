"""``python -m gapscope_capture``: the ``gapscope-capture`` command without the console script."""

from gapscope_capture.cli import entry

entry()
