"""The package, the benchmarks and the tests pass ``ruff check`` and ``ruff format --check``
(configuration in ``pyproject.toml``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ["shufflelib", "benchmarks", "tests"]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "ruff"] if shutil.which("ruff") is None else ["ruff"]
    return subprocess.run([*command, *args, *FOLDERS], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args", [("check",), ("format", "--check")], ids=["lint", "format"])
def test_ruff_passes(args):
    done = _ruff(*args)
    assert done.returncode == 0, done.stdout + done.stderr
