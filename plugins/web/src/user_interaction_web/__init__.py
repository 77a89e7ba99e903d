"""user-interaction-web: the ``web`` provider of user-interaction.

Every pending ask is a card on a local web page, answered with Submit, Cancel or
Decline. The page is served from a loopback-only HTTP server that the provider starts on
its own thread at the first ask (aiohttp is imported then, not here)::

    ui = UserInteraction()
    ui.use("web")            # or ui.register_provider(WebProvider(port=8765))
    answer = ui.ask_sync(request)   # stderr: user-interaction: answer questions at http://...

The address carries a per-process token in its fragment: open it as printed.
"""

from __future__ import annotations

from ._provider import WebProvider

__version__ = "0.1.0"

__all__ = ["WebProvider", "__version__"]
