"""Shared fixtures: the demo session is built once per test run (about 15 s)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def test_data_dir() -> Path:
    """The repository's committed sessions (tests/data): named by the e2e, which runs
    these tests from a copy of python/, else found beside this folder."""
    import os

    named = os.environ.get("GAPSCOPE_TEST_DATA_DIR")
    found = Path(named) if named else Path(__file__).resolve().parents[2] / "tests" / "data"
    if not found.is_dir():
        pytest.fail(f"the committed test sessions are not at {found}: set GAPSCOPE_TEST_DATA_DIR")
    return found


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gapscope_zoo.demo import run_demo

    outdir = tmp_path_factory.mktemp("demo")
    run_demo(outdir)
    return outdir
