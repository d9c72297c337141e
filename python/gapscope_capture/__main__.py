"""``python -m gapscope_capture``: the ``gapscope-capture`` command without the console script."""

import sys

from gapscope_capture.cli import main

sys.exit(main())
