"""Test fixtures: the demo and the parity zoo (python -m gapscope_zoo). Not installed."""
