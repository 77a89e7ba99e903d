"""user-interaction-inbox: asks that outlive their process.

One server (``user-interaction inbox serve``) keeps every agent's pending asks in a store
(an SQLite file in the state directory); agents ask through the ``inbox`` provider, and the
human answers from the command line (``inbox list``, ``inbox answer``)::

    ui = UserInteraction()
    ui.use("inbox")          # or nothing: chosen by itself when an inbox answers
    answer = ui.ask_sync(AskUserQuestionRequest(questions, key="deploy:build-42"))

A request with a ``key`` survives its caller: a restarted agent asking with the same key
joins the pending ask, or collects the answer the human gave meanwhile. The server's HTTP
guards and its page's code base (cards, answers, styles) are the web provider's
(``user-interaction-web``). aiohttp is imported by the server and when the provider is
built, not here (listing providers stays quick).
"""

from __future__ import annotations

from ._provider import InboxProvider

__version__ = "0.1.0"

__all__ = ["InboxProvider", "__version__"]
