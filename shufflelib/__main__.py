"""``python -m shufflelib``: the privacy calculator (:mod:`shufflelib.calculator`)."""

import sys

from shufflelib.calculator import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
