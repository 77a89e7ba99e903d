"""The pytest plugin: the user_interaction fixture, the answers marker, the check for
swallowed failures, and loading it once whichever way it is named."""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

PLUGIN = "user_interaction.testing.pytest_plugin"
# Inner runs: no cache files, and no hypothesis plugin (pytester restores sys.modules after
# every run, so its costly import would be repeated for each).
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")

HEADER = """
import asyncio
import pytest
from user_interaction import (
    ASK_CANCELLED,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteractionError,
)
from user_interaction.testing import (
    FIRST_OPTION, SKIP, UNANSWERED_QUESTION, custom, reject, sequence,
)

PKG = AskUserQuestionItem(
    "pkg", "Which package manager?",
    options=[AskUserQuestionOption("pnpm"), AskUserQuestionOption("npm")],
)
NAME = AskUserQuestionItem("name", "Your name?")


def ask(kit, *items):
    return kit.ui.ask_sync(AskUserQuestionRequest(list(items)))
"""


def run(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    """Run ``body`` (after HEADER) as a test module, the plugin loaded explicitly, with
    warnings as errors and strict markers like this repository's own configuration."""
    pytester.makepyfile(test_it=HEADER + textwrap.dedent(body))
    return pytester.runpytest("-p", PLUGIN, *QUIET, "-W", "error", "--strict-markers", *args)


def test_marker_scripts_the_fixture(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        @pytest.mark.answers(pkg="npm", name=custom("Ada"))
        def test_it(user_interaction):
            answer = ask(user_interaction, PKG, NAME)
            assert answer.get("pkg").selected == ("npm",)
            assert answer.get("name").custom == "Ada"
            user_interaction.assert_asked("pkg", "name")
            assert user_interaction.asked_ids == ["pkg", "name"]
            assert user_interaction.provider.requests[0].questions == (PKG, NAME)
        """,
    )
    result.assert_outcomes(passed=1)


def test_markers_merge_closest_wins(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        pytestmark = pytest.mark.answers(name="Module", default=FIRST_OPTION)

        @pytest.mark.answers({"pkg": "npm", "default": "pnpm"})
        class TestIt:
            def test_class(self, user_interaction):
                answer = ask(user_interaction, PKG, NAME)
                assert answer.get("pkg").selected == ("npm",)
                assert answer.get("name").custom == "Module"

            @pytest.mark.answers(pkg="pnpm", default=SKIP)
            def test_function(self, user_interaction):
                other = AskUserQuestionItem("other", "Other?", options=PKG.options)
                default = AskUserQuestionItem("default", "Id 'default'?", options=PKG.options)
                answer = ask(user_interaction, PKG, other, default)
                assert answer.get("pkg").selected == ("pnpm",)
                assert answer.get("other").selected == ()  # default=SKIP: closest wins
                assert answer.get("default").selected == ("pnpm",)  # an id, from the dict
        """,
    )
    result.assert_outcomes(passed=2)


def test_a_module_marker_s_sequence_scripts_every_test_anew(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        pytestmark = pytest.mark.answers(pkg=sequence("npm", "pnpm"))

        @pytest.mark.parametrize("run", [1, 2, 3])
        def test_it(user_interaction, run):
            assert ask(user_interaction, PKG).get("pkg").selected == ("npm",)
            assert ask(user_interaction, PKG).get("pkg").selected == ("pnpm",)
        """,
    )
    result.assert_outcomes(passed=3)


def test_fixture_methods_and_patterns(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        def test_it(user_interaction):
            user_interaction.answer(pkg="npm").when(pattern="(?i)name", answer="Ada")
            answer = ask(user_interaction, PKG, NAME)
            assert answer.get("name").custom == "Ada"
            assert user_interaction.question("pkg") is PKG

        def test_async(user_interaction):
            user_interaction.answer(default=reject(ASK_CANCELLED))
            async def main():
                with pytest.raises(UserInteractionError) as info:
                    await user_interaction.ui.ask(AskUserQuestionRequest([PKG]))
                assert info.value.code == ASK_CANCELLED
            asyncio.run(main())
        """,
    )
    result.assert_outcomes(passed=2)


def test_every_test_gets_a_fresh_context_closed_after_it(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        seen = []

        @pytest.mark.answers(pkg="npm")
        def test_first(user_interaction):
            ask(user_interaction, PKG)
            seen.append(user_interaction)

        def test_second(user_interaction):
            assert user_interaction is not seen[0]
            assert user_interaction.asked_ids == []
            assert seen[0].ui.provider is None and seen[0].provider.disposed
            with pytest.raises(UserInteractionError) as info:
                ask(user_interaction, PKG)  # the first test's answers are gone
            assert info.value.code == UNANSWERED_QUESTION
            user_interaction.provider.failures.clear()
        """,
    )
    result.assert_outcomes(passed=2)


def test_assert_asked_reports_what_was_asked(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        @pytest.mark.answers(pkg="npm")
        def test_it(user_interaction):
            ask(user_interaction, PKG)
            user_interaction.assert_asked("name")
        """,
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: never asked: 'name'; asked: 'pkg'"])


def test_a_swallowed_unanswered_question_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        def harness(ui):
            try:
                return ui.ask_sync(AskUserQuestionRequest([PKG]))
            except UserInteractionError:
                return None  # the code under test hides the failure

        def test_swallowed(user_interaction):
            assert harness(user_interaction.ui) is None

        def test_expected(user_interaction):
            assert harness(user_interaction.ui) is None
            assert [e.code for e in user_interaction.provider.failures] == [UNANSWERED_QUESTION]
            user_interaction.provider.failures.clear()

        def test_failing_anyway(user_interaction):
            harness(user_interaction.ui)
            assert False, "the test's own failure is reported"
        """,
        "-q",
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*the user_interaction fixture could not answer every question*",
            "*No answer is scripted for question 'pkg'*",
            "*clear user_interaction.provider.failures if the test expects this.",
        ]
    )
    result.stdout.fnmatch_lines(["*AssertionError: the test's own failure is reported"])


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", PLUGIN, *QUIET, "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.answers(answers=None, /, *, default=None, *"])


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('"pkg"', "@pytest.mark.answers: positional arguments must be mappings*"),
        ("pkg=3", "@pytest.mark.answers: answer for 'pkg': 3 is not an answer*"),
        ('default=""', "@pytest.mark.answers: default: a blank answer*"),
    ],
)
def test_bad_markers_are_setup_errors(pytester: pytest.Pytester, marker: str, message: str) -> None:
    result = run(
        pytester,
        f"""
        @pytest.mark.answers({marker})
        def test_it(user_interaction):
            pass
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"E   *{message}"])


# -- loading the plugin ----------------------------------------------------------------------

USES_FIXTURE = f"""
@pytest.mark.answers(pkg="npm")
def test_it(user_interaction, request):
    assert ask(user_interaction, PKG).get("pkg").selected == ("npm",)
    manager = request.config.pluginmanager
    loaded = [p for p in manager.get_plugins() if getattr(p, "__name__", "") == {PLUGIN!r}]
    assert len(loaded) == 1
"""


def install_entry_point(pytester: pytest.Pytester) -> None:
    """A distribution on sys.path offering the plugin under the ``pytest11`` entry point
    ``user_interaction``, as the installed core does."""
    info = pytester.mkdir("site") / "fake_user_interaction-0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fake-user-interaction\nVersion: 0.0\n"
    )
    (info / "entry_points.txt").write_text(f"[pytest11]\nuser_interaction = {PLUGIN}\n")
    pytester.syspathinsert(pytester.path / "site")


@pytest.mark.parametrize(
    ("entry_point", "how"),
    [
        (False, "-p"),
        (False, "conftest"),
        (True, "none"),
        (True, "-p"),
        (True, "conftest"),
        (True, "-p and conftest"),
    ],
)
def test_loaded_once_whichever_way(pytester: pytest.Pytester, entry_point: bool, how: str) -> None:
    if entry_point:
        install_entry_point(pytester)
    pytester.makepyfile(test_it=HEADER + USES_FIXTURE)
    if "conftest" in how:
        pytester.makeconftest(f"pytest_plugins = [{PLUGIN!r}]")
    args = ["-p", PLUGIN] if "-p" in how else []
    result = pytester.runpytest(*args, *QUIET, "-W", "error")
    result.assert_outcomes(passed=1)


def test_disabled_by_its_entry_point_name(pytester: pytest.Pytester) -> None:
    install_entry_point(pytester)
    pytester.makepyfile(test_it="def test_it(user_interaction):\n    pass\n")
    result = pytester.runpytest("-p", "no:user_interaction", *QUIET)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'user_interaction' not found*"])
