"""``user-interaction mcp-server`` driven by the MCP SDK's client, in-process and over stdio."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp
import pytest
from child_support import completed
from mcp import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_client_support import PATIENCE, child_env
from user_interaction_mcp.server import SERVER_NAME, build_parser, build_server

from user_interaction import UserInteraction, tool
from user_interaction.testing import ScriptedProvider, custom, reject

PKG = {
    "questions": [
        {
            "id": "pkg",
            "question": "Which package manager?",
            "header": "Package",
            "options": [{"label": "npm"}, {"label": "pnpm", "description": "fast, strict"}],
        }
    ]
}
NAME = {"questions": [{"id": "name", "question": "Your name?"}]}


def text_of(result: Any) -> str:
    [content] = result.content
    assert content.type == "text"
    return str(content.text)


def answers_file(tmp_path: Path, answers: dict[str, Any]) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"answers": answers}), encoding="utf-8")
    return str(path)


def server_command(*arguments: str) -> list[str]:
    return ["-m", "user_interaction", "mcp-server", *arguments]


# -- in-process: build_server(ui) ----------------------------------------------------------


def test_in_process_the_tool_answers_and_reports_errors() -> None:
    provider = ScriptedProvider({"pkg": "pnpm", "name": reject("ASK_DECLINED", "Not now.")})

    async def run() -> list[Any]:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            async with mcp.Client(build_server(ui), mode="legacy") as client:
                assert client.session.server_info is not None
                assert client.session.server_info.name == SERVER_NAME
                listed = await client.list_tools()
                answered = await client.call_tool(tool.NAME, PKG)
                declined = await client.call_tool(tool.NAME, NAME)
                with pytest.raises(MCPError, match="Unknown tool"):
                    await client.call_tool("rm_rf", {})
                return [listed, answered, declined]

    listed, answered, declined = asyncio.run(run())
    [offered] = listed.tools
    assert (offered.name, offered.description) == (tool.NAME, tool.DESCRIPTION)
    assert offered.input_schema == tool.PARAMETERS
    assert not answered.is_error
    assert text_of(answered) == '{"answers":[{"id":"pkg","selected":["pnpm"]}]}'
    assert declined.is_error
    assert text_of(declined) == "Error: Not now."
    [request] = provider.requests[:1]
    assert request.questions[0].options[1].description == "fast, strict"


def test_in_process_a_timeout_is_an_error_result() -> None:
    async def run() -> Any:
        with UserInteraction() as ui:
            ui.register_provider(ScriptedProvider(default=custom("late"), delay=5))
            async with mcp.Client(build_server(ui, timeout=0.05), mode="auto") as client:
                return await client.call_tool(tool.NAME, NAME)

    result = asyncio.run(run())
    assert result.is_error
    assert text_of(result).startswith("Error: ")


# -- over stdio: the command, end to end -----------------------------------------------------


def serve_and_call(env: dict[str, str], *arguments: str, calls: list[Any]) -> list[Any]:
    """Spawn ``python -m user_interaction mcp-server ARGUMENTS``; list tools, then call."""
    params = StdioServerParameters(command=sys.executable, args=server_command(*arguments), env=env)

    async def run() -> list[Any]:
        async with mcp.Client(params) as client:
            results: list[Any] = [await client.list_tools()]
            for call in calls:
                results.append(await client.call_tool(tool.NAME, call))
            return results

    return asyncio.run(asyncio.wait_for(run(), PATIENCE))


def test_over_stdio_the_scripted_provider_answers_by_priority(tmp_path: Path) -> None:
    env = child_env(USER_INTERACTION_ANSWERS=answers_file(tmp_path, {"pkg": "pnpm"}))
    bad = {"questions": [{"id": "", "question": "?"}]}
    listed, answered, unanswered, invalid = serve_and_call(env, calls=[PKG, NAME, bad])
    [offered] = listed.tools
    assert offered.name == tool.NAME
    assert offered.description == tool.DESCRIPTION
    assert offered.input_schema == tool.PARAMETERS
    assert not answered.is_error
    assert text_of(answered) == '{"answers":[{"id":"pkg","selected":["pnpm"]}]}'
    assert unanswered.is_error
    assert "No answer is scripted for question 'name'" in text_of(unanswered)
    assert invalid.is_error
    assert text_of(invalid).startswith("Error: questions[0].id:")


def test_an_answer_holding_a_lone_surrogate_is_an_error_result_and_the_server_lives_on(
    tmp_path: Path,
) -> None:
    """No JSON reply can carry a lone surrogate: the answer is refused as invalid, and the
    server answers the next call."""
    path = tmp_path / "answers.json"
    path.write_text('{"answers": {"name": {"custom": "\\ud800x"}, "pkg": "npm"}}', "utf-8")
    env = child_env(USER_INTERACTION_ANSWERS=str(path))
    _, refused, answered = serve_and_call(env, calls=[NAME, PKG])
    assert refused.is_error
    assert text_of(refused) == (
        "Error: answers[0].custom: must be valid Unicode: it holds a lone surrogate"
    )
    assert text_of(answered) == '{"answers":[{"id":"pkg","selected":["npm"]}]}'


def test_over_stdio_provider_and_options_are_named(tmp_path: Path) -> None:
    path = answers_file(tmp_path, {"name": {"custom": "Ada"}})
    env = child_env(USER_INTERACTION_PROVIDER="web")  # --provider wins over the environment
    _, answered = serve_and_call(
        env, "--provider", "scripted", "--provider-option", f"path={path}", calls=[NAME]
    )
    assert text_of(answered) == '{"answers":[{"id":"name","selected":[],"custom":"Ada"}]}'


def run_command(*arguments: str, env: dict[str, str]) -> Any:
    """Run the command with no controlling terminal and stdin a pipe; it must end by itself."""
    done = subprocess.run(
        [sys.executable, *server_command(*arguments)],
        check=False,
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENCE,
        start_new_session=True,  # no controlling terminal, as under most MCP clients
    )
    return completed(done)


@pytest.mark.parametrize("how", ["--provider", "environment"])
def test_a_terminal_provider_without_a_terminal_is_one_line(how: str) -> None:
    if how == "--provider":
        done = run_command("--provider", "stdio", env=child_env())
    else:
        done = run_command(env=child_env(USER_INTERACTION_PROVIDER="tui"))
    assert done.returncode == 5
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("user-interaction mcp-server: PROVIDER_LOAD_FAILED: the ")
    assert "no controlling terminal (/dev/tty)" in line


def test_an_unknown_provider_is_one_line() -> None:
    done = run_command("--provider", "nosuch", env=child_env())
    assert done.returncode == 5
    [line] = done.stderr.splitlines()
    assert line.startswith("user-interaction mcp-server: PROVIDER_NOT_FOUND: ")


def test_the_client_leaving_ends_the_server(tmp_path: Path) -> None:
    env = child_env(USER_INTERACTION_ANSWERS=answers_file(tmp_path, {"pkg": "pnpm"}))
    done = run_command(env=env)  # stdin closes at once: the client has gone
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def run_python(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``python ARGUMENTS`` to its end, its output captured."""
    done = subprocess.run(
        [sys.executable, *arguments],
        check=False,
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=PATIENCE,
    )
    return completed(done)


def test_the_core_command_that_cannot_import_the_server_says_so_in_one_line() -> None:
    hide = "import sys; sys.modules['user_interaction_mcp'] = None; "
    run = "from user_interaction.cli import main; sys.exit(main(sys.argv[1:]))"
    done = run_python("-c", hide + run, "mcp-server", "--provider", "stdio")
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        "user-interaction: command 'mcp-server' (user_interaction_mcp.server, from "
        "user-interaction-mcp "
    )
    assert ") failed to load: ModuleNotFoundError: " in line


def test_the_core_command_forwards_help_to_the_server() -> None:
    done = run_python(*server_command("--help"))
    assert done.returncode == 0
    assert done.stdout.startswith("usage: user-interaction mcp-server [-h] [--provider NAME]")


def test_the_module_runs_the_same_server() -> None:
    done = run_python("-m", "user_interaction_mcp.server", "--help")
    assert done.returncode == 0
    assert "ask_user_question" in done.stdout


def test_options_are_read_as_the_core_command_reads_them() -> None:
    """One parser for ``--provider-option`` and ``--timeout``: the core command's, so JSON
    too deeply nested to parse stays a string instead of a RecursionError traceback."""
    deep = "[" * 200_000
    args = build_parser().parse_args(
        ["--provider-option", f"deep={deep}", "--provider-option", "port=8765", "--timeout", "9"]
    )
    assert dict(args.provider_option) == {"deep": deep, "port": 8765}
    assert args.timeout == 9.0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--timeout", "inf"])
