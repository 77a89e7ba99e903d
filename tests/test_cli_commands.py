"""Subcommands from plugins: real distributions with ``user_interaction.commands`` entry
points, run through the real command line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from cli_support import run
from distfactory import make_dist

from user_interaction import cli
from user_interaction.cli._commands import COMMAND_GROUP

# A command written three ways: a module with the two functions, a ready object, a class.
GREET = """
import sys

def add_arguments(parser):
    parser.add_argument("who")
    parser.add_argument("--loud", action="store_true")

def run(args):
    text = f"hello {args.who}"
    print(text.upper() if args.loud else text)
    return 7 if args.who == "seven" else 0


class Command:
    def add_arguments(self, parser):
        add_arguments(parser)

    def run(self, args):
        return run(args)


ready = Command()
"""


def site_with(root: Path, entry_points: dict[str, str], **modules: str) -> Path:
    make_dist(
        root,
        "greet-plugin",
        "2.5",
        entry_points,
        modules={"greet_plugin.py": GREET, **modules},
        group=COMMAND_GROUP,
    )
    return root


@pytest.mark.parametrize(
    "value", ["greet_plugin", "greet_plugin:ready", "greet_plugin:Command"], ids=str
)
def test_a_plugin_command_runs_with_its_own_arguments(tmp_path: Path, value: str) -> None:
    site = site_with(tmp_path, {"greet": value})
    done = run("greet", "world", "--loud", site=site)
    assert (done.returncode, done.stdout, done.stderr) == (0, "HELLO WORLD\n", "")
    assert run("greet", "seven", site=site).returncode == 7  # its status is the command's


def test_help_lists_plugin_commands_without_importing_them(tmp_path: Path) -> None:
    site = site_with(
        tmp_path,
        {"greet": "greet_plugin", "boom": "boom_plugin"},
        **{"boom_plugin.py": "raise SystemExit('imported!')\n"},
    )
    done = run("--help", site=site)
    assert done.returncode == 0
    assert "greet" in done.stdout and "boom" in done.stdout
    assert "from greet-plugin" in done.stdout
    assert "imported!" not in done.stdout + done.stderr
    # another command runs without importing it too
    assert run("greet", "you", site=site).stdout == "hello you\n"


@pytest.mark.parametrize(
    ("module", "problem"),
    [
        ("import no_such_dependency_here\n", "failed to load: ModuleNotFoundError: "),
        ("def run(args):\n    return 0\n", "has no add_arguments(parser) and run(args)"),
    ],
    ids=["import", "shape"],
)
def test_a_plugin_command_that_fails_to_load_is_one_line_naming_its_distribution(
    tmp_path: Path, module: str, problem: str
) -> None:
    site = site_with(tmp_path, {"broken": "broken_plugin"}, **{"broken_plugin.py": module})
    done = run("broken", "--flag", site=site)
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        "user-interaction: command 'broken' (broken_plugin, from greet-plugin 2.5) "
    )
    assert problem in line


def test_a_name_two_distributions_offer_is_refused(tmp_path: Path) -> None:
    site = site_with(tmp_path, {"greet": "greet_plugin"})
    make_dist(tmp_path, "other-greet", "1.0", {"greet": "greet_plugin"}, group=COMMAND_GROUP)
    done = run("greet", "x", site=site)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "user-interaction: command 'greet' is offered by more than one: greet-plugin 2.5 "
        "and other-greet 1.0"
    ]


def test_the_cores_own_commands_cannot_be_replaced(tmp_path: Path) -> None:
    site = site_with(tmp_path, {"providers": "greet_plugin"})
    done = run("providers", "--json", site=site)
    assert done.returncode == 0
    assert done.stdout.startswith('{\n  "group": "user_interaction.providers"')


def test_our_own_missing_commands_say_how_to_install_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both of our own distributions' commands, as a machine without them sees them (the
    py39 env has neither; elsewhere they are hidden from discovery)."""
    monkeypatch.setattr(cli._commands, "installed_commands", dict)
    for name, distribution, folder in [
        ("mcp-server", "user-interaction-mcp", "plugins/mcp"),
        ("inbox", "user-interaction-inbox", "plugins/inbox"),
    ]:
        assert cli.main([name, "--provider", "stdio"]) == cli.EXIT_ERROR
        assert capsys.readouterr().err.splitlines() == [
            f"user-interaction: {name} needs the {distribution} distribution (Python "
            f"3.10+): pip install {distribution} (from a checkout: pip install -e {folder})"
        ]
        assert cli.main([name, "--help"]) == cli.EXIT_OK
        assert f"pip install {distribution}" in capsys.readouterr().out


@pytest.mark.skipif(
    importlib.util.find_spec("user_interaction_mcp") is not None,
    reason="user-interaction-mcp is installed here",
)
def test_without_the_mcp_distribution_mcp_server_says_how_to_install_it() -> None:
    done = run("mcp-server")
    assert done.returncode == 1
    assert "pip install user-interaction-mcp" in done.stderr


def test_a_malformed_command_entry_point_breaks_only_itself(tmp_path: Path) -> None:
    """An entry point whose value is no object reference (the importlib_metadata backport
    of Python 3.9 refuses to build one): the other commands run, and it fails alone."""
    site = site_with(tmp_path, {"greet": "greet_plugin", "bad": "not a reference!"})
    assert run("greet", "you", site=site).stdout == "hello you\n"
    assert run("providers", site=site).returncode == 0
    done = run("bad", site=site)
    assert done.returncode == 1
    assert done.stderr.startswith("user-interaction: command 'bad' (not a reference!, from ")
    assert len(done.stderr.splitlines()) == 1


def test_the_core_imports_no_plugin() -> None:
    """Every module of the core, the command line's included, imports no provider or
    command distribution: plugins come in through their entry points only."""
    import subprocess
    import sys

    code = (
        "import pkgutil, importlib, sys, user_interaction\n"
        "for info in pkgutil.walk_packages(user_interaction.__path__, 'user_interaction.'):\n"
        "    if not info.name.endswith(('.pytest_plugin', '.conformance')):\n"
        "        importlib.import_module(info.name)\n"
        "from user_interaction.cli import build_parser\n"
        "build_parser(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('user_interaction_')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
    for path in sorted((Path(cli.__file__).parent.parent).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "import user_interaction_" not in text, path
        assert "from user_interaction_" not in text, path
