"""The MCP SDK needs Python 3.10+: the provider is installed (and tested) there only."""

from __future__ import annotations

import sys

if sys.version_info < (3, 10):
    collect_ignore_glob = ["*.py"]
