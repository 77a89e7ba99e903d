"""The old place of :func:`user_interaction.cli.forget_caught_interrupt`, which the inbox
plugin's ``attend`` still imports from here; remove once it imports the public name."""

from __future__ import annotations

from .cli import forget_caught_interrupt as _forget_caught_interrupt

__all__ = ["_forget_caught_interrupt"]
