"""What the human sees and what their typing means.

Rendering shows every string that came from the model through
:func:`user_interaction.terminal.visible`: control and invisible characters are shown as
escapes (ESC as ``\\x1b``, a zero-width space as ``\\u200b``), so model text can never move
the cursor, retitle the window, recolour the screen or make two options look alike; an
option's preview is shown under it, indented behind a ``| `` gutter, with its line breaks
kept. Interpreting turns one typed line into
an answer item, or into a one-line hint when the prompt must be shown again.

Typing conventions (also in the README and in the hint under every question):

* a number picks that option; on a multi-select question several numbers separated by
  commas and/or spaces pick several (duplicates collapse, order of first appearance);
* ``-`` alone skips the question (an answer with no selection and no custom text);
* ``=text`` answers with ``text`` literally, so ``=42`` is the custom answer ``42``;
* ``#`` after the numbers starts a note beside the choice: ``2 # pin the version``;
* an option's exact label (spaces around it stripped) picks that option, notes allowed
  after it as after a number (``npm # pin it``);
* any other non-empty text is a custom answer.

With colour (see :func:`user_interaction.terminal.color_wanted`), the question is bold
and descriptions, previews and hints are dimmed; the text is the same either way.
"""

from __future__ import annotations

import re
from typing import Final, Union

from user_interaction import AskUserQuestionAnswerItem, AskUserQuestionItem
from user_interaction.terminal import visible
from user_interaction.toolkit import clock

__all__ = [
    "LITERAL",
    "NOTE",
    "PROMPT",
    "SKIP",
    "echo",
    "interpret",
    "render_question",
    "usage",
    "visible",
]

#: Typed alone, skips the question.
SKIP: Final = "-"
#: Starts a literal custom answer: ``=42`` answers ``42`` instead of picking option 42.
LITERAL: Final = "="
#: After the numbers of a choice, starts a note beside it: ``2 # pin the version``.
NOTE: Final = "#"
#: The input prompt.
PROMPT: Final = "> "
#: What each line of an option's preview is shown behind (after the indentation).
GUTTER: Final = "| "

_NUMBER: Final = re.compile(r"[0-9]+")
_NUMBERS: Final = re.compile(r"[0-9]+(?:[\s,]+[0-9]+)*")
_SEPARATORS: Final = re.compile(r"[\s,]+")
_MAX_DIGITS: Final = 9  # beyond this a number is out of range anyway (and int() stays cheap)
#: What Python makes of bytes a terminal's encoding cannot read (surrogateescape).
_UNREADABLE: Final = re.compile("[\udc80-\udcff]")


def _encoding() -> str:
    import sys

    return getattr(sys.stdin, "encoding", None) or "utf-8"


# Select Graphic Rendition: the few looks used, and the reset after each.
_BOLD: Final = "\x1b[1m"
_DIM: Final = "\x1b[2m"
_GREEN: Final = "\x1b[32m"
_RESET: Final = "\x1b[0m"


def _paint(text: str, look: str, color: bool) -> str:
    return f"{look}{text}{_RESET}" if color and text else text


def usage(item: AskUserQuestionItem) -> str:
    """The one-line hint shown under a question, before the first prompt."""
    conventions = f"{LITERAL}text: literal text, {SKIP}: skip"
    if not item.options:
        return f"Type your answer ({conventions})"
    if item.multi_select:
        return (
            "Type one or more numbers (like 1,3 or 1 3) or your own answer "
            f"({conventions}, 1,3 {NOTE} text: add a note)"
        )
    return f"Type a number or your own answer ({conventions}, 1 {NOTE} text: add a note)"


def _choices(item: AskUserQuestionItem) -> str:
    count = len(item.options)
    numbers = "1"
    if count > 1:
        numbers = f"{'numbers' if item.multi_select else 'a number'} from 1 to {count}"
    return f"type {numbers}, your own answer, {LITERAL}text for literal text, or {SKIP} to skip."


def render_question(
    item: AskUserQuestionItem,
    number: int = 1,
    total: int = 1,
    *,
    color: bool = False,
    rows: int | None = None,
    time_left: float | None = None,
) -> str:
    """The question block: a blank line, ``Question n of m`` (in a request of several)
    and the time left to answer (``time_left`` seconds, when the ask has a deadline),
    ``[header] question``, detail, options, hint; ``color`` adds emphasis. When the block
    is taller than ``rows`` (the terminal's height) the question's first line scrolled
    away: it is said again, after ``↑``, right above the hint."""
    title = visible(item.question)
    if item.header and item.header.strip():
        title = f"[{visible(item.header)}] {title}"
    lines = [""]
    above = [f"Question {number} of {total}"] if total > 1 else []
    if time_left is not None:
        above.append(f"⏱ {clock(time_left)} left to answer")
    if above:
        lines.append(_paint(" · ".join(above), _DIM, color))
    lines.append(_paint(title, _BOLD, color))
    if item.detail:
        lines.extend(visible(item.detail, multiline=True).split("\n"))
    for index, option in enumerate(item.options, 1):
        bullet = f"  {index}. "
        indent = " " * len(bullet)
        lines.append(bullet + visible(option.label))
        if option.description:
            lines.append(indent + _paint(visible(option.description), _DIM, color))
        if option.preview and option.preview.strip():
            preview = visible(option.preview, multiline=True)
            lines.extend(
                indent + _paint((GUTTER + line).rstrip(), _DIM, color)
                for line in preview.split("\n")
            )
    if rows is not None and len(lines) + 2 > rows:  # + the hint and the prompt
        lines.append(_paint(f"↑ {title}", _BOLD, color))
    lines.append(_paint(usage(item), _DIM, color))
    return "\n".join(lines) + "\n"


def echo(
    item: AskUserQuestionItem, answer: AskUserQuestionAnswerItem, *, color: bool = False
) -> str:
    """The line that records an answer under its question: what was understood."""
    if answer.custom is not None:
        text = f"✓ your answer: {visible(answer.custom)}"
    elif answer.selected:
        numbers = {option.label: index for index, option in enumerate(item.options, 1)}
        text = "✓ " + ", ".join(f"{numbers[label]}. {visible(label)}" for label in answer.selected)
        if answer.notes:
            text += f" (notes: {visible(answer.notes)})"
    else:
        return _paint("- skipped", _DIM, color) + "\n"
    return _paint(text, _GREEN, color) + "\n"


Interpretation = Union[AskUserQuestionAnswerItem, str]
"""An answer item, or (a ``str``) the one-line hint to show before prompting again."""


def interpret(item: AskUserQuestionItem, line: str) -> Interpretation:
    """What one typed line means for ``item``: an answer item, or a hint to try again."""
    if _UNREADABLE.search(line):
        return (
            "That line holds bytes that are not valid text in the input's encoding "
            f"({_encoding()}); nothing was taken. Type it again (is the terminal set to "
            "another encoding?)."
        )
    text = line.strip()
    if not text:
        if not item.options:
            return f"Please type an answer, or {SKIP} to skip."
        return "Please answer: " + _choices(item)
    if text == SKIP:
        return AskUserQuestionAnswerItem(item.id)
    if text.startswith(LITERAL):
        literal = text[len(LITERAL) :].strip()
        if not literal:
            return f"Type text right after {LITERAL} (for example {LITERAL}42), or {SKIP} to skip."
        return AskUserQuestionAnswerItem(item.id, custom=literal)
    if item.options:
        choice, _, notes = text.partition(NOTE)
        picked = _pick(item, choice.strip())  # numbers first: "2" is option 2
        labels = [option.label for option in item.options]
        numbered = isinstance(picked, list) and bool(picked)
        if not numbered and text in labels:  # then an exact label, even one with a "#"
            picked, notes = [text], ""
        elif not numbered and choice.strip() in labels:  # a label, then notes
            picked = [choice.strip()]
        if isinstance(picked, str):
            return picked
        if picked:
            return AskUserQuestionAnswerItem(item.id, picked, notes=notes.strip() or None)
    return AskUserQuestionAnswerItem(item.id, custom=text)


def _pick(item: AskUserQuestionItem, text: str) -> list[str] | str:
    """The labels the numbers in ``text`` pick (none if it is not numbers), or a hint."""
    if item.multi_select and _NUMBERS.fullmatch(text):
        tokens = _SEPARATORS.split(text)
    elif _NUMBER.fullmatch(text):
        tokens = [text]
    else:
        return []
    count = len(item.options)
    picked: list[str] = []
    for token in tokens:
        digits = token.lstrip("0") or "0"
        number = int(digits) if len(digits) <= _MAX_DIGITS else 0
        if not 1 <= number <= count:
            shown = digits if len(digits) <= _MAX_DIGITS else digits[:_MAX_DIGITS] + "..."
            return f"There is no option {shown}; " + _choices(item)
        label = item.options[number - 1].label
        if label not in picked:
            picked.append(label)
    return picked
