"""``python -m shufflelib``: the privacy calculator (:mod:`shufflelib.calculator`).

The command line is a short process that allocates large arrays a few times each (the composed
questions' grids and FFTs). NumPy advises the kernel to back each large array with transparent
huge pages (``NUMPY_MADVISE_HUGEPAGE``, on by default); a kernel that compacts memory to serve
that advice (``defrag`` set to ``madvise``) then spends about 0.3 s of a two-second question in
page faults (``eps0 --bound stronger-clones --n 1e9 --sample-rate 1e-3 --compose 10000``: 0.70 s
of system time against 0.23 s). The command line turns the advice off unless the variable is set.
"""

import os
import sys

os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # read by NumPy at its import, below

from shufflelib.calculator import main  # noqa: E402

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
