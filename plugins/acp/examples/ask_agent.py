"""A small ACP agent that asks its user through user-interaction's ``acp`` provider.

Launch it from an ACP client (an editor, or the SDK's client side) over stdio::

    python ask_agent.py

Every prompt makes it ask the user, in the editor, and reply with the answer:

* a prompt whose text is a JSON request (``{"questions": [...]}``, the wire form of
  ``AskUserQuestionRequest``, optionally with ``"timeout": seconds``) asks those
  questions;
* any other prompt asks a built-in pair of questions.

The reply is one agent message: the answer as compact JSON
(``{"answers":[{"id":"pkg","selected":["pnpm"]}]}``), or the error as
``{"error":{"name":...,"code":...,"message":...}}``. A turn the client cancels ends with
the stop reason ``cancelled``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import uuid
from typing import Any, cast

from acp import (
    PROTOCOL_VERSION,
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    update_agent_message_text,
)
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AudioContentBlock,
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    ResourceContentBlock,
    StopReason,
    TextContentBlock,
)
from user_interaction_acp import AcpBridge

from user_interaction import (
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.tool import render_answer

DEMO = AskUserQuestionRequest(
    [
        AskUserQuestionItem(
            "pkg",
            "Which package manager should I use?",
            header="Package manager",
            options=[
                AskUserQuestionOption("pnpm", "fast, strict (recommended)"),
                AskUserQuestionOption("npm", "the default"),
            ],
            detail="The lockfile decides what CI installs.",
        ),
        AskUserQuestionItem(
            "checks",
            "Which checks should run before each commit?",
            header="Checks",
            options=[AskUserQuestionOption("lint"), AskUserQuestionOption("tests")],
            multi_select=True,
        ),
    ]
)


ContentBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


class AskingAgent:
    """Answers every prompt by asking the user and reporting the answer."""

    def __init__(self) -> None:
        self._client: Client | None = None
        self.bridge = AcpBridge()
        self.ui = UserInteraction()
        self.ui.use("acp")  # the provider's entry point; AcpProvider() works too

    # -- the connection: tell the bridge about it ----------------------------------------

    def on_connect(self, conn: Client) -> None:
        self._client = conn
        self.bridge.connect(conn)

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.bridge.set_client_capabilities(client_capabilities)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="ask-agent", title="Ask agent", version="0.1.0"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=f"session-{uuid.uuid4().hex[:8]}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.bridge.cancel(session_id)  # withdraws the session's open questions

    # -- a prompt turn: ask inside bridge.turn(session_id) -------------------------------

    async def prompt(
        self, session_id: str, prompt: list[ContentBlock], **kwargs: Any
    ) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        stop_reason: StopReason = "end_turn"
        with self.bridge.turn(session_id) as turn:
            try:
                request, timeout = _parse(text)
                answer = await self.ui.ask(
                    AskUserQuestionRequest(request.questions, signal=turn.signal),
                    timeout=timeout,
                )
                reply = render_answer(answer)
            except UserInteractionError as error:
                reply = json.dumps({"error": error.to_dict()}, separators=(",", ":"))
                if turn.signal.aborted:
                    stop_reason = "cancelled"
        assert self._client is not None
        await self._client.session_update(session_id, update_agent_message_text(reply))
        return PromptResponse(stop_reason=stop_reason)


def _parse(text: str) -> tuple[AskUserQuestionRequest, float | None]:
    """The request in a prompt: a JSON request (with an optional timeout) or the demo."""
    if not text.startswith("{"):
        return DEMO, None
    try:
        data = json.loads(text)
    except ValueError:
        return DEMO, None
    timeout = data.pop("timeout", None) if isinstance(data, dict) else None
    return AskUserQuestionRequest.from_dict(data), timeout


async def main() -> None:
    # The SDK routes each request to the agent's method of that name and answers "method
    # not found" where there is none: a small agent implements only what it uses.
    await run_agent(cast("Agent", AskingAgent()))


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    asyncio.run(main())
