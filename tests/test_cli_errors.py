"""Errors a user meets at the command line: each is one line on stderr and a documented
exit status, never a traceback (issue 15). Every test runs the real console script
``user-interaction`` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from child_support import child_stderr, completed
from cli_support import SCRIPT, child_env, make_site, run, stdio_installed
from distfactory import make_dist

from user_interaction import PROVIDER_ENV, UserInteraction, UserInteractionError
from user_interaction.cli import (
    EXIT_ABORTED,
    EXIT_DISMISSED,
    EXIT_INVALID_REQUEST,
    EXIT_NO_PROVIDER,
    EXIT_OUTPUT_FAILED,
    EXIT_PLUGIN_ERROR,
)
from user_interaction.extensions import INVALID_ANSWERS_FILE, AnswersFile

pytestmark = pytest.mark.skipif(SCRIPT is None, reason="the console script is not installed")

DEEP = "[" * 200_000  # far deeper than Python's JSON parser can recurse


def scripted_installed() -> bool:
    return any(
        info.name == "scripted" and info.value.startswith("user_interaction_scripted")
        for info in UserInteraction().providers()
    )


needs_stdio = pytest.mark.skipif(
    not stdio_installed(), reason="the stdio provider (user-interaction-stdio) is not installed"
)
needs_scripted = pytest.mark.skipif(
    not scripted_installed(),
    reason="the scripted provider (user-interaction-scripted) is not installed",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("site"))


def one_line(stderr: str, start: str) -> str:
    """The single line of ``stderr``, which starts with ``start``."""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(start), stderr
    assert "Traceback" not in stderr
    return lines[0]


# -- deeply nested JSON ------------------------------------------------------------------

NESTED = "user-interaction: INVALID_REQUEST: request: not valid JSON: nested too deeply"


def test_a_deeply_nested_request_file(site: Path, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    done = run("ask", "--request", str(path), "-p", "cli-test", kind="script", env=child_env(site))
    assert (done.returncode, done.stdout) == (EXIT_INVALID_REQUEST, "")
    assert one_line(done.stderr, NESTED) == NESTED


def test_a_deeply_nested_request_from_stdin(site: Path) -> None:
    done = run(
        "ask", "--request", "-", "-p", "cli-test", input=DEEP, kind="script", env=child_env(site)
    )
    assert (done.returncode, done.stdout) == (EXIT_INVALID_REQUEST, "")
    assert one_line(done.stderr, NESTED) == NESTED


def test_a_deeply_nested_request_in_dev(site: Path, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    done = run("dev", "cli-test", "--request", str(path), kind="script", env=child_env(site))
    assert (done.returncode, done.stdout) == (EXIT_INVALID_REQUEST, "")
    assert one_line(done.stderr, NESTED) == NESTED


def test_a_deeply_nested_provider_option_is_a_string(site: Path) -> None:
    """``--provider-option`` parses its value on the same path: too deep for JSON, it is
    taken as the string it is (and the test provider rejects the unknown option)."""
    done = run(
        "ask", "Q", "-p", "cli-test", "--provider-option", f"depth={DEEP[:100_000]}",
        kind="script", env=child_env(site),
    )  # fmt: skip
    assert done.returncode == EXIT_NO_PROVIDER
    one_line(done.stderr, "user-interaction: PROVIDER_LOAD_FAILED: ")


# -- plugin codes have exit statuses of their own ---------------------------------------


@needs_scripted
def test_the_scripted_provider_s_code_exits_with_the_plugin_status(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"answers": {"other": "x"}}), encoding="utf-8")
    env = child_env(USER_INTERACTION_ANSWERS=str(answers))
    done = run("ask", "Deploy?", "-o", "Yes", "-p", "scripted", kind="script", env=env)
    assert (done.returncode, done.stdout) == (EXIT_PLUGIN_ERROR, "")
    one_line(done.stderr, "user-interaction: UNANSWERED_QUESTION: ")


@pytest.mark.parametrize("code", ["INVALID_ANSWERS_FILE", "UNANSWERED_QUESTION", "MY_OWN_CODE"])
def test_a_provider_s_own_code_exits_with_the_plugin_status(site: Path, code: str) -> None:
    done = run(
        "ask", "Q", "-o", "A", "-p", "cli-test",
        kind="script", env=child_env(site, CLI_TEST_PLAN=f"error:{code}"),
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (EXIT_PLUGIN_ERROR, "")
    one_line(done.stderr, f"user-interaction: {code}: the provider says no")


# -- answers files that are too deep, or not regular files --------------------------------


def test_a_deeply_nested_answers_file_is_invalid(tmp_path: Path) -> None:
    path = tmp_path / "answers.json"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(UserInteractionError) as caught:
        AnswersFile.read(path)
    assert caught.value.code == INVALID_ANSWERS_FILE
    assert caught.value.message == f"{path}: not valid JSON: nested too deeply"


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
@needs_scripted
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "directory"])
def test_an_answers_file_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """Rejected before any read: a FIFO nobody writes to, or ``/dev/zero``, would block
    ``use()`` for ever (``--timeout`` only starts with the ask)."""
    if kind == "fifo":
        path = tmp_path / "answers.fifo"
        os.mkfifo(path)
    elif kind == "directory":
        path = tmp_path
    else:
        path = Path(kind)
    env = child_env(USER_INTERACTION_ANSWERS=str(path))
    done = run(
        "ask", "Q", "-o", "A", "-p", "scripted", "--timeout", "30",
        kind="script", env=env, timeout=20,
    )  # fmt: skip
    assert done.returncode == EXIT_NO_PROVIDER
    line = one_line(done.stderr, "user-interaction: PROVIDER_LOAD_FAILED: ")
    assert line.endswith(f"{path}: cannot read the answers file: not a regular file")
    with pytest.raises(UserInteractionError) as caught:
        AnswersFile.read(path)
    assert caught.value.code == INVALID_ANSWERS_FILE


# -- text made of NUL bytes, or holding a lone surrogate ---------------------------------


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ({"id": "\u0000\u0000", "question": "Q"}, "questions[0].id: must not be blank"),
        ({"id": "a", "question": "\u0000"}, "questions[0].question: must not be blank"),
        (
            {"id": "a\ud800", "question": "Q"},
            "questions[0].id: must be valid Unicode: it holds a lone surrogate",
        ),
    ],
)
def test_a_request_of_nul_bytes_or_lone_surrogates(
    site: Path, tmp_path: Path, question: dict[str, str], message: str
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"questions": [question]}), encoding="utf-8")  # \u escapes
    done = run("ask", "--request", str(path), "-p", "cli-test", kind="script", env=child_env(site))
    assert (done.returncode, done.stdout) == (EXIT_INVALID_REQUEST, "")
    line = one_line(done.stderr, "user-interaction: INVALID_REQUEST: ")
    assert line == f"user-interaction: INVALID_REQUEST: {message}"


# -- escape sequences and invisible characters in what the command line prints -----------

EVIL_NAME = "\x1b[31mred\u200b"


def test_providers_shows_escape_sequences_in_names_instead_of_running_them(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    make_dist(
        site,
        "evil-dist",
        "1.0\x1b]0;pwned\x07",
        entry_points={EVIL_NAME: "evil_no_such_module:Provider\x1b[2J"},
    )
    env = child_env(site, **{PROVIDER_ENV: EVIL_NAME})
    for args in (["providers"], ["providers", "--check"]):
        done = run(*args, kind="script", env=env)
        shown = done.stdout + done.stderr
        assert "\x1b" not in shown and "\x07" not in shown and "\u200b" not in shown, shown
        assert "\\x1b[31mred\\u200b" in done.stdout
        assert "evil_no_such_module:Provider\\x1b[2J" in done.stdout
    assert done.returncode == EXIT_NO_PROVIDER  # the --check: it fails to load
    assert "\\x1b[31mred\\u200b: PROVIDER_LOAD_FAILED: " in done.stdout


# -- a stdout that is full or closed ------------------------------------------------------

needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
FULL = "[Errno 28] No space left on device"


def to_full(*args: str, env: dict[str, str], input: str = "") -> subprocess.CompletedProcess[str]:
    """Run the console script with stdout on ``/dev/full`` (every write fails)."""
    assert SCRIPT is not None
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [SCRIPT, *args],
            input=input,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    return completed(done)


def closed(*args: str, env: dict[str, str], input: str = "") -> subprocess.CompletedProcess[str]:
    """Run the console script with stdout closed, as ``>&-`` does."""
    assert SCRIPT is not None
    done = subprocess.run(
        ["/bin/sh", "-c", 'exec "$@" >&-', "sh", SCRIPT, *args],
        input=input,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return completed(done)


@needs_dev_full
@pytest.mark.parametrize("args", [["providers"], ["providers", "--json"], ["extensions"]])
def test_a_listing_to_a_full_stdout(site: Path, args: list[str]) -> None:
    done = to_full(*args, env=child_env(site))
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == (
        f"user-interaction: cannot write to stdout: {FULL}"
    )


@needs_dev_full
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_an_answer_to_a_full_stdout(site: Path, json_flag: list[str]) -> None:
    done = to_full("ask", "Q", "-o", "Yes", "-p", "cli-test", *json_flag, env=child_env(site))
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == (
        f"user-interaction: cannot write the answer to stdout: {FULL}"
    )


@needs_dev_full
@needs_stdio
def test_the_human_answers_through_stdio_then_stdout_is_full() -> None:
    done = to_full("ask", "Deploy?", "-o", "Yes", "-o", "No", "-p", "stdio", env=child_env(),
                   input="2\n")  # fmt: skip
    assert done.returncode == EXIT_OUTPUT_FAILED
    asked, error = done.stderr.rsplit("\n", 2)[:2]
    assert "Deploy?" in asked  # the question went to stderr, and was answered
    assert error == f"user-interaction: cannot write the answer to stdout: {FULL}"
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_an_answer_to_a_pipe_nobody_reads(site: Path, json_flag: list[str]) -> None:
    """``ask | head -c0``: the answer is lost, and the exit status says so."""
    assert SCRIPT is not None
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written
    try:
        done = subprocess.run(
            [SCRIPT, "ask", "Q", "-o", "Yes", "-p", "cli-test", *json_flag],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(site),
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == (
        "user-interaction: cannot write the answer to stdout: the pipe is closed "
        "(the answer is lost)"
    )


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="no POSIX shell")
@pytest.mark.parametrize("provider", ["cli-test", pytest.param("stdio", marks=needs_stdio)])
def test_an_ask_with_stdout_closed_asks_nobody(site: Path, provider: str) -> None:
    done = closed("ask", "Deploy?", "-o", "Yes", "-p", provider, env=child_env(site), input="1\n")
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == (
        "user-interaction: cannot write the answer: stdout is closed (nothing was asked)"
    )


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="no POSIX shell")
def test_a_listing_with_stdout_closed(site: Path) -> None:
    done = closed("providers", env=child_env(site))
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == (
        "user-interaction: cannot write to stdout: stdout is closed"
    )


@pytest.mark.parametrize(
    ("run_with", "error"),
    [
        pytest.param(
            to_full, f"cannot write dev's report to stdout: {FULL}", marks=needs_dev_full, id="full"
        ),
        pytest.param(
            closed,
            "cannot write dev's report: stdout is closed",
            marks=pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="no POSIX shell"),
            id="closed",
        ),
    ],
)
def test_dev_with_stdout_full_or_closed(
    site: Path,
    tmp_path: Path,
    run_with: Callable[..., subprocess.CompletedProcess[str]],
    error: str,
) -> None:
    source = tmp_path / "answering.py"
    source.write_text(ANSWERING_PROVIDER, encoding="utf-8")
    done = run_with("dev", str(source), "--rounds", "1", env=child_env(site))
    assert done.returncode == EXIT_OUTPUT_FAILED
    assert one_line(done.stderr, "user-interaction: ") == f"user-interaction: {error}"


ANSWERING_PROVIDER = """\
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem


class Answering:
    def ask(self, request):
        items = [AskUserQuestionAnswerItem(q.id, custom="x") for q in request.questions]
        return AskUserQuestionAnswer(items)
"""


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="no POSIX shell")
@pytest.mark.parametrize(
    "stderr",
    ["2>&-", pytest.param("2>/dev/full", marks=needs_dev_full)],
    ids=["closed", "full"],
)
def test_an_error_with_nowhere_to_report_it_keeps_its_exit_status(
    tmp_path: Path, stderr: str
) -> None:
    assert SCRIPT is not None
    done = subprocess.run(
        ["/bin/sh", "-c", f'exec "$@" {stderr}', "sh", SCRIPT, "ask", "--request",
         str(tmp_path / "missing.json")],
        capture_output=True, text=True, env=child_env(), timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (EXIT_INVALID_REQUEST, "")


# -- Ctrl-D at a terminal prompt, end of input on a pipe ----------------------------------


@needs_stdio
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals of POSIX")
def test_ctrl_d_at_the_terminal_prompt_is_the_human_dismissing_the_question() -> None:
    import pexpect

    assert SCRIPT is not None
    child = pexpect.spawn(
        SCRIPT,
        ["ask", "Deploy?", "-o", "Yes", "-o", "No", "-p", "stdio"],
        env={**child_env(), "TERM": "dumb"},
        encoding="utf-8",
        timeout=60,
    )
    try:
        child.expect_exact("> ")
        child.sendeof()
        child.expect(pexpect.EOF)
        after_prompt = child_stderr(str(child.before))  # the terminal has stderr too
    finally:
        child.close(force=True)
    assert child.exitstatus == EXIT_DISMISSED
    # the error line starts on a line of its own, not after the prompt
    assert after_prompt == (
        "\r\nuser-interaction: ASK_CANCELLED: The human dismissed the question "
        "(end of input, Ctrl-D, at the terminal).\r\n"
    )


@needs_stdio
def test_end_of_input_on_a_pipe_aborts_on_a_fresh_line() -> None:
    done = run("ask", "Deploy?", "-o", "Yes", "-p", "stdio", input="", kind="script")
    assert (done.returncode, done.stdout) == (EXIT_ABORTED, "")
    assert done.stderr.endswith(
        "\n> \nuser-interaction: ASK_ABORTED: End of input: no answer can be read.\n"
    )
