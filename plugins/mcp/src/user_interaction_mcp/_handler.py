"""Client side: route an MCP client's elicitations to a UserInteraction (being written)."""

from __future__ import annotations

from typing import Any


def elicitation_handler(ui: Any) -> Any:
    """Placeholder until the client side lands."""
    raise NotImplementedError
