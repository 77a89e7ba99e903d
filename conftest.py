"""Shared by every test directory of the repository.

The test environment has deliberately broken extensions installed
(``tests/fixtures/dists/ext_broken``), and a broken installed extension fails every ask
(SPEC §10). So installed extensions are not autoloaded in the tests — nor in the processes
they start, which inherit the environment — unless a test turns autoload back on.
"""

from __future__ import annotations

import os

os.environ.setdefault("USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD", "1")
