"""``user-interaction new-provider``: the distribution it writes installs, is discovered,
answers, and its own tests pass, the provider conformance suite included."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import TIMEOUT, child_env, run
from distfactory import make_dist

from user_interaction.cli import EXIT_ERROR, EXIT_OK, EXIT_USAGE

have_hatchling = importlib.util.find_spec("hatchling") is not None
have_pip = importlib.util.find_spec("pip") is not None


def generate(tmp_path: Path, name: str = "my-ui") -> Path:
    target = tmp_path / "work" / name
    done = run("new-provider", name, "--directory", str(target))
    assert done.returncode == EXIT_OK, done.stderr
    assert f"Created user-interaction-{name} in {target}:" in done.stdout
    return target


# The conformance checks the first scaffold failed: its blocking read ignored the signal.
INTERRUPTIBLE = [
    "test_abort_while_waiting",
    "test_timeout_while_waiting",
    "test_dispose_with_pending_asks",
]


def run_its_tests(project: Path, site: Path, *also: Path) -> subprocess.CompletedProcess[str]:
    env = child_env(site)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, also), env["PYTHONPATH"]])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def assert_they_pass(done: subprocess.CompletedProcess[str], module_suffix: str) -> None:
    """Every test passed: its own two, and the conformance suite's (those needing a gesture
    the console has not, such as cancel, are skipped)."""
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed, \d+ skipped in ", summary), summary
    assert "failed" not in summary and "error" not in summary, summary
    own = f"tests/test_{module_suffix}.py::"
    assert f"{own}test_provider_is_discovered PASSED" in done.stdout
    assert f"{own}test_provider_answers PASSED" in done.stdout
    conformance = re.findall(rf"test_{module_suffix}_conformance\.py::\S+ PASSED", done.stdout)
    assert len(conformance) >= 14, done.stdout
    for name in INTERRUPTIBLE:
        assert f"::{name} PASSED" in done.stdout, done.stdout


def test_the_files_it_writes(tmp_path: Path) -> None:
    project = generate(tmp_path)
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    assert files == [
        "README.md",
        "pyproject.toml",
        "src/user_interaction_my_ui/__init__.py",
        "src/user_interaction_my_ui/py.typed",
        "tests/test_my_ui.py",
        "tests/test_my_ui_conformance.py",
    ]
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert 'name = "user-interaction-my-ui"' in pyproject
    assert 'build-backend = "hatchling.build"' in pyproject
    assert '[project.entry-points."user_interaction.providers"]' in pyproject
    assert '"my-ui" = "user_interaction_my_ui:MyUiProvider"' in pyproject
    source = (project / "src/user_interaction_my_ui/__init__.py").read_text(encoding="utf-8")
    assert "class MyUiProvider:" in source
    assert "request.signal.race(" in source  # its reading is interruptible
    tests = (project / "tests/test_my_ui_conformance.py").read_text(encoding="utf-8")
    assert "class TestMyUiProviderConformance(ProviderConformance):" in tests
    assert "{{" not in pyproject + source + tests
    compile(source, "__init__.py", "exec")
    compile(tests, "test_my_ui_conformance.py", "exec")


def test_the_default_directory(tmp_path: Path) -> None:
    done = run("new-provider", "web", cwd=tmp_path)
    assert done.returncode == EXIT_OK, done.stderr
    assert (tmp_path / "user-interaction-web" / "src/user_interaction_web/__init__.py").is_file()
    assert "user-interaction dev web" in done.stdout


def test_its_tests_pass_with_a_hand_made_dist_info(tmp_path: Path) -> None:
    project = generate(tmp_path)
    site = tmp_path / "site"
    entry_points = {"my-ui": "user_interaction_my_ui:MyUiProvider"}
    make_dist(site, "user-interaction-my-ui", "0.1.0", entry_points)
    done = run_its_tests(project, site, project / "src")
    assert_they_pass(done, "my_ui")


@pytest.mark.skipif(not (have_hatchling and have_pip), reason="needs pip and hatchling")
def test_it_installs_with_pip_and_answers(tmp_path: Path) -> None:
    project = generate(tmp_path, "pip-made")
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    install = subprocess.run(
        [
            *pip,
            "--no-deps",
            "--no-build-isolation",
            "--no-cache-dir",
            "--target",
            str(site),
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    done = run_its_tests(project, site)
    assert_they_pass(done, "pip_made")

    listed = run("providers", site=site)
    row = next(line.split() for line in listed.stdout.splitlines() if "pip-made" in line)
    assert row[-4:] == [
        "pip-made",
        "user-interaction-pip-made",
        "0.1.0",
        "user_interaction_pip_made:PipMadeProvider",
    ]
    asked = run("ask", "Deploy?", "-o", "Yes", "-o", "No", "-p", "pip-made", site=site, input="2\n")
    assert (asked.returncode, asked.stdout) == (0, "No\n"), asked.stderr
    assert "Deploy?" in asked.stderr


@pytest.mark.parametrize("name", ["My_UI", "9lives", "a--b", "ui-", "x y", ""])
def test_invalid_names(tmp_path: Path, name: str) -> None:
    done = run("new-provider", name, cwd=tmp_path)
    assert done.returncode == EXIT_USAGE
    assert "invalid provider name" in done.stderr
    assert not any(tmp_path.iterdir())


def test_refuses_a_directory_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    done = run("new-provider", "web", "--directory", str(tmp_path))
    assert done.returncode == EXIT_ERROR
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("user-interaction: ") and "not an empty directory" in line
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_an_empty_directory_is_fine(tmp_path: Path) -> None:
    done = run("new-provider", "web", "--directory", str(tmp_path))
    assert done.returncode == EXIT_OK
    assert (tmp_path / "pyproject.toml").is_file()
