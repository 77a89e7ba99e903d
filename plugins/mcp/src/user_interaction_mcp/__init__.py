"""user-interaction-mcp: the ``mcp`` provider of user-interaction.

Three uses of MCP's form elicitation:

- :class:`McpProvider` (entry point ``mcp``): inside an MCP server's tool,
  ``await ui.ask(...)`` shows a form in whatever client called the tool. Tools of
  2026-07-28 sessions are wrapped with :func:`interactive`.
- :func:`elicitation_handler`: an MCP client (an agent harness) routes every elicitation
  its servers send to the active provider of a ``UserInteraction``.
- ``user-interaction mcp-server``: a stdio MCP server offering ``ask_user_question``
  (see :mod:`user_interaction_mcp.server`).
"""

from __future__ import annotations

from ._handler import elicitation_handler
from ._provider import McpProvider, interactive

__version__ = "0.1.0"

__all__ = ["McpProvider", "__version__", "elicitation_handler", "interactive"]
