"""What typed lines mean, and how model text is neutralised (pure functions)."""

from __future__ import annotations

import pytest
from user_interaction_stdio._text import echo, interpret, render_question, visible

from user_interaction import AskUserQuestionAnswerItem, AskUserQuestionItem, AskUserQuestionOption

SINGLE = AskUserQuestionItem("q", "Q?", options=[AskUserQuestionOption(x) for x in "abc"])
MULTI = AskUserQuestionItem(
    "q", "Q?", options=[AskUserQuestionOption(x) for x in "abc"], multi_select=True
)
FREE = AskUserQuestionItem("q", "Q?")


def picked(*labels: str) -> AskUserQuestionAnswerItem:
    return AskUserQuestionAnswerItem("q", labels)


def noted(notes: str, *labels: str) -> AskUserQuestionAnswerItem:
    return AskUserQuestionAnswerItem("q", labels, notes=notes)


def custom(text: str) -> AskUserQuestionAnswerItem:
    return AskUserQuestionAnswerItem("q", custom=text)


SKIPPED = AskUserQuestionAnswerItem("q")


@pytest.mark.parametrize(
    ("item", "line", "expected"),
    [
        (SINGLE, "2", picked("b")),
        (SINGLE, "  3 \n", picked("c")),
        (SINGLE, "03", picked("c")),
        (SINGLE, "yarn", custom("yarn")),
        (SINGLE, "1 2", custom("1 2")),
        (SINGLE, "-1", custom("-1")),
        (SINGLE, "=2", custom("2")),
        (SINGLE, "= two words ", custom("two words")),
        (SINGLE, "==x", custom("=x")),
        (SINGLE, "=-", custom("-")),
        (SINGLE, "-", SKIPPED),
        (SINGLE, " - ", SKIPPED),
        (MULTI, "3,1 3", picked("c", "a")),
        (MULTI, "2, 2 ,1", picked("b", "a")),
        (MULTI, "2", picked("b")),
        (MULTI, "1 two", custom("1 two")),
        (MULTI, ",1", custom(",1")),
        (MULTI, "=1,2", custom("1,2")),
        (MULTI, "-", SKIPPED),
        (FREE, "42", custom("42")),
        (FREE, "0", custom("0")),
        (FREE, "anything", custom("anything")),
        (FREE, "-", SKIPPED),
        (FREE, "=-", custom("-")),
        (SINGLE, "2 # pin the version", noted("pin the version", "b")),
        (SINGLE, " 3#x#y ", noted("x#y", "c")),
        (SINGLE, "2 #   ", picked("b")),
        (SINGLE, "yarn # fast", custom("yarn # fast")),
        (SINGLE, "1 2 # both", custom("1 2 # both")),
        (SINGLE, "# a note alone", custom("# a note alone")),
        (SINGLE, "=2 # literal", custom("2 # literal")),
        (SINGLE, "- # why", custom("- # why")),
        (MULTI, "3,1 # strict", noted("strict", "c", "a")),
        (MULTI, "1 1 2#n", noted("n", "a", "b")),
        (MULTI, "1 two # n", custom("1 two # n")),
        (FREE, "C# please", custom("C# please")),
        (FREE, "1 # n", custom("1 # n")),
    ],
)
def test_interpret_answers(item: AskUserQuestionItem, line: str, expected: object) -> None:
    assert interpret(item, line) == expected


@pytest.mark.parametrize(
    ("item", "line", "hint"),
    [
        (SINGLE, "", "Please answer: type a number from 1 to 3,"),
        (SINGLE, "   ", "Please answer: type a number from 1 to 3,"),
        (SINGLE, "0", "There is no option 0;"),
        (SINGLE, "000", "There is no option 0;"),
        (SINGLE, "4", "There is no option 4;"),
        (SINGLE, "9" * 5000, "There is no option 999999999...;"),
        (MULTI, "1 0", "There is no option 0; type numbers from 1 to 3,"),
        (MULTI, "4,1", "There is no option 4;"),
        (SINGLE, "4 # note", "There is no option 4;"),
        (MULTI, "1,0 # note", "There is no option 0;"),
        (FREE, "", "Please type an answer, or - to skip."),
        (SINGLE, "=", "Type text right after = (for example =42), or - to skip."),
        (FREE, " =  ", "Type text right after ="),
    ],
)
def test_interpret_asks_again(item: AskUserQuestionItem, line: str, hint: str) -> None:
    result = interpret(item, line)
    assert isinstance(result, str)
    assert result.startswith(hint)
    assert "\n" not in result


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, ünïcode ✓", "plain text, ünïcode ✓"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),
        ("\u202eevil\u2066\u2028", "\\u202eevil\\u2066\\u2028"),
        # zero-width and tag characters: invisible, so they are shown (issue 15)
        ("Keep\u200b", "Keep\\u200b"),
        ("a\u200cb\u200dc\u2060d\ufeff", "a\\u200cb\\u200dc\\u2060d\\ufeff"),
        ("\U000e0000\U000e0041\U000e007f", "\\U000e0000\\U000e0041\\U000e007f"),
    ],
)
def test_visible_neutralises_controls(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_visible_multiline_keeps_line_breaks_only() -> None:
    assert visible("one\r\ntwo\nthree\rx\x1b", multiline=True) == "one\ntwo\nthree\\rx\\x1b"


def test_render_question_layout() -> None:
    item = AskUserQuestionItem(
        "q",
        "Pick?",
        header="Head",
        detail="Some\ncontext",
        options=[
            AskUserQuestionOption(f"o{n}", "d" if n in (1, 10) else None) for n in range(1, 11)
        ],
        multi_select=True,
    )
    lines = render_question(item).split("\n")
    assert lines[:6] == ["", "[Head] Pick?", "Some", "context", "  1. o1", "     d"]
    assert lines[-4:] == [
        "  10. o10",
        "      d",
        "Type one or more numbers (like 1,3 or 1 3) or your own answer"
        " (=text: literal text, -: skip, 1,3 # text: add a note)",
        "",
    ]
    single = AskUserQuestionItem("q", "Pick?", options=[AskUserQuestionOption("a")])
    assert render_question(single).endswith(
        "\nType a number or your own answer (=text: literal text, -: skip, 1 # text: add a note)\n"
    )


@pytest.mark.parametrize("multi", [False, True])
def test_previews_are_shown_indented_after_the_description(multi: bool) -> None:
    item = AskUserQuestionItem(
        "q",
        "Layout?",
        options=[
            AskUserQuestionOption("grid", "two columns", "```\n+--+--+\n|\ta |  |\r\n\n```"),
            AskUserQuestionOption("list", preview="- a\n- b"),
            AskUserQuestionOption("none", preview=" \n "),
        ],
        multi_select=multi,
    )
    lines = render_question(item).split("\n")
    assert lines[2:14] == [
        "  1. grid",
        "     two columns",
        "     | ```",
        "     | +--+--+",
        "     | |   a |  |",  # tabs expanded, not shown as \t
        "     |",
        "     | ```",
        "  2. list",
        "     | - a",
        "     | - b",
        "  3. none",  # a blank preview shows nothing
        lines[13],
    ]
    assert lines[13].startswith("Type ")


def test_previews_are_neutralised() -> None:
    preview = "ok\x1b[2J\n\x1b]0;owned\x07\u202e\x9b6n\x08\x85end"
    item = AskUserQuestionItem("q", "?", options=[AskUserQuestionOption("a", preview=preview)])
    lines = render_question(item).split("\n")
    assert lines[3:5] == [
        "     | ok\\x1b[2J",
        "     | \\x1b]0;owned\\x07\\u202e\\x9b6n\\x08\\x85end",
    ]


def test_render_without_header_or_options() -> None:
    assert render_question(AskUserQuestionItem("q", "Name?", header="  ")) == (
        "\nName?\nType your answer (=text: literal text, -: skip)\n"
    )


def test_options_that_differ_by_an_invisible_character_look_different() -> None:
    item = AskUserQuestionItem(
        "q", "Which?", options=["Keep", "Keep\u200b", "Keep\U000e0041", "Keep\ufeff"]
    )
    lines = render_question(item).splitlines()
    assert lines[2:6] == [
        "  1. Keep",
        "  2. Keep\\u200b",
        "  3. Keep\\U000e0041",
        "  4. Keep\\ufeff",
    ]


def test_a_line_with_bytes_the_encoding_could_not_read_gets_a_hint() -> None:
    item = AskUserQuestionItem("city", "City?")
    hint = interpret(item, "Z\udcfcrich")  # b"Z\xfcrich" read as UTF-8, surrogateescape
    assert isinstance(hint, str)
    assert hint.startswith("That line holds bytes that are not valid text")


NAMED = AskUserQuestionItem(
    "q", "Q?", options=[AskUserQuestionOption(x) for x in ("npm", "C#", "2", "pnpm strict")]
)
NAMED_MULTI = AskUserQuestionItem(
    "q", "Q?", options=[AskUserQuestionOption(x) for x in ("npm", "yarn")], multi_select=True
)


@pytest.mark.parametrize(
    ("item", "line", "expected"),
    [
        (NAMED, "npm", picked("npm")),  # an exact label picks, it is not custom text
        (NAMED, "  pnpm strict \n", picked("pnpm strict")),
        (NAMED, "C#", picked("C#")),  # the whole line is a label: "#" is no note
        (NAMED, "npm # pin it", noted("pin it", "npm")),
        (NAMED, "npm #", picked("npm")),
        (NAMED, "NPM", custom("NPM")),  # exact: case counts
        (NAMED, "npm yarn", custom("npm yarn")),
        (NAMED, "=npm", custom("npm")),  # = still forces custom text
        (NAMED, "2", picked("C#")),  # a number is a number first
        (NAMED, "=2", custom("2")),
        (NAMED_MULTI, "yarn", picked("yarn")),
        (NAMED_MULTI, "yarn # docs only", noted("docs only", "yarn")),
        (NAMED_MULTI, "npm, yarn", custom("npm, yarn")),
    ],
)
def test_an_exact_label_picks_its_option(
    item: AskUserQuestionItem, line: str, expected: object
) -> None:
    assert interpret(item, line) == expected


def test_a_question_of_several_says_which_it_is() -> None:
    item = AskUserQuestionItem("q", "Pick?", header="Head", options=["a"])
    lines = render_question(item, 2, 3).split("\n")
    assert lines[:3] == ["", "Question 2 of 3", "[Head] Pick?"]
    assert "Question" not in render_question(item, 1, 1)
    # with a deadline, the time left goes beside the counter (or alone)
    lines = render_question(item, 2, 3, time_left=61.2).split("\n")
    assert lines[1] == "Question 2 of 3 · ⏱ 1:02 left to answer"
    assert render_question(item, time_left=3600).split("\n")[1] == "⏱ 1:00:00 left to answer"


def test_colour_adds_emphasis_and_changes_no_text() -> None:
    import re

    item = AskUserQuestionItem(
        "q",
        "Pick?",
        header="Head",
        detail="why",
        options=[AskUserQuestionOption("a", "the first", "```\ncode\n```")],
    )
    plain = render_question(item, 1, 2)
    coloured = render_question(item, 1, 2, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1m[Head] Pick?\x1b[0m" in coloured  # the question in bold
    assert "\x1b[2mthe first\x1b[0m" in coloured  # descriptions dimmed
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain
    # model text cannot bring its own colour: its escapes are shown, not sent
    evil = AskUserQuestionItem("q", "\x1b[31mred", options=["a"])
    assert "\x1b[31m" not in render_question(evil, color=True)


def test_echo_records_what_was_understood() -> None:
    item = AskUserQuestionItem("q", "Q?", options=["npm", "yarn\x1b[2J"], multi_select=True)
    assert echo(item, picked("npm")) == "✓ 1. npm\n"
    assert echo(item, noted("pin it", "npm", "yarn\x1b[2J")) == (
        "✓ 1. npm, 2. yarn\\x1b[2J (notes: pin it)\n"
    )
    assert echo(item, custom("bun")) == "✓ your answer: bun\n"
    assert echo(item, SKIPPED) == "- skipped\n"
    assert echo(item, picked("npm"), color=True) == "\x1b[32m✓ 1. npm\x1b[0m\n"


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [
        ({}, True, True),
        ({}, False, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # set but empty: not a request
        ({"TERM": "dumb"}, True, False),
        ({"FORCE_COLOR": "1"}, False, True),
        ({"CLICOLOR_FORCE": "1"}, False, True),
        ({"FORCE_COLOR": "0"}, False, False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),  # NO_COLOR wins
    ],
)
def test_colour_follows_the_conventions(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tty: bool, expected: bool
) -> None:
    from user_interaction.terminal import color_wanted

    for name in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    class Stream:
        def isatty(self) -> bool:
            return tty

    assert color_wanted(Stream()) is expected
