"""user-interaction-acp: the ``acp`` provider of user-interaction.

An agent that speaks ACP (the Agent Client Protocol of Zed and other editors) asks its
questions in the editor: as one form (``elicitation/create``) when the client advertised
form elicitation, else permission prompts: one per single-select question, one per option
(include or skip) of a multi-select question. Each ask goes to the session of the prompt
turn it came from::

    bridge = AcpBridge()              # Agent.on_connect:  bridge.connect(conn)
    ui = UserInteraction()            # Agent.initialize:  bridge.set_client_capabilities(...)
    ui.use("acp")                     # Agent.cancel:      bridge.cancel(session_id)

    async def prompt(self, prompt, session_id, **kwargs):
        with bridge.turn(session_id) as turn:
            answer = await ui.ask(AskUserQuestionRequest(questions, signal=turn.signal))
"""

from __future__ import annotations

from ._provider import AcpProvider
from ._session import AcpBridge, AcpTurn, ClientConnection, current_turn

__version__ = "0.1.0"

__all__ = ["AcpBridge", "AcpProvider", "AcpTurn", "ClientConnection", "__version__", "current_turn"]
