"""Start-up of the command line: whole simple questions against ``python -c "import scipy.special"``.

Each command is a fresh process (``python -m shufflelib ...``), timed in CPU seconds of the
child (user + system, from the operating system's accounting of the finished process: a
loaded machine stretches wall time, not CPU time), alternating with the yardstick ``python -c
"import scipy.special"`` run for run; the ratio is taken pair by pair and the median printed.
The target (issue "start-up of the command line"): any simple question at most twice the
yardstick. A simple question is one whose bound is a closed form or a single numerical
evaluation; ``--help`` lists every bound (it imports every family's modules) and is shown for
reference.

``--before REV`` (e.g. ``034875a^``, the commit before the lazy imports) also times each command
with the package as it was at git revision ``REV`` (exported by ``git archive`` into a temporary
folder that leads ``PYTHONPATH``), run for run with the current one, and adds its columns.

Run ``python benchmarks/bench_startup.py [--runs 7] [--before REV]``; it prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

YARDSTICK = ["-c", "import scipy.special"]

#: The questions timed: the README's first command first.
QUESTIONS = [
    ["epsilon", "--bound", "clones", "--n", "100000", "--eps0", "1", "--delta", "1e-6"],
    ["delta", "--bound", "clones", "--n", "100000", "--eps0", "1", "--eps", "0.05"],
    ["eps0", "--bound", "clones", "--n", "100000", "--eps", "0.1", "--delta", "1e-6"],
    [
        "epsilon",
        "--bound",
        "stronger-clones",
        "--mechanism",
        "krr",
        "--k",
        "2",
        "--n",
        "100000",
        "--eps0",
        "1",
        "--delta",
        "1e-6",
    ],
    ["epsilon", "--bound", "erlingsson", "--n", "100000", "--eps0", "0.4", "--delta", "1e-6"],
    ["epsilon", "--bound", "blanket-bennett", "--n", "100000", "--eps0", "1", "--delta", "1e-6"],
    ["epsilon", "--bound", "clones", "--n", "1_000", "--eps0", "1", "--delta", "1e-6"],  # a refusal
    ["--help"],
]


def cpu(arguments: list[str], package: str | None = None) -> float:
    """CPU seconds (user + system) of ``python arguments`` in a new process (``package``: a folder
    holding an older ``shufflelib``, put first on ``PYTHONPATH`` and used as working directory)."""
    env = None
    if package is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")]))}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *arguments], capture_output=True, check=False, env=env, cwd=package)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def export(revision: str, folder: str) -> str:
    """The package as it was at git ``revision``, exported into ``folder``; returns ``folder``."""
    root = Path(__file__).resolve().parent.parent
    archive = Path(folder) / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", revision, "shufflelib"], cwd=root, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    archive.unlink()
    # the old tree must be the one imported
    where = subprocess.run(
        [sys.executable, "-c", "import shufflelib; print(shufflelib.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": folder},
    ).stdout.strip()
    if not where.startswith(str(Path(folder).resolve())) and not where.startswith(folder):
        raise SystemExit(f"the exported tree is not the one imported ({where})")
    return folder


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="pairs of runs per question (default 7)")
    parser.add_argument("--before", metavar="REV", help="also time the package at git revision REV")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old = export(args.before, folder) if args.before else None
        table(args.runs, old, args.before)


def table(runs: int, old: str | None, revision: str | None) -> None:
    cpu(YARDSTICK)  # warm the file cache
    head = "| question | CPU s (median) | yardstick CPU s (median) | ratio (median of pairs) |"
    rule = "|---|---:|---:|---:|"
    if old is not None:
        head += f" CPU s at {revision} | ratio at {revision} |"
        rule += "---:|---:|"
    print(head)
    print(rule)
    for question in QUESTIONS:
        argv = ["-m", "shufflelib", *question]
        cpu(argv)
        if old is not None:
            cpu(argv, old)
        rows = []
        for _ in range(runs):
            rows.append((cpu(argv), cpu(YARDSTICK), cpu(argv, old) if old is not None else 0.0))
        now = statistics.median(a for a, _, _ in rows)
        line = (
            f"| `python -m shufflelib {' '.join(question)}` | {now:.3f} | "
            f"{statistics.median(b for _, b, _ in rows):.3f} | {statistics.median(a / b for a, b, _ in rows):.2f} |"
        )
        if old is not None:
            then = statistics.median(c for _, _, c in rows)
            line += f" {then:.3f} | {statistics.median(c / b for _, b, c in rows):.2f} |"
        print(line, flush=True)


if __name__ == "__main__":
    run()
