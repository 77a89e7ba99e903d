"""The PostgreSQL tests' rule where no cluster can run: skipped with the reason on a
developer's machine, failed under CI (which installs PostgreSQL and the postgres extra).

Each case runs the real PostgreSQL test module in a pytest of its own, with psycopg hidden
behind a module of that name that cannot be imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SELECTED = "test_inbox_postgres.py::test_the_schema_is_created_versioned_and_refused_when_newer"


def _run(tmp_path: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    hidden = tmp_path / "hidden"
    hidden.mkdir(exist_ok=True)
    (hidden / "psycopg.py").write_text('raise ImportError("hidden by the test")\n')
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(hidden), env.get("PYTHONPATH", "")])
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", SELECTED],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_psycopg_the_tests_are_skipped_with_the_reason(tmp_path: Path) -> None:
    done = _run(tmp_path, ci=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "psycopg is not installed" in done.stdout


def test_under_ci_without_psycopg_the_tests_fail(tmp_path: Path) -> None:
    done = _run(tmp_path, ci=True)
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert "CI runs the PostgreSQL tests, but psycopg is not installed" in done.stdout
