"""``user-interaction mcp-server``: a stdio MCP server offering the ``ask_user_question`` tool.

Any MCP client without an ask-the-human tool gets one, with every UI of this project
behind it: the tool is the model-facing tool's (:data:`user_interaction.tool.NAME`, ``DESCRIPTION``,
``PARAMETERS``), each call goes through :func:`user_interaction.tool.call`, and its
result is ``render_answer``'s JSON or the error text with ``isError``.

The provider is the one ``UserInteraction.use()`` picks, or ``--provider``.
stdin and stdout are the protocol channel, so terminal providers talk to the controlling
terminal (``/dev/tty``) instead; the web provider prints its address on stderr.

The module is the command: the core's command line finds it through the
``user_interaction.commands`` entry point and calls :func:`add_arguments` and :func:`run`.
Also ``python -m user_interaction_mcp.server``; in-process, :func:`build_server` gives
the server for ``mcp.Client(build_server(ui))``.
"""

from __future__ import annotations

import argparse
import os
import sys
from io import TextIOWrapper
from typing import TYPE_CHECKING, Any, Final, Sequence

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

from user_interaction import (
    PROVIDER_ENV,
    PROVIDER_LOAD_FAILED,
    UserInteraction,
    UserInteractionError,
    tool,
)
from user_interaction.cli import add_provider_option, seconds

from . import __version__
from ._terminal import TERMINAL_PROVIDERS, Channel, claim_stdio

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = ["PROG", "SERVER_NAME", "add_arguments", "build_parser", "build_server", "main", "run"]

#: How the command names itself in usage and error lines.
PROG: Final = "user-interaction mcp-server"
#: The name the server gives itself in the MCP handshake.
SERVER_NAME: Final = "user-interaction"
_INSTRUCTIONS: Final = (
    f"Use the {tool.NAME} tool to ask the human user questions and wait for the answers."
)


def build_server(ui: UserInteraction, *, timeout: float | None = None) -> Server[Any]:
    """The MCP server of one tool, ``ask_user_question``, asking through ``ui``.

    Each call asks with ``timeout`` (seconds; ``None``: no limit); a call the client
    cancels withdraws the question.
    """
    listed = Tool(
        name=tool.NAME,
        description=tool.DESCRIPTION,
        input_schema=tool.PARAMETERS,
        annotations=ToolAnnotations(title="Ask the user", read_only_hint=True),
    )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=[listed])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        if params.name != tool.NAME:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name!r}")
        result = await tool.call(ui, params.arguments or {}, timeout=timeout)
        return CallToolResult(
            content=[TextContent(type="text", text=result.text)], is_error=result.is_error
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments, on ``parser`` (``user-interaction mcp-server``'s own)."""
    parser.description = (
        "Serve MCP over stdin/stdout with one tool, ask_user_question, that asks the human "
        "through a provider of this project. Terminal providers (stdio, tui) use the "
        "controlling terminal (/dev/tty), never stdin/stdout."
    )
    parser.epilog = (
        "exit status: 0 when the client disconnects; 5 when the provider cannot be used "
        "(not installed, fails to load, or needs a terminal there is none of); 130 on Ctrl-C"
    )
    parser.add_argument(
        "--provider",
        "-p",
        metavar="NAME",
        help=f"the provider to ask through (default: {PROVIDER_ENV}, else the available "
        "provider of highest priority)",
    )
    add_provider_option(parser)
    parser.add_argument(
        "--timeout", type=seconds, metavar="SECONDS", help="give up on each question after SECONDS"
    )


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command's parser, for ``python -m user_interaction_mcp.server``."""
    parser = argparse.ArgumentParser(prog=prog)
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the server until the client disconnects; returns the exit status."""
    from user_interaction.cli import EXIT_INTERRUPTED, EXIT_OK, exit_status

    prog = PROG
    try:
        channel = claim_stdio()
        with UserInteraction() as ui:
            _activate(ui, args.provider, dict(args.provider_option), channel.terminal)
            _serve(build_server(ui, timeout=args.timeout), channel)
    except UserInteractionError as error:
        _say(prog, f"{error.code}: {error.message}")
        return exit_status(error)
    except KeyboardInterrupt:
        _say(prog, "interrupted")
        return EXIT_INTERRUPTED
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``run`` with ``argv`` (default: ``sys.argv[1:]``) parsed."""
    return run(build_parser().parse_args(argv))


def _activate(ui: UserInteraction, name: str | None, options: dict[str, object], tty: bool) -> None:
    """``ui.use(name, **options)``, refusing a terminal provider when there is no terminal."""
    chosen = name or os.environ.get(PROVIDER_ENV, "").strip() or None
    if chosen is not None and not tty and chosen.rpartition(":")[2] in TERMINAL_PROVIDERS:
        raise UserInteractionError(
            f"the {chosen} provider needs a terminal, and this process has no controlling "
            "terminal (/dev/tty); stdin/stdout carry the MCP protocol. Choose another "
            "provider, e.g. --provider web",
            PROVIDER_LOAD_FAILED,
        )
    ui.use(name, **options)


def _serve(server: Server[Any], channel: Channel) -> None:
    import anyio

    async def serve() -> None:
        wire_in = anyio.wrap_file(TextIOWrapper(channel.read, encoding="utf-8", errors="replace"))
        wire_out = anyio.wrap_file(TextIOWrapper(channel.write, encoding="utf-8"))
        async with stdio_server(wire_in, wire_out) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


def _say(prog: str, text: str) -> None:
    sys.stderr.write(f"{prog}: {' '.join(text.split())}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
