"""The command line: ``providers`` and ``ask``, their output, exit statuses and tracing.

Every test runs the real command line in a subprocess behind real pipes; providers come
from test-only distributions on ``PYTHONPATH`` (see ``cli_support``)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from child_support import child_stderr
from cli_support import SCRIPT, child_env, make_site, run, stdio_installed, with_default_sigint

from user_interaction import ERROR_CODES, PROVIDER_ENV, UserInteractionError
from user_interaction.cli import (
    EXIT_ABORTED,
    EXIT_DISMISSED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_INVALID_REQUEST,
    EXIT_NO_PROVIDER,
    EXIT_OK,
    EXIT_OUTPUT_FAILED,
    EXIT_PLUGIN_ERROR,
    EXIT_PROVIDER_FAILED,
    EXIT_STATUS,
    EXIT_USAGE,
    TRACE_ENV,
    build_parser,
    exit_status,
    main,
)
from user_interaction.extensions import INVALID_ANSWERS_FILE, UNANSWERED_QUESTION

KINDS = [
    "module",
    pytest.param(
        "script",
        marks=pytest.mark.skipif(SCRIPT is None, reason="the console script is not installed"),
    ),
]
ERROR_LINE = re.compile(r"^user-interaction: [A-Z_]+: \S.*$")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("site"))


def ask(
    site: Path, *args: str, plan: str = "first", **env: str
) -> subprocess.CompletedProcess[str]:
    return run(
        "ask", "--provider", "cli-test", *args, env=child_env(site, CLI_TEST_PLAN=plan, **env)
    )


def marked_rows(stdout: str) -> list[list[str]]:
    """The rows of the providers table marked as the default."""
    return [
        line.split()
        for line in stdout.splitlines()
        if line.startswith("*") and not line.startswith("* default:")
    ]


def assert_one_error_line(stderr: str, code: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert ERROR_LINE.match(lines[0]), stderr
    assert f": {code}: " in lines[0]
    assert "Traceback" not in stderr


# -- importing stays cheap --------------------------------------------------------------


def test_import_does_not_load_the_command_line() -> None:
    code = (
        "import sys, user_interaction; "
        "print(sorted(m for m in ('user_interaction.cli', 'argparse') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_every_error_code_has_an_exit_status() -> None:
    assert set(EXIT_STATUS) == {*ERROR_CODES, UNANSWERED_QUESTION, INVALID_ANSWERS_FILE}
    statuses = {EXIT_DISMISSED, EXIT_ABORTED, EXIT_NO_PROVIDER}
    statuses |= {EXIT_INVALID_REQUEST, EXIT_PROVIDER_FAILED, EXIT_PLUGIN_ERROR}
    assert set(EXIT_STATUS.values()) == statuses
    assert len(statuses | {EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_OUTPUT_FAILED}) == 10


def test_a_code_of_a_plugin_s_own_has_the_plugin_status() -> None:
    """No error code ends with status 1 (another failure): a code the core does not
    define is a provider's or an extension's own."""
    error = UserInteractionError("the plugin says no", "MY_PLUGIN_SAYS_NO")
    assert exit_status(error) == EXIT_PLUGIN_ERROR != EXIT_ERROR


# -- help and usage ---------------------------------------------------------------------


def subcommands() -> list[str]:
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(action.choices)


@pytest.mark.parametrize("kind", KINDS)
def test_help(kind: str) -> None:
    done = run("--help", kind=kind)
    assert done.returncode == 0
    assert done.stdout.startswith("usage: user-interaction")
    for name in subcommands():
        assert name in done.stdout
    assert "exit status" in done.stdout


@pytest.mark.parametrize("name", subcommands())
def test_help_of_every_command(name: str) -> None:
    done = run(name, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: user-interaction {name}")


def test_version() -> None:
    from user_interaction import __version__

    done = run("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"user-interaction {__version__}")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["no-such-command"],
        ["ask"],
        ["ask", "Q", "--timeout", "0"],
        ["ask", "Q", "--timeout", "soon"],
        ["ask", "Q", "--request", "r.json"],
        ["ask", "--request", "r.json", "--option", "A"],
        ["dev"],
        ["dev", "x.py", "--rounds", "0"],
        ["new-provider", "Not A Name"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == EXIT_USAGE
    assert "usage: user-interaction" in done.stderr
    assert "Traceback" not in done.stderr


# -- providers --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_providers_lists_without_importing(site: Path, kind: str) -> None:
    done = run("providers", site=site, kind=kind)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["NAME", "DISTRIBUTION", "VERSION", "ENTRY", "POINT"]
    row = next(line for line in lines if line.split()[:1] == ["cli-test"])
    assert row.split() == ["cli-test", "cli-test-providers", "1.0", "cli_test_provider:Scripted"]
    # the broken one is listed all the same (only finding the default imports them)
    assert any(line.split()[:1] == ["cli-test-broken"] for line in lines)


def test_providers_json(site: Path) -> None:
    done = run("providers", "--json", site=site)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["group"] == "user_interaction.providers"
    rows = {row["name"]: row for row in document["providers"]}
    assert rows["cli-test"] == {
        "name": "cli-test",
        "distribution": "cli-test-providers",
        "version": "1.0",
        "value": "cli_test_provider:Scripted",
        "default": False,
    }
    assert "loads" not in rows["cli-test-broken"]


def test_providers_marks_the_default_from_the_environment(site: Path) -> None:
    env = child_env(site, **{PROVIDER_ENV: "cli-test"})
    done = run("providers", env=env)
    assert done.returncode == 0, done.stderr
    assert [row[1] for row in marked_rows(done.stdout)] == ["cli-test"]
    assert f"* default: {PROVIDER_ENV}=cli-test" in done.stdout
    document = json.loads(run("providers", "--json", env=env).stdout)
    assert document["default"] == "cli-test"
    assert [row["name"] for row in document["providers"] if row["default"]] == ["cli-test"]


def test_providers_warns_when_the_default_is_not_installed(site: Path) -> None:
    done = run("providers", env=child_env(site, **{PROVIDER_ENV: "nowhere"}))
    assert done.returncode == 0
    assert f"{PROVIDER_ENV}=nowhere names no installed provider" in done.stderr
    assert marked_rows(done.stdout) == []


def test_providers_check_reports_load_failures(site: Path) -> None:
    done = run("providers", "--check", site=site)
    assert done.returncode == EXIT_NO_PROVIDER
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.strip()}
    assert rows["cli-test"][-1] == "yes"
    assert rows["cli-test-broken"][-1] == "no"
    # each reason is one paragraph, its continuation lines indented
    paragraphs = done.stdout.replace("\n    ", " ").splitlines()
    why = [line for line in paragraphs if line.startswith("cli-test-broken:")]
    assert len(why) == 1
    assert "PROVIDER_LOAD_FAILED" in why[0]
    assert "cli_test_no_such_dependency" in why[0]

    document = json.loads(run("providers", "--check", "--json", site=site).stdout)
    rows_json = {row["name"]: row for row in document["providers"]}
    assert rows_json["cli-test"]["loads"] is True
    assert "error" not in rows_json["cli-test"]
    assert rows_json["cli-test-broken"]["loads"] is False
    assert rows_json["cli-test-broken"]["error"]["code"] == "PROVIDER_LOAD_FAILED"


def isolated(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Discovery in this process sees only ``path`` (in-process runs of ``main``)."""
    monkeypatch.setattr(sys, "path", [str(path)])
    monkeypatch.delenv(PROVIDER_ENV, raising=False)


def test_providers_with_none_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated(monkeypatch, tmp_path)
    assert main(["providers"]) == 0
    assert "No providers are installed" in capsys.readouterr().out
    assert main(["providers", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["providers"] == []


def test_the_only_installed_provider_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from distfactory import make_dist

    make_dist(
        tmp_path,
        "solo",
        entry_points={"solo": "solo_module:Provider"},
        modules={"solo_module.py": "class Provider:\n    def ask(self, request): ...\n"},
    )
    isolated(monkeypatch, tmp_path)
    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    assert [row[:2] for row in marked_rows(out)] == [["*", "solo"]]
    assert "* default: the only installed provider" in out


def test_providers_check_fits_the_width_and_reads_reasons_as_prose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from distfactory import make_dist

    make_dist(
        tmp_path,
        "a-distribution",
        entry_points={
            "named-only": "named_only_module:Provider",
            "broken-with-a-long-name": "no_such_module_with_a_long_name_at_all:Provider",
        },
        modules={
            "named_only_module.py": """
                class Provider:
                    @staticmethod
                    def available():
                        \"\"\"Never chosen implicitly: a host names it (``use("x")``).\"\"\"
                        return False
            """
        },
    )
    isolated(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["providers", "--check"]) == EXIT_NO_PROVIDER
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "DISTRIBUTION", "VERSION", "PRIORITY", "AVAILABLE", "LOADS"]
    assert all(len(line) <= 100 for line in lines), out
    # the reason as prose: no reStructuredText backticks
    assert (
        'named-only: unavailable here: Never chosen implicitly: a host names it (use("x")).' in out
    )
    failure = out[out.index("broken-with-a-long-name: PROVIDER_LOAD_FAILED") :]
    assert "\n    " in failure  # a long reason continues, indented, on the next line


def test_ask_help_has_examples_and_says_how_the_provider_is_chosen() -> None:
    done = run("ask", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "examples: user-interaction ask " in text
    assert "answer=$(user-interaction ask " in text
    assert f"by default the one {PROVIDER_ENV} names, else the only one installed" in text
    assert "providers --check' shows which" in text


def test_colour_follows_the_flag_and_the_conventions(site: Path) -> None:
    env = child_env(site)
    for name in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE"):
        env.pop(name, None)
    missing = ("ask", "Q?", "--provider", "nowhere")
    assert "\x1b[" not in run(*missing, env=env).stderr  # stderr is a pipe: no colour
    forced = run("--color", "always", *missing, env=env)
    assert forced.returncode == EXIT_NO_PROVIDER
    assert forced.stderr.startswith("\x1b[31muser-interaction: PROVIDER_NOT_FOUND: ")
    assert forced.stderr.endswith("\x1b[0m\n")
    assert run(*missing, env={**env, "FORCE_COLOR": "1"}).stderr.startswith("\x1b[31m")
    never = run("--color", "never", *missing, env={**env, "FORCE_COLOR": "1"})
    assert "\x1b[" not in never.stderr
    # the terminal providers follow the flag too (here stdio, its prompts on stderr)
    if importlib.util.find_spec("user_interaction_stdio") is not None:
        asked = run(
            "--color", "always", "ask", "Q?", "-o", "A", "-o", "B", "-p", "stdio",
            input="2\n", env=env,
        )  # fmt: skip
        assert asked.stdout == "B\n", asked.stderr
        assert "\x1b[1mQ?\x1b[0m" in asked.stderr


# -- ask: answers -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_ask_prints_the_chosen_label(site: Path, kind: str) -> None:
    done = run(
        "ask",
        "Deploy?",
        "--option",
        "Yes=ship it",
        "--option",
        "No",
        "--provider",
        "cli-test",
        env=child_env(site),
        kind=kind,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "Yes\n", "")


def test_ask_prints_every_selected_label_on_a_line(site: Path) -> None:
    done = ask(site, "Which?", "-o", "a", "-o", "b", "-o", "c", "--multi", plan="all")
    assert (done.returncode, done.stdout) == (0, "a\nb\nc\n")


def test_ask_prints_custom_text(site: Path) -> None:
    done = ask(site, "Why?", "-o", "a", plan="custom:because it is Friday")
    assert (done.returncode, done.stdout) == (0, "because it is Friday\n")


def test_ask_prints_nothing_for_a_skipped_question(site: Path) -> None:
    done = ask(site, "Why?", "-o", "a", plan="skip")
    assert (done.returncode, done.stdout) == (0, "")


def test_ask_json_prints_the_wire_answer(site: Path) -> None:
    done = ask(site, "Deploy?", "-o", "Yes", "--id", "deploy", "--json")
    assert done.returncode == 0
    assert done.stdout.count("\n") == 1
    assert json.loads(done.stdout) == {"answers": [{"id": "deploy", "selected": ["Yes"]}]}
    done = ask(site, "Deploy?", "--json", plan="custom:later")
    assert json.loads(done.stdout) == {
        "answers": [{"id": "question", "selected": [], "custom": "later"}]
    }


def test_ask_builds_the_request_from_the_flags(site: Path, tmp_path: Path) -> None:
    # The provider answers with what it was asked, through a request echoing provider.
    module = tmp_path / "echo_site"
    make_site(module)
    (module / "cli_test_provider.py").write_text(
        "import json\n"
        "from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem\n"
        "class Scripted:\n"
        "    def ask(self, request):\n"
        "        text = json.dumps(request.to_dict(), sort_keys=True)\n"
        "        return AskUserQuestionAnswer(\n"
        "            [AskUserQuestionAnswerItem(q.id, custom=text) for q in request.questions])\n",
        encoding="utf-8",
    )
    done = run(
        "ask",
        "Pick checks",
        "--option",
        "unit=fast ones",
        "--option",
        "e2e",
        "--option",
        "a=b=c",
        "--multi",
        "--header",
        "Checks",
        "--detail",
        "CI is slow today",
        "--id",
        "checks",
        "--provider",
        "cli-test",
        site=module,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "questions": [
            {
                "id": "checks",
                "question": "Pick checks",
                "header": "Checks",
                "detail": "CI is slow today",
                "multiSelect": True,
                "options": [
                    {"label": "unit", "description": "fast ones"},
                    {"label": "e2e"},
                    {"label": "a", "description": "b=c"},
                ],
            }
        ]
    }


def request_file(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


TWO_QUESTIONS = {
    "questions": [
        {"id": "pkg", "question": "Which?", "options": [{"label": "pnpm"}, {"label": "npm"}]},
        {"id": "note", "question": "Anything else?"},
    ]
}


def test_ask_request_file(site: Path, tmp_path: Path) -> None:
    path = request_file(tmp_path, TWO_QUESTIONS)
    done = ask(site, "--request", str(path))
    assert (done.returncode, done.stdout) == (0, "pnpm\ntyped\n")
    done = ask(site, "--request", str(path), "--json")
    assert json.loads(done.stdout) == {
        "answers": [
            {"id": "pkg", "selected": ["pnpm"]},
            {"id": "note", "selected": [], "custom": "typed"},
        ]
    }


def test_ask_request_file_in_the_tool_form(site: Path, tmp_path: Path) -> None:
    """The JSON a model gives the ask_user_question tool works too (``multi_select``)."""
    tool_form = {
        "questions": [
            {
                "id": "pkg",
                "question": "Which?",
                "options": [{"label": "pnpm"}, {"label": "npm"}],
                "multi_select": True,
            },
            {"id": "note", "question": "Anything else?", "multi_select": False},
        ]
    }
    path = request_file(tmp_path, tool_form)
    done = ask(site, "--request", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answers"][1] == {
        "id": "note",
        "selected": [],
        "custom": "typed",
    }
    # multi_select was read: both labels are a valid answer to the first question
    done = ask(site, "--request", str(path), "--json", plan="all")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answers"][0]["selected"] == ["pnpm", "npm"]
    # a mix of the two forms: the tool's reading says what to write instead
    tool_form["questions"][1] = {"id": "note", "question": "Anything else?", "multiSelect": False}
    done = ask(site, "--request", str(request_file(tmp_path, tool_form)))
    assert done.returncode == EXIT_INVALID_REQUEST
    assert_one_error_line(done.stderr, "INVALID_REQUEST")
    assert "questions[1].multiSelect: unknown field, did you mean multi_select?" in done.stderr


def test_ask_request_from_stdin(site: Path) -> None:
    done = run(
        "ask",
        "--provider",
        "cli-test",
        "--request",
        "-",
        input=json.dumps(TWO_QUESTIONS),
        env=child_env(site),
    )
    assert (done.returncode, done.stdout) == (0, "pnpm\ntyped\n")


def test_ask_keeps_stdout_for_the_answer(site: Path) -> None:
    """What a provider prints to stdout goes to stderr when stdout is not a terminal."""
    done = ask(site, "Deploy?", "-o", "Yes", CLI_TEST_CHATTY="1")
    assert (done.returncode, done.stdout) == (0, "Yes\n")
    assert "provider says hello" in done.stderr


def test_ask_uses_the_provider_from_the_environment(site: Path) -> None:
    env = child_env(site, **{PROVIDER_ENV: "cli-test"})
    done = run("ask", "Deploy?", "-o", "Yes", env=env)
    assert (done.returncode, done.stdout) == (0, "Yes\n")


# -- ask: failures and exit statuses -----------------------------------------------------


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_a_provider_error_exits_with_its_status(site: Path, code: str) -> None:
    done = ask(site, "Deploy?", "-o", "Yes", plan=f"error:{code}")
    assert done.returncode == EXIT_STATUS[code]
    assert done.stdout == ""
    assert_one_error_line(done.stderr, code)
    assert done.stderr.strip() == f"user-interaction: {code}: the provider says no"


@pytest.mark.parametrize(
    ("args", "plan", "code", "status"),
    [
        (["Q", "-o", "A", "--timeout", "0.2"], "sleep", "ASK_TIMEOUT", EXIT_ABORTED),
        (["Q", "-o", "A"], "crash", "PROVIDER_FAILED", EXIT_PROVIDER_FAILED),
        (["Q", "-o", "A"], "invalid", "INVALID_ANSWER", EXIT_PROVIDER_FAILED),
        (["Q", "-o", "A", "-o", "A"], "first", "INVALID_REQUEST", EXIT_INVALID_REQUEST),
        (["  ", "-o", "A"], "first", "INVALID_REQUEST", EXIT_INVALID_REQUEST),
        (["Q", "--multi"], "first", "INVALID_REQUEST", EXIT_INVALID_REQUEST),
    ],
)
def test_ask_failures(site: Path, args: list[str], plan: str, code: str, status: int) -> None:
    done = ask(site, *args, plan=plan)
    assert done.returncode == status, done.stderr
    assert done.stdout == ""
    assert_one_error_line(done.stderr, code)


def test_ask_crash_names_the_exception(site: Path) -> None:
    done = ask(site, "Q", plan="crash")
    assert "RuntimeError: boom" in done.stderr


@pytest.mark.parametrize(
    ("provider", "code"),
    [("no-such-provider", "PROVIDER_NOT_FOUND"), ("cli-test-broken", "PROVIDER_LOAD_FAILED")],
)
def test_ask_without_a_usable_provider(site: Path, provider: str, code: str) -> None:
    done = run("ask", "Q", "--provider", provider, site=site)
    assert done.returncode == EXIT_NO_PROVIDER
    assert_one_error_line(done.stderr, code)


def test_ask_with_a_mistyped_provider_from_the_environment(site: Path) -> None:
    done = run("ask", "Q", env=child_env(site, **{PROVIDER_ENV: "cli-tset"}))
    assert done.returncode == EXIT_NO_PROVIDER
    assert_one_error_line(done.stderr, "PROVIDER_NOT_FOUND")
    assert f"(from {PROVIDER_ENV})" in done.stderr
    assert "did you mean 'cli-test'?" in done.stderr


@pytest.mark.parametrize(
    ("content", "code", "where"),
    [
        ("{not json", "INVALID_REQUEST", "not valid JSON"),
        ('{"questions": []}', "EMPTY_QUESTIONS", ""),
        ('{"questions": [{"id": "a"}]}', "INVALID_REQUEST", "questions[0].question"),
        ('{"questions": [], "extra": 1}', "INVALID_REQUEST", "extra"),
    ],
)
def test_ask_invalid_request_file(
    site: Path, tmp_path: Path, content: str, code: str, where: str
) -> None:
    path = tmp_path / "request.json"
    path.write_text(content, encoding="utf-8")
    done = ask(site, "--request", str(path))
    assert done.returncode == EXIT_INVALID_REQUEST
    assert_one_error_line(done.stderr, code)
    assert where in done.stderr


def test_ask_missing_request_file(site: Path, tmp_path: Path) -> None:
    done = ask(site, "--request", str(tmp_path / "missing.json"))
    assert done.returncode == EXIT_INVALID_REQUEST
    assert_one_error_line(done.stderr, "INVALID_REQUEST")
    assert "cannot read" in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("provider", ["cli-test", "stdio"])
def test_ask_interrupted(site: Path, provider: str) -> None:
    if provider == "stdio" and not stdio_installed():
        pytest.skip("the stdio provider is not installed")
    read, write = os.pipe()  # stdin stays open, and nobody answers
    try:
        process = subprocess.Popen(
            with_default_sigint(
                [sys.executable, "-m", "user_interaction", "ask", "Q?", "-o", "A", "-p", provider]
            ),
            stdin=read,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(site, CLI_TEST_PLAN="sleep", CLI_TEST_CHATTY="1"),
        )
        try:
            assert process.stderr is not None
            shown = "provider says hello" if provider == "cli-test" else "> "
            seen = ""
            while shown not in seen:  # the provider is asking
                char = process.stderr.read(1)
                assert char, seen
                seen += char
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
            err = child_stderr(seen + err)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    finally:
        os.close(read)
        os.close(write)
    assert process.returncode == EXIT_INTERRUPTED
    assert out == ""
    assert err.rstrip().endswith("user-interaction: interrupted")
    assert "Traceback" not in err
    assert "exception" not in err


# -- tracing ----------------------------------------------------------------------------

TRACE = re.compile(
    r"^user-interaction: trace: ask provider=cli-test questions=(?P<ids>\S+) "
    r"duration=\d+\.\d{3}s outcome=(?P<outcome>[A-Z_]+)(?P<rest>.*)$"
)


def traces(stderr: str) -> list[re.Match[str]]:
    found = [TRACE.match(line) for line in stderr.splitlines() if "trace:" in line]
    assert all(found), stderr
    return [match for match in found if match]


def test_no_trace_by_default(site: Path) -> None:
    assert "trace" not in ask(site, "Q", "-o", "secret answer").stderr


@pytest.mark.parametrize(
    ("flags", "env"),
    [(["--trace"], {}), ([], {TRACE_ENV: "1"}), ([], {TRACE_ENV: "true"})],
)
def test_trace_logs_each_ask_without_the_answers(
    site: Path, tmp_path: Path, flags: list[str], env: dict[str, str]
) -> None:
    path = request_file(tmp_path, TWO_QUESTIONS)
    done = ask(site, "--request", str(path), *flags, plan="custom:secret text", **env)
    assert done.returncode == 0
    (trace,) = traces(done.stderr)
    assert trace["ids"] == "pkg,note"
    assert trace["outcome"] == "ANSWERED"
    assert trace["rest"] == ""
    assert "secret" not in done.stderr


@pytest.mark.parametrize(
    ("flags", "env"), [(["--trace-answers"], {}), ([], {TRACE_ENV: "answers"})]
)
def test_trace_answers_logs_the_answers(site: Path, flags: list[str], env: dict[str, str]) -> None:
    done = ask(site, "Q", "-o", "A", *flags, plan="custom:secret text", **env)
    (trace,) = traces(done.stderr)
    assert json.loads(trace["rest"].removeprefix(" answers=")) == {
        "answers": [{"id": "question", "selected": [], "custom": "secret text"}]
    }


def test_trace_logs_the_outcome_code_of_a_failure(site: Path) -> None:
    done = ask(site, "Q", "-o", "A", "--trace", plan="error:ASK_DECLINED")
    assert done.returncode == EXIT_DISMISSED
    (trace,) = traces(done.stderr)
    assert trace["outcome"] == "ASK_DECLINED"
    assert done.stderr.splitlines()[-1] == "user-interaction: ASK_DECLINED: the provider says no"


def test_trace_off_in_the_environment(site: Path) -> None:
    assert "trace" not in ask(site, "Q", **{TRACE_ENV: "0"}).stderr


# -- with the stdio provider (only where it is installed) --------------------------------

needs_stdio = pytest.mark.skipif(
    not stdio_installed(), reason="the stdio provider (user-interaction-stdio) is not installed"
)


@needs_stdio
@pytest.mark.parametrize(
    ("flags", "typed", "printed"),
    [
        ([], "2", "No\n"),
        (["--multi", "-o", "Maybe"], "3 1", "Maybe\nYes\n"),
        ([], "not sure", "not sure\n"),
        (["--json"], "1", '{"answers":[{"id":"question","selected":["Yes"]}]}\n'),
    ],
)
def test_ask_through_stdio(flags: list[str], typed: str, printed: str) -> None:
    done = run(
        "ask",
        "Deploy now?",
        "--header",
        "Confirm",
        "-o",
        "Yes=ship it",
        "-o",
        "No",
        "--provider",
        "stdio",
        *flags,
        input=typed + "\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed  # the questions went to stderr
    assert "[Confirm] Deploy now?" in done.stderr
    assert "ship it" in done.stderr


@needs_stdio
def test_ask_through_stdio_at_end_of_input() -> None:
    done = run("ask", "Deploy now?", "-o", "Yes", "--provider", "stdio", input="")
    assert done.returncode == EXIT_ABORTED
    assert done.stdout == ""
    assert "user-interaction: ASK_ABORTED: " in done.stderr
    assert "Traceback" not in done.stderr


@needs_stdio
def test_ask_through_stdio_from_the_environment_with_a_timeout() -> None:
    read, write = os.pipe()  # stdin stays open, and nobody answers
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "user_interaction", "ask", "Q?", "--timeout", "0.3"],
            stdin=read,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(None, **{PROVIDER_ENV: "stdio"}),
        )
        try:
            out, err = process.communicate(timeout=60)
            err = child_stderr(err)
        finally:
            if process.poll() is None:
                process.kill()
    finally:
        os.close(read)
        os.close(write)
    assert process.returncode == EXIT_ABORTED
    assert out == ""
    assert "user-interaction: ASK_TIMEOUT: " in err


# -- the documentation covers the command line -------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs"


def cli_doc() -> str:
    return (DOCS / "cli.md").read_text(encoding="utf-8")


def subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = action.choices[name]
    return found


@pytest.mark.parametrize("name", subcommands())
def test_every_command_and_option_is_documented(name: str) -> None:
    text = cli_doc()
    assert f"## `user-interaction {name}`" in text
    for action in subparser(name)._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            long = max(action.option_strings, key=len)
            assert f"`{long}" in text, f"{name} {long} is not in docs/cli.md"
        else:
            assert f"`{action.metavar}`" in text, f"{name} {action.metavar} is not in docs/cli.md"


def test_every_exit_status_is_documented() -> None:
    rows = {}
    for line in cli_doc().splitlines():
        match = re.match(r"^\| (\d+) \| .* \|(.*)\|$", line)
        if match:
            rows[int(match[1])] = set(re.findall(r"`([A-Z_]+)`", match[2]))
    from user_interaction import cli

    statuses = {
        value
        for key, value in vars(cli).items()
        if key.startswith("EXIT_") and key != "EXIT_STATUS"
    }
    assert set(rows) == statuses
    for code, status in EXIT_STATUS.items():
        assert code in rows[status], f"{code} is not in the row of exit status {status}"
    assert sum(len(codes) for codes in rows.values()) == len(EXIT_STATUS)
    usage = run("--help").stdout
    for status in rows:
        assert re.search(rf"^  {status} ", usage, re.MULTILINE), (
            f"--help lacks exit status {status}"
        )


def test_every_page_is_in_the_navigation() -> None:
    config = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    for page in sorted(DOCS.rglob("*.md")):
        relative = page.relative_to(DOCS).as_posix()
        assert f" {relative}" in config, f"{relative} is not in the nav of mkdocs.yml"
