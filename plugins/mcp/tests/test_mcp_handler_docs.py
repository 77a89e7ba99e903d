"""The client-side examples of docs/mcp.md run as written (scripted answers play the human)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from mcp_client_support import PATIENCE, ROOT, child_env
from user_interaction_mcp.server import build_parser

PAGE = ROOT / "docs" / "mcp.md"
#: Where the client side begins on the page (the server side has examples of its own).
CLIENT_SIDE = "## Routing an MCP client's elicitations to any UI"


def examples() -> list[str]:
    """The page's runnable Python examples, in order."""
    client_side = PAGE.read_text(encoding="utf-8").split(CLIENT_SIDE, 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", client_side, re.S)
    return [block for block in blocks if "asyncio.run(main())" in block]


def run_example(source: str, tmp_path: Path, **env: str) -> str:
    script = tmp_path / "example.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=child_env(**env),
        timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_routing_example_asks_through_the_chosen_ui(tmp_path: Path) -> None:
    answers = tmp_path / "human.json"
    script = {"target": "production", "replicas": {"custom": "3"}, "notify": "No"}
    answers.write_text(json.dumps({"answers": script}), encoding="utf-8")
    routing, _ = examples()
    out = run_example(
        routing,
        tmp_path,
        USER_INTERACTION_PROVIDER="scripted",
        USER_INTERACTION_ANSWERS=str(answers),
    )
    assert out == (
        "AcceptedElicitation(action='accept', "
        "data=Deploy(target='production', replicas=3, notify=False))\n"
    )


def test_the_server_example_prints_what_the_page_says(tmp_path: Path) -> None:
    _, driving = examples()
    assert run_example(driving, tmp_path) == (
        'False {"answers":[{"id":"pkg","selected":["pnpm"]}]}\n'
    )
    assert 'This prints `False {"answers":[{"id":"pkg","selected":["pnpm"]}]}`.' in (
        PAGE.read_text(encoding="utf-8")
    )


def test_the_client_configurations_are_valid_commands() -> None:
    text = PAGE.read_text(encoding="utf-8")
    configs = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]
    assert len(configs) == 2
    for config in configs:
        [entry] = (config.get("mcpServers") or config["servers"]).values()
        assert entry["command"] == "user-interaction"
        command, *arguments = entry["args"]
        assert command == "mcp-server"
        parsed = build_parser().parse_args(arguments)
        assert parsed.provider == "web"
        assert dict(parsed.provider_option) == {"open_browser": True}
