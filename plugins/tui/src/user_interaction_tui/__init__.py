"""user-interaction-tui: the ``tui`` provider of user-interaction.

A full-screen terminal prompt on prompt_toolkit: arrow keys, a tab per question of a
batch, a review step before submitting, an "Other…" row for typed answers, option
previews beside the list and notes beside a choice. Select it with
``UserInteraction().use("tui")`` or register ``TuiProvider()``. prompt_toolkit is
imported on the first ask, not with this package.
"""

from __future__ import annotations

from ._provider import TuiProvider

__version__ = "0.1.0"

__all__ = ["TuiProvider", "__version__"]
