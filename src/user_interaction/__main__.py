"""``python -m user_interaction``: the same as the ``user-interaction`` command."""

from __future__ import annotations

if __name__ == "__main__":
    import sys

    from .cli import main

    sys.exit(main())
