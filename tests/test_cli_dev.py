"""``user-interaction dev``: rounds of asks and hot reload, in a subprocess behind real pipes.

The providers here read one line of the child's stdin per ask, so the test decides when
each ask ends and edits the source while one is pending."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from child_support import child_stderr
from cli_support import Child, child_env, command, edit, make_site, run, stdio_installed
from distfactory import make_dist

from user_interaction.cli import EXIT_ERROR, EXIT_NO_PROVIDER, EXIT_OK, EXIT_OUTPUT_FAILED

LINE_PROVIDER = """
import sys

from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem

VERSION = "v1"


class LineProvider:
    def ask(self, request):
        print("[provider] reading", flush=True)  # the ask has reached the provider
        line = sys.stdin.readline()
        if not line:
            raise EOFError("no more input")
        return AskUserQuestionAnswer(
            [
                AskUserQuestionAnswerItem(item.id, custom=f"{VERSION}:{line.strip()}")
                for item in request.questions
            ]
        )
"""

POLL = ["--watcher", "poll", "--poll-interval", "0.05"]
PROMPTLY = 20  # seconds: generous, but well short of a hung child's TIMEOUT


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def answered(child: Child, expected: str) -> None:
    """The next answer line carries custom text ``expected`` for every question."""
    match = child.expect(r"^\[dev\] answer: (.*)$")
    customs = {item.get("custom") for item in json.loads(match[1])["answers"]}
    assert customs == {expected}, match[0]


def test_dev_reloads_a_file_provider_without_losing_the_pending_ask(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    child = Child(["dev", str(source), "--rounds", "3", *POLL], env=child_env())
    child.expect(r"^\[dev\] provider 'LineProvider'; watching .*line_provider\.py \(polling")
    child.expect(r"^\[dev\] round 1: asking 3 questions$")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] round 2: ")
    child.expect(r"^\[provider\] reading")  # pending on the old code before the edit
    edit(source, '"v1"', '"v2"')
    child.expect(
        r"^\[dev\] line_provider\.py changed; reloaded; "
        r"the question on screen finishes on the old code$"
    )
    child.send("b")
    answered(child, "v1:b")  # the pending ask finished on the old code
    child.expect(r"^\[dev\] round 3: ")
    child.send("c")
    answered(child, "v2:c")  # the next one got the new code
    status, stderr = child.finish()
    assert status == EXIT_OK, stderr


def test_dev_keeps_the_old_provider_after_a_broken_edit(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    child = Child(["dev", str(source), "--rounds", "3", *POLL], env=child_env())
    child.expect(r"^\[dev\] round 1: ")
    edit(source, "class LineProvider:", "class LineProvider(:")
    child.expect(
        r"^\[dev\] line_provider\.py changed; RELOAD_FAILED: Reload failed, the previous "
        r"provider stays active: .*SyntaxError"
    )
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] round 2: ")
    child.expect(r"^\[provider\] reading")
    broken = source.read_text(encoding="utf-8")
    edit(source, broken, broken.replace("LineProvider(:", "LineProvider:").replace("v1", "v3"))
    child.expect(r"^\[dev\] line_provider\.py changed; reloaded; the question on screen")
    child.send("b")
    answered(child, "v1:b")  # the old provider, still active after the broken edit
    child.expect(r"^\[dev\] round 3: ")
    child.send("c")
    answered(child, "v3:c")
    status, stderr = child.finish()
    assert status == EXIT_OK, stderr
    assert "Traceback" not in stderr


def test_dev_waits_for_a_fix_after_a_failed_ask(tmp_path: Path) -> None:
    source = write(
        tmp_path / "failing.py",
        """
        from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem

        class Failing:
            def ask(self, request):
                raise ZeroDivisionError("fix me")
        """,
    )
    child = Child(["dev", str(source), "--rounds", "2", "--traceback", *POLL], env=child_env())
    child.expect(r"^\[dev\] round 1: ")
    child.expect(r"^\[dev\] PROVIDER_FAILED: The provider failed: ZeroDivisionError: fix me$")
    child.expect(r"^Traceback")  # --traceback: the cause's traceback
    child.expect(r"^ZeroDivisionError: fix me$")
    child.expect(r"^\[dev\] waiting for a change \(Ctrl-C to stop\)$")
    edit(
        source,
        'raise ZeroDivisionError("fix me")',
        "return AskUserQuestionAnswer([AskUserQuestionAnswerItem(q.id, custom='fixed') "
        "for q in request.questions])",
    )
    child.expect(r"^\[dev\] failing\.py changed; reloaded$")
    child.expect(r"^\[dev\] round 2: ")
    answered(child, "fixed")
    status, stderr = child.finish()
    assert status == EXIT_OK, stderr


def test_dev_on_change_asks_once_per_reload(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    child = Child(
        ["dev", f"{source}:LineProvider", "--rounds", "2", "--on-change", *POLL],
        env=child_env(),
    )
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] waiting for a change")
    edit(source, '"v1"', '"v2"')
    child.expect(r"^\[dev\] line_provider\.py changed; reloaded$")
    child.expect(r"^\[dev\] round 2: ")
    child.send("b")
    answered(child, "v2:b")
    status, _ = child.finish()
    assert status == EXIT_OK


@pytest.mark.parametrize(
    "broken",
    [
        "def ask(self, request, extra):",  # a changed signature
        "def ask_later(self, request):",  # no ask any more
        "raise SystemExit(3)\n    def ask(self, request):",  # the import exits
    ],
    ids=["signature", "vanished", "exit"],
)
def test_dev_watcher_survives_a_failed_reload(tmp_path: Path, broken: str) -> None:
    """A reload that fails leaves the watcher running: the fix is picked up."""
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    child = Child(["dev", str(source), "--rounds", "2", "--on-change", *POLL], env=child_env())
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] waiting for a change")
    edit(source, "def ask(self, request):", broken)
    child.expect(r"^\[dev\] line_provider\.py changed; RELOAD_FAILED: .*")
    edit(source, broken, "def ask(self, request):")
    edit(source, '"v1"', '"v2"')
    child.expect(r"^\[dev\] line_provider\.py changed; reloaded$")
    child.expect(r"^\[dev\] round 2: ")
    child.send("b")
    answered(child, "v2:b")
    status, stderr = child.finish()
    assert (status, stderr) == (EXIT_OK, "")


def test_dev_reloads_every_module_of_a_package(tmp_path: Path) -> None:
    package = tmp_path / "src" / "dev_pkg_provider"
    write(
        package / "__init__.py",
        """
        from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem
        import sys

        from ._text import TEXT


        class PackageProvider:
            def ask(self, request):
                print("[provider] reading", flush=True)
                line = sys.stdin.readline().strip()
                return AskUserQuestionAnswer(
                    [AskUserQuestionAnswerItem(q.id, custom=f"{TEXT}:{line}")
                     for q in request.questions]
                )
        """,
    )
    helper = write(package / "_text.py", 'TEXT = "old"\n')
    child = Child(["dev", str(package), "--rounds", "2", *POLL], env=child_env())
    child.expect(r"^\[dev\] provider 'PackageProvider'; watching .*dev_pkg_provider \(polling")
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "old:a")
    child.expect(r"^\[dev\] round 2: ")
    child.expect(r"^\[provider\] reading")
    edit(helper, '"old"', '"new"')
    child.expect(r"^\[dev\] _text\.py changed; reloaded")
    child.send("b")
    answered(child, "old:b")
    status, _ = child.finish()
    assert status == EXIT_OK


def test_dev_an_installed_provider_by_name(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    module = write(site / "dev_installed_provider.py", LINE_PROVIDER)
    make_dist(
        site, "dev-installed", entry_points={"dev-installed": "dev_installed_provider:LineProvider"}
    )
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"questions": [{"id": "only", "question": "Q?"}]}))
    child = Child(
        ["dev", "dev-installed", "--request", str(request), "--rounds", "2", "--trace", *POLL],
        env=child_env(site),
    )
    child.expect(r"^\[dev\] provider 'dev-installed'; watching .*dev_installed_provider\.py")
    child.expect(r"^\[dev\] round 1: asking 1 question$")
    child.send("a")
    match = child.expect(r"^\[dev\] answer: (.*)$")
    assert json.loads(match[1]) == {"answers": [{"id": "only", "selected": [], "custom": "v1:a"}]}
    child.expect(r"^\[dev\] round 2: ")
    edit(module, '"v1"', '"v2"')
    child.expect(r"^\[dev\] dev_installed_provider\.py changed; reloaded")
    child.send("b")
    answered(child, "v1:b")
    status, stderr = child.finish()
    assert status == EXIT_OK
    trace_lines = [line for line in stderr.splitlines() if "trace: ask" in line]
    assert len(trace_lines) == 2
    assert all("provider=dev-installed questions=only" in line for line in trace_lines)
    assert "v1:" not in stderr  # no answers in the trace unless asked


def test_dev_watches_extra_paths(tmp_path: Path) -> None:
    source = write(tmp_path / "prov" / "line_provider.py", LINE_PROVIDER)
    assets = write(tmp_path / "assets" / "page.html", "<p>hello</p>\n")
    child = Child(
        ["dev", str(source), "--watch", str(assets.parent), "--rounds", "1", *POLL],
        env=child_env(),
    )
    child.expect(r"^\[dev\] round 1: ")
    edit(assets, "hello", "hello again")
    child.expect(r"^\[dev\] page\.html changed; reloaded")
    child.send("a")
    answered(child, "v1:a")
    assert child.finish()[0] == EXIT_OK


def test_the_watcher_outlives_a_failing_callback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from user_interaction.cli._watch import Watcher

    watched = write(tmp_path / "watched.txt", "1")
    failed = threading.Event()
    seen: queue.Queue[list[str]] = queue.Queue()

    def on_change(paths: list[str]) -> None:
        if not failed.is_set():
            failed.set()
            raise RuntimeError("the first change breaks the callback")
        seen.put(paths)

    watcher = Watcher([watched], on_change, backend="poll", poll_interval=0.05)
    watcher.start()
    try:
        edit(watched, "1", "2")
        assert failed.wait(PROMPTLY)
        edit(watched, "2", "3")
        assert seen.get(timeout=PROMPTLY) == [str(watched.resolve())]
    finally:
        watcher.stop()
    assert "RuntimeError: the first change breaks the callback" in capfd.readouterr().err


def test_a_watcher_interrupted_before_its_thread_started_stops_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C can land in ``start()`` before the thread is started (before
    ``start_thread`` swaps its handler in): ``stop()`` in the caller's ``finally`` then
    has no thread to join, and must not fail on it (``cannot join thread before it is
    started`` turned attend's exit status 130 into 1)."""
    import user_interaction.cli._watch as watch_module

    def interrupted(thread: threading.Thread) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "start_thread", interrupted)
    watcher = watch_module.Watcher(
        [write(tmp_path / "watched.txt", "1")], lambda paths: None, backend="poll"
    )
    with pytest.raises(KeyboardInterrupt):
        watcher.start()
    watcher.stop()  # as the caller's finally does


def have_watchfiles() -> bool:
    from user_interaction.cli._watch import have_watchfiles as have

    return have()


@pytest.mark.skipif(not have_watchfiles(), reason="watchfiles is not installed")
def test_dev_with_watchfiles(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    child = Child(["dev", str(source), "--rounds", "2", "--watcher", "watchfiles"], env=child_env())
    child.expect(r"^\[dev\] provider 'LineProvider'; watching .* \(watchfiles\)")
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] round 2: ")
    child.expect(r"^\[provider\] reading")  # pending on the old code before the edit
    edit(source, '"v1"', '"v2"')
    child.expect(r"^\[dev\] line_provider\.py changed; reloaded")
    child.send("b")
    answered(child, "v1:b")
    assert child.finish()[0] == EXIT_OK


# LINE_PROVIDER that says when its ask is pending. The Ctrl-C tests wait for it: a SIGINT
# sent as soon as "round 1" shows lands in the first ask's lazy imports, where CPython 3.13
# may leak the .pyc it was reading (a ResourceWarning under -X dev, not ours to fix). Those
# hard spots are delivered on purpose by test_dev_stops_on_ctrl_c_at_a_hard_spot.
WAITING_PROVIDER = LINE_PROVIDER.replace(
    "        line = sys.stdin.readline()\n",
    '        print("[provider] waiting for a line", flush=True)\n'
    "        line = sys.stdin.readline()\n",
)


def stops_on_ctrl_c(child: Child) -> None:
    child.expect(r"^\[dev\] round 1: ")
    child.expect(r"^\[provider\] waiting for a line$")
    child.process.send_signal(signal.SIGINT)
    child.expect(r"^\[dev\] stopped$", timeout=PROMPTLY)
    status, stderr = child.finish(timeout=PROMPTLY)
    assert (status, stderr) == (EXIT_OK, "")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_dev_stops_on_ctrl_c(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", WAITING_PROVIDER)
    stops_on_ctrl_c(Child(["dev", str(source), *POLL], env=child_env()))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_dev_stops_on_ctrl_c_when_the_test_run_ignores_sigint(tmp_path: Path) -> None:
    """A test run started with SIGINT ignored (in the background, by a non-interactive
    shell) still gives its children a working Ctrl-C."""
    source = write(tmp_path / "line_provider.py", WAITING_PROVIDER)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = Child(["dev", str(source), *POLL], env=child_env())
    finally:
        signal.signal(signal.SIGINT, previous)
    stops_on_ctrl_c(child)


# Runs `user-interaction dev` (as `python -m`, the way the tests and many users start it),
# with a real SIGINT delivered at a hard spot of the second ask, as a Ctrl-C can land (the
# first ask's lazy imports run such spots; the second leaves nothing else to interrupt).
INTERRUPTED_DEV = """
import os
import runpy
import signal
import subprocess
import sys
import weakref

from user_interaction import UserInteraction

SPOT = sys.argv.pop(1)
ask_sync = UserInteraction.ask_sync
asks = []


def ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)


class Target:
    pass


def interrupted_ask_sync(ui, request, **options):
    asks.append(request)
    if len(asks) != 2:
        return ask_sync(ui, request, **options)
    if SPOT == "eval":  # as in a namedtuple's eval() during a lazy import
        eval("ctrl_c()", {"ctrl_c": ctrl_c})
    else:  # as in importlib's weakref callbacks: Python cannot raise there
        target = Target()
        ref = weakref.ref(target, lambda _: ctrl_c())
        del target
    return ask_sync(ui, request, **options)


UserInteraction.ask_sync = interrupted_ask_sync
sys.argv[0] = "user-interaction"
runpy.run_module("user_interaction", run_name="__main__", alter_sys=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("spot", ["eval", "weakref"])
def test_dev_stops_on_ctrl_c_at_a_hard_spot(tmp_path: Path, spot: str) -> None:
    """eval: CPython flagged the caught KeyboardInterrupt as unhandled, and the process
    died of SIGINT after "stopped" (exit -2, nothing on stderr). weakref: Python dropped
    the KeyboardInterrupt ("Exception ignored") and dev went on asking."""
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    write(tmp_path / "site" / "interrupted_dev.py", INTERRUPTED_DEV)
    child = Child(
        [spot, "dev", str(source), *POLL],
        env=child_env(tmp_path / "site"),
        program=[sys.executable, "-m", "interrupted_dev"],
    )
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] round 2: ")
    child.expect(r"^\[dev\] stopped$", timeout=PROMPTLY)
    status, stderr = child.finish(timeout=PROMPTLY)
    assert (status, stderr) == (EXIT_OK, "")


# Runs `user-interaction dev` with a stdout whose writes fail once a file changed: the
# watcher's thread writes that line while the main thread waits for the human.
FULL_AFTER_A_CHANGE = """
import errno
import runpy
import signal
import sys


class FullAfterAChange:
    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if " changed; " in text:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


sys.stdout = FullAfterAChange(sys.stdout)
if sys.argv[1] == "sigint-ignored":  # as in a background job: no Ctrl-C
    del sys.argv[1]
    signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.argv[0] = "user-interaction"
runpy.run_module("user_interaction", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_dev_ends_when_the_watcher_cannot_write_while_an_ask_waits(
    tmp_path: Path, sigint: str
) -> None:
    """The pending ask is aborted, so nobody has to answer it; SIGINT plays no part (it is
    ignored under nohup)."""
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    write(tmp_path / "site" / "full_after_a_change.py", FULL_AFTER_A_CHANGE)
    child = Child(
        [*(["sigint-ignored"] if sigint == "ignored" else []), "dev", str(source), *POLL],
        env=child_env(tmp_path / "site"),
        program=[sys.executable, "-m", "full_after_a_change"],
    )
    child.expect(r"^\[dev\] round 1: ")
    edit(source, '"v1"', '"v2"')  # nobody answers: the ask stays pending
    try:
        child.process.wait(PROMPTLY)  # by itself: its stdin stays open
    finally:
        status, stderr = child.finish()
    assert (status, stderr) == (
        EXIT_OUTPUT_FAILED,
        "user-interaction: cannot write dev's report to stdout: "
        "[Errno 28] No space left on device\n",
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_dev_ends_quietly_when_its_reader_goes_away_while_an_ask_waits(tmp_path: Path) -> None:
    """As in `dev | head -2`: the next line, from the watcher's thread, meets a closed pipe."""
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    process = subprocess.Popen(
        [*command(), "dev", str(source), *POLL],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        for line in process.stdout:
            if line.startswith("[dev] round 1: "):
                break
        process.stdout.close()
        edit(source, '"v1"', '"v2"')  # nobody answers: the ask stays pending
        assert process.wait(PROMPTLY) == EXIT_ERROR
        assert child_stderr(process.stderr.read()) == ""
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize(
    ("files", "target", "code", "message"),
    [
        ({}, "missing.py", "PROVIDER_NOT_FOUND", "no such file"),
        ({}, "no-such-installed-provider", "PROVIDER_NOT_FOUND", "no-such-installed-provider"),
        ({"p.py": "x = 1\n"}, "p.py", "PROVIDER_NOT_FOUND", "no class with an ask"),
        (
            {"p.py": "class A:\n    def ask(self, request): ...\nclass B(A): ...\n"},
            "p.py",
            "PROVIDER_NOT_FOUND",
            "several provider classes (A, B)",
        ),
        (
            {"p.py": "class A:\n    def ask(self, request): ...\n"},
            "p.py:B",
            "PROVIDER_NOT_FOUND",
            "no 'B'",
        ),
        ({"p.py": "def broken(:\n"}, "p.py", "PROVIDER_LOAD_FAILED", "SyntaxError"),
        (
            {"p.py": "class A:\n    def __init__(self, x): ...\n    def ask(self, request): ...\n"},
            "p.py",
            "PROVIDER_LOAD_FAILED",
            "A() failed: TypeError",
        ),
    ],
)
def test_dev_cannot_load(
    tmp_path: Path, files: dict[str, str], target: str, code: str, message: str
) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    done = run("dev", target, "--rounds", "1", cwd=tmp_path)
    assert done.returncode == EXIT_NO_PROVIDER, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"user-interaction: {code}: ")
    assert message in line


def test_dev_a_module_level_ask_function(tmp_path: Path) -> None:
    write(
        tmp_path / "module_provider.py",
        """
        import sys
        from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem

        def ask(request):
            line = sys.stdin.readline().strip()
            return AskUserQuestionAnswer(
                [AskUserQuestionAnswerItem(q.id, custom=line) for q in request.questions]
            )
        """,
    )
    child = Child(
        ["dev", "module_provider.py", "--rounds", "1", *POLL], env=child_env(), cwd=tmp_path
    )
    child.expect(r"^\[dev\] provider 'dev_module_provider'")
    child.send("hi")
    answered(child, "hi")
    assert child.finish()[0] == EXIT_OK


def test_dev_watch_path_must_exist(tmp_path: Path) -> None:
    source = write(tmp_path / "line_provider.py", LINE_PROVIDER)
    done = run("dev", str(source), "--watch", str(tmp_path / "nowhere"), "--rounds", "1")
    assert done.returncode == EXIT_ERROR
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("user-interaction: cannot watch")


@pytest.mark.skipif(not stdio_installed(), reason="the stdio provider is not installed")
def test_dev_with_stdio() -> None:
    done = run("dev", "stdio", "--rounds", "1", *POLL, input="2\n1,3\nall good\n")
    assert done.returncode == EXIT_OK, done.stderr
    lines = done.stdout.splitlines()
    assert "[Confirm] Deploy build 1234 to production?" in lines
    answer = next(line for line in lines if line.startswith("[dev] answer: "))
    assert json.loads(answer.removeprefix("[dev] answer: ")) == {
        "answers": [
            {"id": "deploy", "selected": ["No"]},
            {"id": "checks", "selected": ["unit", "lint"]},
            {"id": "note", "selected": [], "custom": "all good"},
        ]
    }


@pytest.mark.skipif(shutil.which("sed") is None, reason="no sed")
@pytest.mark.parametrize(
    "watcher",
    [
        pytest.param(
            "watchfiles",
            marks=pytest.mark.skipif(not have_watchfiles(), reason="watchfiles is not installed"),
        ),
        "poll",
    ],
)
def test_dev_ignores_the_temporary_files_of_editors_and_tools(tmp_path: Path, watcher: str) -> None:
    """``sed -i`` writes a ``sedXXXXXX`` file beside the one it edits, then renames it over
    it: only the real file is reported. So are the droppings of editors: nothing reloads
    for them."""
    package = tmp_path / "dev_sed_provider"
    source = write(package / "__init__.py", LINE_PROVIDER)
    child = Child(
        ["dev", str(package), "--rounds", "2", "--watcher", watcher, "--poll-interval", "0.05"],
        env=child_env(),
    )
    child.expect(r"^\[dev\] provider 'LineProvider'; watching ")
    child.expect(r"^\[dev\] round 1: ")
    child.send("a")
    answered(child, "v1:a")
    child.expect(r"^\[dev\] round 2: ")
    for name in ("sedCbVrci", "x.py.swp", "x.py~", ".#x.py", "#x.py#", "4913", "x.tmp"):
        (package / name).write_text("scratch\n", encoding="utf-8")
    subprocess.run(["sed", "-i", "s/v1/v2/", str(source)], check=True, timeout=PROMPTLY)
    match = child.expect(r"^\[dev\] .* changed; .*$")
    assert match[0].startswith("[dev] __init__.py changed; reloaded"), match[0]
    child.send("b")
    answered(child, "v1:b")
    assert child.finish()[0] == EXIT_OK
    assert not [line for line in child.lines if " changed; " in line and "__init__" not in line]


@pytest.mark.parametrize(
    ("name", "is_ignored"),
    [
        *[
            (name, True)
            for name in (
                "sedCbVrci", "sed0Ab9zQ", ".x.py.swp", "x.py.swp", "x.py.swx", "x.py~",
                ".#x.py", "#x.py#", "4913", "5036", "x.tmp", "x.pyc", "x.py___jb_tmp___",
            )
        ],
        *[
            (name, False)
            for name in ("provider.py", "sed.py", "sedan.py", "sedimentary", "v2.py", "page.html")
        ],
    ],
)  # fmt: skip
def test_which_names_are_temporary_files(name: str, is_ignored: bool) -> None:
    from user_interaction.cli._watch import ignored

    assert ignored(name) is is_ignored
