"""Real MCP peers for the client-side tests: a server whose tools elicit, and clients.

``python mcp_client_support.py`` serves :func:`form_server` over stdio, so the same tools
run in-process and in a child process.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Literal, Optional

import anyio
import mcp
from mcp import StdioServerParameters
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from pydantic import BaseModel, Field

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SERVER_NAME = "form-server"
#: Seconds a test waits for a child process; generous, the machine is shared.
PATIENCE = 60.0


class Profile(BaseModel):
    """Every primitive kind of an MCP form, as ``ctx.elicit`` renders them."""

    name: str = Field(title="Your name", description="As on your badge.")
    age: int = Field(ge=0, le=150)
    ratio: float = 0.5
    subscribe: bool = True
    email: Optional[str] = Field(default=None, json_schema_extra={"format": "email"})
    homepage: Optional[str] = Field(default=None, json_schema_extra={"format": "uri"})
    birthday: Optional[str] = Field(default=None, json_schema_extra={"format": "date"})
    meeting: Optional[str] = Field(default=None, json_schema_extra={"format": "date-time"})
    nickname: Optional[str] = Field(default=None, min_length=2, max_length=8)
    color: Literal["red", "green", "blue"] = "red"
    tags: list[Literal["lint", "test", "docs"]] = []


def form_server() -> MCPServer:
    """Tools that elicit: a typed form, a raw schema, a URL, and a 2026-07-28 round trip."""
    server = MCPServer(SERVER_NAME)

    @server.tool()
    async def profile(ctx: Context) -> str:
        result = await ctx.elicit("Tell us about yourself.", Profile)
        if result.action == "accept":
            return json.dumps({"action": "accept", "content": result.data.model_dump()})
        return json.dumps({"action": result.action})

    @server.tool()
    async def raw(ctx: Context, schema: dict[str, Any], message: str = "Please answer.") -> str:
        result = await ctx.request_context.session.elicit_form(
            message, schema, related_request_id=ctx.request_id
        )
        return json.dumps({"action": result.action, "content": result.content})

    @server.tool()
    async def hurry(ctx: Context, seconds: float) -> str:
        """Withdraw the form after ``seconds``: the SDK tells the client it is cancelled."""
        with anyio.move_on_after(seconds) as scope:
            await ctx.request_context.session.elicit_form(
                "Quick!",
                {"type": "object", "properties": {"a": {"type": "string"}}},
                related_request_id=ctx.request_id,
            )
        return json.dumps({"action": "withdrawn" if scope.cancelled_caught else "answered"})

    @server.tool()
    async def visit(ctx: Context, url: str) -> str:
        result = await ctx.elicit_url("Sign in to continue.", url, "elicitation-1")
        return json.dumps({"action": result.action})

    @server.tool()
    async def rounds(ctx: Context, schema: dict[str, Any]) -> str | InputRequiredResult:
        """The 2026-07-28 way: ask by returning input requests, read them on the retry."""
        answered = (ctx.input_responses or {}).get("form")
        if answered is None:
            ask = ElicitRequestFormParams(message="Please answer.", requested_schema=schema)
            return InputRequiredResult(input_requests={"form": ElicitRequest(params=ask)})
        assert isinstance(answered, ElicitResult)
        return json.dumps({"action": answered.action, "content": answered.content})

    return server


def stdio_params() -> StdioServerParameters:
    """This file, served over stdio by a child Python."""
    return StdioServerParameters(
        command=sys.executable, args=[str(Path(__file__).resolve())], env=child_env()
    )


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child process: this one, without extension autoloading."""
    env = dict(os.environ)
    env["USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD"] = "1"
    env.pop("USER_INTERACTION_PROVIDER", None)
    env.pop("USER_INTERACTION_ANSWERS", None)
    env.update(extra)
    return env


@asynccontextmanager
async def connect(
    where: Literal["in-process", "stdio"], mode: str = "legacy", **options: Any
) -> AsyncIterator[mcp.Client]:
    """A client of :func:`form_server`, in this process or in a child over stdio."""
    server: Any = form_server() if where == "in-process" else stdio_params()
    async with mcp.Client(server, mode=mode, **options) as client:  # type: ignore[arg-type]
        yield client


async def call_json(client: mcp.Client, name: str, **arguments: Any) -> Any:
    """Call a tool of :func:`form_server` and decode its JSON text."""
    result = await client.call_tool(name, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


if __name__ == "__main__":
    form_server().run()
