"""Start-up of the command line: whole simple questions against ``python -c "import scipy.special"``.

Each command is a fresh process (``python -m shufflelib ...``), timed in CPU seconds of the
child (user + system, from the operating system's accounting of the finished process: a
loaded machine stretches wall time, not CPU time), alternating with the yardstick ``python -c
"import scipy.special"`` run for run; the ratio is taken pair by pair and the median printed.
The target (issue "start-up of the command line"): any simple question at most twice the
yardstick. A simple question is one whose bound is a closed form or a single numerical
evaluation; ``--help`` lists every bound (it imports every family's modules) and is shown for
reference.

Run ``python benchmarks/bench_startup.py [--runs 7]``; it prints a Markdown table.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys

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


def cpu(arguments: list[str]) -> float:
    """CPU seconds (user + system) of ``python arguments`` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *arguments], capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="pairs of runs per question (default 7)")
    args = parser.parse_args()
    cpu(YARDSTICK)  # warm the file cache
    print("| question | CPU s (median) | yardstick CPU s (median) | ratio (median of pairs) |")
    print("|---|---:|---:|---:|")
    for question in QUESTIONS:
        cpu(["-m", "shufflelib", *question])
        pairs = [(cpu(["-m", "shufflelib", *question]), cpu(YARDSTICK)) for _ in range(args.runs)]
        ratio = statistics.median(a / b for a, b in pairs)
        command = " ".join(question)
        print(
            f"| `python -m shufflelib {command}` | {statistics.median(a for a, _ in pairs):.3f} | "
            f"{statistics.median(b for _, b in pairs):.3f} | {ratio:.2f} |"
        )


if __name__ == "__main__":
    run()
