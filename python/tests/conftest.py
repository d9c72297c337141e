"""Shared fixtures: the demo session is built once per test run (about 15 s)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gapscope_zoo.demo import run_demo

    outdir = tmp_path_factory.mktemp("demo")
    run_demo(outdir)
    return outdir
