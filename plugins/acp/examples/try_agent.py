"""Try the example agent without an editor: a small ACP client for the terminal.

    python try_agent.py                           # the agent's built-in questions
    python try_agent.py '{"questions": [...]}'    # a request of your own (its wire form)

It starts ``ask_agent.py`` (next to this file) with this interpreter, over stdio, as an
editor would, opens a session and sends one prompt. Each question the agent asks comes
as a ``session/request_permission`` (this client has no forms, so a multi-select question
is one include/skip prompt per option, and a free-text question fails): it is shown as a
numbered menu on stderr; type a number and Enter, or end the input (Ctrl-D) to cancel.
The agent's reply, the answer or the error as JSON, is printed on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

AGENT = Path(__file__).resolve().with_name("ask_agent.py")

# The agent's text is not trusted: show control characters (escape sequences, bidi and
# zero-width marks) as visible escapes instead of letting them act on the terminal.
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def visible(text: str) -> str:
    return _CONTROL.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


def show(text: str, end: str = "\n") -> None:
    print(visible(text), end=end, file=sys.stderr, flush=True)


class TerminalClient:
    """The client side: permission prompts become numbered menus; the agent's messages are
    kept for the end."""

    def __init__(self) -> None:
        self.replies: list[str] = []

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        show(f"\n{tool_call.title or 'The agent asks'}")
        for block in tool_call.content or []:
            text = getattr(getattr(block, "content", None), "text", None)
            if isinstance(text, str):
                show(text)
        for number, option in enumerate(options, 1):
            show(f"  {number}. {option.name}")
        while True:
            show(f"Choose 1-{len(options)}: ", end="")
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:  # end of input: the user dismissed the prompt
                show("")
                return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
            choice = line.strip()
            if choice.isdigit() and 1 <= int(choice) <= len(options):
                picked = options[int(choice) - 1].option_id
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(outcome="selected", option_id=picked)
                )
            show(f"Type a number from 1 to {len(options)}.")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        text = getattr(getattr(update, "content", None), "text", None)
        if isinstance(text, str):
            self.replies.append(text)


async def main(prompt: str) -> str:
    """Run one prompt turn against the example agent; return its stop reason."""
    client = TerminalClient()
    async with spawn_agent_process(
        cast("Client", client), sys.executable, str(AGENT), env=dict(os.environ)
    ) as (connection, _process):
        await connection.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        session = await connection.new_session(cwd=os.getcwd(), mcp_servers=[])
        response = await connection.prompt(
            session_id=session.session_id, prompt=[text_block(prompt)]
        )
    for reply in client.replies:
        print(visible(reply), flush=True)
    return str(response.stop_reason)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "prompt", nargs="?", default="hello", help="the prompt: any text, or a JSON request"
    )
    stop_reason = asyncio.run(main(parser.parse_args().prompt))
    sys.exit(0 if stop_reason == "end_turn" else 1)
