"""A griffe extension for the API reference: the docstrings use reST's inline roles and
literal-block markers, which Markdown does not know.

``:class:`~user_interaction.UserInteraction``` becomes ```UserInteraction```,
``:meth:`ask``` becomes ```ask```, and a paragraph ending in ``::`` ends in ``:``.
Loaded by mkdocstrings (``extensions`` in mkdocs.yml); not part of the site.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj|const):`~?([^`]+)`")
_LITERAL = re.compile(r"(\S)::$", re.MULTILINE)


def _short(match: re.Match[str]) -> str:
    target = match.group(1)
    if match.group(0).split("`", 1)[1].startswith("~"):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


class SphinxRoles(griffe.Extension):
    """Rewrites reST roles in every docstring to Markdown code spans."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None:
            text = _ROLE.sub(_short, docstring.value)
            docstring.value = _LITERAL.sub(r"\1:", text)
