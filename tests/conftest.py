"""Test configuration: property tests are reproducible under CI.

Under ``CI`` (set by ``.ci/run`` and by GitHub Actions) every hypothesis test draws the
same examples on every run (``derandomize``) and keeps no example database, so a red CI
run can be reproduced exactly; locally the examples are random, so repeated runs keep
exploring (a failure found that way is printed with its example and should become a test).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
