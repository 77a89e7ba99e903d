"""What a value is, in JSON's terms, for error messages: the data model's checks use it,
and the provider toolkit offers it to plugins (kept apart so the model needs no toolkit)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["describe_value"]


def describe_value(value: object) -> str:
    """What ``value`` is, in JSON's terms, for an error message: ``null``, ``a boolean``,
    ``a number``, ``a string``, ``an array`` or ``an object`` (else the Python type's
    name). It never quotes the value: what a client or a model sent may be long, or not
    fit to show."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__
