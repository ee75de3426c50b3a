"""``python -m shufflelib``: the privacy calculator (:mod:`shufflelib.calculator`).

The command line is a short process that allocates large arrays a few times each (the composed
questions' grids and FFTs, tens of megabytes each). Two defaults of the platform make each of
them cost fresh pages from the kernel, about a quarter of a composed question at 10⁹ users:

* NumPy advises the kernel to back large arrays with transparent huge pages
  (``NUMPY_MADVISE_HUGEPAGE``, on by default); a kernel that compacts memory to serve that advice
  (``defrag`` set to ``madvise``) then spends 0.3–0.5 s of a two-second question in page faults.
  The command line turns the advice off unless the variable is set.
* glibc's ``malloc`` hands a freed large block back to the kernel (blocks above its ``mmap``
  threshold, and the heap's free top above its trim threshold), so the next array of that size
  faults in zeroed pages again. The command line keeps blocks up to 32 MiB in the heap and keeps
  up to 512 MiB of freed heap for reuse (``mallopt``; nothing on another C library).

Measured on ``delta --bound pop-tight --population poisson:1000000000 --compose 10000 --eps0
0.003 --eps 1e-4`` (CPU seconds, user + system): 1.86 + 0.70 with both defaults, 1.79 + 0.45
without the advice, 1.80 + 0.26 with both changes.
"""

import ctypes
import os
import sys

os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # read by NumPy at its import, below


def _reuse_freed_memory() -> None:
    """glibc's ``mallopt``: ``M_MMAP_THRESHOLD`` 32 MiB (its largest) and ``M_TRIM_THRESHOLD`` 512 MiB."""
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(-3, 32 * 2**20)  # M_MMAP_THRESHOLD
    mallopt(-1, 512 * 2**20)  # M_TRIM_THRESHOLD


_reuse_freed_memory()

from shufflelib.calculator import main  # noqa: E402

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
