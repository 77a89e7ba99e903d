"""Server side: the provider and the ``@interactive`` tool decorator (being written)."""

from __future__ import annotations

from typing import Any


class McpProvider:
    """Placeholder until the server side lands."""


def interactive(fn: Any) -> Any:
    """Placeholder until the server side lands."""
    return fn
