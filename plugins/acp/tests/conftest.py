"""The ACP SDK needs Python 3.10+, so the provider is installed (and tested) only there."""

from __future__ import annotations

import sys

if sys.version_info < (3, 10):
    collect_ignore_glob = ["test_acp_*.py", "acp_support.py"]
