"""The repository's own settings: one version, one ruff pin, a tox matrix that installs
the providers as users do, exercises the ``dev`` extra and runs each suite where it must,
and a CI entry point that runs the README's test command."""

from __future__ import annotations

import ast
import configparser
import re
import shlex
import sys
from pathlib import Path

import user_interaction

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

import importlib.metadata as importlib_metadata

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def tox() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return parser


def test_the_version_is_written_once_in_the_package() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/user_interaction/__init__.py"
    # the installed metadata was read from there
    assert importlib_metadata.version("user-interaction") == user_interaction.__version__


def test_ruff_is_pinned_once_and_pre_commit_agrees() -> None:
    (pin,) = [
        requirement
        for requirement in PYPROJECT["project"]["optional-dependencies"]["lint"]
        if requirement.startswith("ruff")
    ]
    version = re.fullmatch(r"ruff==([\w.]+)", pin)
    assert version is not None, f"the lint extra pins ruff exactly, not {pin!r}"
    lint = tox()["testenv:lint"]
    assert lint["extras"].split() == ["lint"]
    assert "ruff" not in lint.get("deps", "")
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    revs = re.findall(r"astral-sh/ruff-pre-commit\s+rev: v([\w.]+)", config)
    assert revs == [version[1]]


def commands_pre(env: str, key: str = "commands_pre") -> list[str]:
    """The install commands (or other ``key``) the tox env ``env`` (e.g. ``py312``) runs,
    continuation lines joined and factor conditions resolved."""
    text = tox()["testenv"][key].replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        factors, sep, command = line.partition(": ")
        if not (sep and re.fullmatch(r"[\w,]+", factors.strip())):
            command = line
        elif env not in factors.strip().split(","):
            continue
        if command.strip():
            commands.append(" ".join(command.split()))
    return commands


def test_a_tox_env_installs_every_provider_with_its_dependencies() -> None:
    installed_with_deps = " ".join(c for c in commands_pre("py312") if "--no-deps" not in c)
    for plugin in sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir()):
        if (ROOT / "plugins" / plugin / "pyproject.toml").is_file():
            assert f"{{tox_root}}/plugins/{plugin}" in installed_with_deps, plugin


def test_a_tox_env_installs_the_dev_extra() -> None:
    extras = tox()["testenv"]["extras"].split("\n")
    assert "py312: dev" in [line.strip() for line in extras]
    assert "py312" in tox()["tox"]["env_list"]


def test_factor_conditional_commands_fit_on_one_line() -> None:
    """A continuation line of a factor-conditional command would run in every env."""
    for line in tox()["testenv"]["commands_pre"].splitlines():
        if re.match(r"\s*[\w,]+: ", line):
            assert not line.rstrip().endswith("\\"), line


PY_ENVS = [env for env in tox()["tox"]["env_list"].replace(",", " ").split() if env[2:].isdigit()]


def pytest_run(env: str) -> tuple[str, list[str]]:
    """What the tox env ``env`` runs: its ``-m`` expression and the test paths it names
    (none: pytest's ``testpaths``, every suite)."""
    (command,) = [c for c in commands_pre(env, "commands") if c.startswith("pytest ")]
    words = shlex.split(command)
    marks = words[words.index("-m") + 1]
    return marks, [word for word in words if word == "tests" or word.startswith("plugins/")]


def runs(env: str, suite: str) -> bool:
    """Whether the tox env ``env`` runs the test directory ``suite``."""
    paths = pytest_run(env)[1] or PYPROJECT["tool"]["pytest"]["ini_options"]["testpaths"]
    return suite in paths


def test_the_core_suite_runs_on_every_python() -> None:
    assert PY_ENVS == ["py39", "py310", "py311", "py312", "py313"]
    for env in PY_ENVS:
        assert runs(env, "tests"), env


def test_each_provider_suite_runs_on_the_oldest_and_newest_python_it_supports() -> None:
    for project in sorted((ROOT / "plugins").glob("*/pyproject.toml")):
        metadata = tomllib.loads(project.read_text(encoding="utf-8"))["project"]
        oldest = re.fullmatch(r">=3\.(\d+)", metadata["requires-python"])
        assert oldest is not None, project
        suite = f"plugins/{project.parent.name}/tests"
        assert runs(f"py3{oldest[1]}", suite), suite
        assert runs(PY_ENVS[-1], suite), suite


def test_the_slow_tests_run_on_the_oldest_and_newest_python_only() -> None:
    for env in PY_ENVS:
        marks = pytest_run(env)[0]
        if env in (PY_ENVS[0], PY_ENVS[-1]):
            assert marks == "not browser and not postgres", env
        else:
            assert marks == "not browser and not slow and not postgres", env


def test_the_postgres_tests_run_in_an_env_of_their_own() -> None:
    """They start PostgreSQL clusters: the core matrix stays quick without them."""
    assert "inbox-postgres" in tox()["tox"]["env_list"]
    env = tox()["testenv:inbox-postgres"]
    assert "plugins/inbox[test,postgres]" in env["commands_pre"]
    assert "CI" in env["pass_env"].split()
    (command,) = env["commands"].strip().splitlines()
    words = shlex.split(command)
    assert words[words.index("-m") + 1] == "postgres"


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [block for block in fenced(readme, "sh") if "tox" in block]
    command = block.splitlines()[0]
    assert command.startswith("python3 -m venv .tox-venv && "), command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == command


def test_contributing_names_the_quick_loop() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    quick = '.venv/bin/pytest -n 2 -m "not slow and not browser"'
    assert quick in readme
    assert quick in contributing


def test_nothing_cites_a_contract_that_is_not_in_the_repository() -> None:
    """What users rely on is said in the project's own docs, never by pointing at a
    contract or design notes kept elsewhere."""
    import subprocess

    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False
    ).stdout.split(b"\0")
    if not listed or listed == [b""]:  # not a git checkout (an unpacked sdist, say)
        return
    cited = re.compile(r"SPEC\s*§|§\s*\d|\bdesign/[a-z]+\.md")
    found = []
    for name in (item.decode() for item in listed if item):
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".toml", ".ini", ".js", ".css", ".html", ".txt"}:
            continue
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        found += [f"{name}:{n}" for n, line in enumerate(lines, 1) if cited.search(line)]
    assert found == []


def _core_imports() -> dict[str, set[str]]:
    """Each core module and the core modules it imports anywhere in its text: at the top,
    under ``TYPE_CHECKING`` and inside functions (lazy imports) alike."""
    package = ROOT / "src" / "user_interaction"

    def name_of(path: Path) -> str:
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name_of(path): path for path in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        home = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = home.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            found.update(target for target in targets if target in modules and target != name)
        graph[name] = found
    return graph


def test_the_core_has_no_import_cycle() -> None:
    """No core module reaches itself through its imports, type-only and lazy ones counted:
    a cycle makes the import order matter and the modules one tangle."""
    graph = _core_imports()
    assert "user_interaction._describe" in graph["user_interaction._model"]  # it sees imports

    cleared: set[str] = set()  # explored: no cycle runs through them

    def cycle_from(start: str) -> list[str] | None:
        path: list[str] = []

        def visit(module: str) -> list[str] | None:
            if module in path:
                return [*path[path.index(module) :], module]
            if module in cleared:
                return None
            path.append(module)
            for imported in sorted(graph[module]):
                found = visit(imported)
                if found:
                    return found
            path.pop()
            cleared.add(module)
            return None

        return visit(start)

    for module in sorted(graph):
        cycle = cycle_from(module)
        assert cycle is None, " -> ".join(cycle)


def test_no_core_module_is_over_600_lines() -> None:
    """A module longer than that does several jobs: split it by role. The conformance
    suite is the exception, one cohesive list of checks."""
    exempt = {"testing/conformance.py"}
    package = ROOT / "src" / "user_interaction"
    long = {
        path.relative_to(package).as_posix(): count
        for path in package.rglob("*.py")
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert {name: count for name, count in long.items() if name not in exempt} == {}
    assert exempt <= set(long), "the exemption is no longer needed: drop it"
