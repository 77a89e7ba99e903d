"""Where user-interaction keeps what outlives a process: the state directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

__all__ = ["STATE_DIR_ENV", "state_dir"]

#: Overrides the state directory (tests point it at a temporary directory).
STATE_DIR_ENV: Final = "USER_INTERACTION_STATE_DIR"


def state_dir() -> Path:
    """The directory for state kept across processes (the inbox's store and address,
    remembered decisions): ``USER_INTERACTION_STATE_DIR`` if set, else the platform's user
    state directory for ``user-interaction`` (``~/.local/state/user-interaction`` on Linux,
    honouring ``XDG_STATE_HOME``).

    It is not created here: whoever writes to it creates it, private to the user (0700).
    """
    chosen = os.environ.get(STATE_DIR_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_state_dir("user-interaction", appauthor=False))
