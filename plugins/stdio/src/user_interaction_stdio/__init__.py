"""user-interaction-stdio: the ``stdio`` provider of user-interaction.

Asks on a terminal or through pipes: each question with numbered options, one typed line
per answer. Select it with ``UserInteraction().use("stdio")`` or register
``StdioProvider()`` (optionally on other text streams: ``StdioProvider(input, output)``).
"""

from __future__ import annotations

from ._provider import StdioProvider

__version__ = "0.1.0"

__all__ = ["StdioProvider", "__version__"]
