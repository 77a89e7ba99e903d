"""Decoding JSON that comes from outside: a request file, a model's tool arguments, an
answers file. One path, so that every caller gets the same guarantee: whatever the text,
a failure is a :class:`ValueError` with a message fit for a user."""

from __future__ import annotations

import json
from typing import Any, Callable

__all__ = ["loads"]


def loads(
    text: str | bytes | bytearray,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """:func:`json.loads`, except that nesting too deep for Python's parser (``"[" *
    200000``) is a :class:`ValueError` too, not a :class:`RecursionError`."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except RecursionError:
        raise ValueError("nested too deeply") from None
