"""The rules of a well-formed request (checked before a provider sees it) and of a
well-formed answer (checked before the caller sees it), written once.

Each rule set appends the :class:`Problem`\\ s it finds, in the order a reader would check
them, to a list it is given: the manager raises the first (``validate_request``,
``validate_answer``), and code that reports every problem to a person (an inbox server
refusing an answer, a form pointing at the broken field) lists them with
:func:`check_answer`. The manager checks every request and every answer, so the rules
build a problem's path only when there is a problem, and test the usual case first.
"""

from __future__ import annotations

import re
from typing import Final, Mapping

import attrs

from ._errors import EMPTY_QUESTIONS, INVALID_ANSWER, INVALID_REQUEST, UserInteractionError
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

__all__ = ["Problem", "check_answer", "text_problem", "validate_answer", "validate_request"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


@attrs.frozen
class Problem:
    """One broken rule: where (``path``, such as ``answers[0].selected[1]``), what, and
    the error code it is reported with. ``str(problem)`` is ``"path: message"``."""

    path: str
    message: str
    code: str = INVALID_ANSWER

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def error(self, prefix: str = "") -> UserInteractionError:
        """The ``UserInteractionError`` that reports this problem."""
        return UserInteractionError(f"{prefix}{self}", self.code)


def text_problem(text: str, *, required: bool = True) -> str | None:
    """What is wrong with ``text`` as a request's or an answer's text, or ``None``.

    Required text (an id, a question, a label, custom text, notes) must not be blank:
    whitespace and NUL bytes do not count. No text may hold a lone surrogate
    (``"\\ud800"``): it is not Unicode, and nothing could encode it to show, store or send it.
    """
    return _text(text, required)


def _text(value: object, required: bool = True) -> str | None:
    """What is wrong with ``value`` as text; optional text may also be ``None``."""
    if type(value) is not str:
        if value is None and not required:
            return None
        if not isinstance(value, str):
            expected = "a string" if required else "a string or None"
            return f"expected {expected}, got {type(value).__name__}"
    if required and (
        not value or value.isspace() or ("\x00" in value and not value.replace("\x00", "").strip())
    ):
        return "must not be blank"
    if not value.isascii() and _SURROGATE.search(value) is not None:
        return "must be valid Unicode: it holds a lone surrogate"
    return None


# -- requests ----------------------------------------------------------------------------


def validate_request(request: object) -> None:
    """Raise ``EMPTY_QUESTIONS`` / ``INVALID_REQUEST`` naming the first broken rule."""
    problems: list[Problem] = []
    _request_problems(request, problems)
    if problems:
        raise problems[0].error()


def _request_problems(request: object, problems: list[Problem]) -> None:
    if not isinstance(request, AskUserQuestionRequest):
        problems.append(
            Problem(
                "request",
                f"expected AskUserQuestionRequest, got {type(request).__name__}",
                INVALID_REQUEST,
            )
        )
        return
    questions: object = request.questions  # typed, but a caller may pass anything
    if type(questions) is not tuple:
        problems.append(
            Problem(
                "questions", f"expected a sequence, got {type(questions).__name__}", INVALID_REQUEST
            )
        )
        return
    if not questions:
        problems.append(Problem("questions", "at least one question is required", EMPTY_QUESTIONS))
        return
    ids: set[str] = set()
    for index, item in enumerate(questions):
        _question_problems(item, index, ids, problems)
    for field, value in (("key", request.key), ("remember", request.remember)):
        if value is not None:
            message = _text(value)  # set, it names something: not blank
            if message is not None:
                problems.append(Problem(field, message, INVALID_REQUEST))


def _question_problems(item: object, index: int, ids: set[str], problems: list[Problem]) -> None:
    def problem(field: str, message: str) -> None:
        problems.append(Problem(f"questions[{index}]{field}", message, INVALID_REQUEST))

    if type(item) is not AskUserQuestionItem and not isinstance(item, AskUserQuestionItem):
        problem("", f"expected AskUserQuestionItem, got {type(item).__name__}")
        return
    question_id = item.id
    message = _text(question_id)
    if message is not None:
        problem(".id", message)
    if type(question_id) is str:
        if question_id in ids:
            problem(".id", f"duplicate id {question_id!r}")
        ids.add(question_id)
    message = _text(item.question)
    if message is not None:
        problem(".question", message)
    if item.header is not None:
        message = _text(item.header, False)
        if message is not None:
            problem(".header", message)
    if item.detail is not None:
        message = _text(item.detail, False)
        if message is not None:
            problem(".detail", message)
    multi: object = item.multi_select
    if multi is not True and multi is not False:
        problem(".multi_select", "expected a boolean")
    options: object = item.options
    if type(options) is not tuple:
        problem(".options", "expected a sequence of options")
        return
    if not options and multi:
        problem(".multi_select", "a question without options cannot be multi-select")
    labels: set[str] = set()
    for position, option in enumerate(options):
        if type(option) is not AskUserQuestionOption and not isinstance(
            option, AskUserQuestionOption
        ):
            kind = type(option).__name__
            problem(f".options[{position}]", f"expected AskUserQuestionOption, got {kind}")
            continue
        label = option.label
        message = _text(label)
        if message is not None:
            problem(f".options[{position}].label", message)
        if type(label) is str:
            if label in labels:
                problem(f".options[{position}].label", f"duplicate label {label!r}")
            labels.add(label)
        if option.description is not None:
            message = _text(option.description, False)
            if message is not None:
                problem(f".options[{position}].description", message)
        if option.preview is not None:
            message = _text(option.preview, False)
            if message is not None:
                problem(f".options[{position}].preview", message)


# -- answers -----------------------------------------------------------------------------


def validate_answer(request: AskUserQuestionRequest, result: object) -> AskUserQuestionAnswer:
    """Return the provider's answer as checked against ``request``, or raise
    ``INVALID_ANSWER`` naming the first broken rule."""
    answer, problem = _parse_answer(result)
    if answer is None:
        assert problem is not None
        raise problem.error("provider answer: ")
    problems: list[Problem] = []
    _answer_problems(request, answer, problems)
    if problems:
        raise problems[0].error()
    return answer


def check_answer(request: AskUserQuestionRequest, answer: object) -> list[Problem]:
    """Every rule ``answer`` breaks as an answer to ``request``, each with its place; an
    empty list when it is a valid answer. Never raises.

    ``answer`` is an :class:`AskUserQuestionAnswer` or its wire form (a dict). These are
    the rules the manager applies to every provider's answer, for code that takes answers
    from elsewhere (an HTTP client, a form) and must refuse a bad one with the reasons
    instead of passing it on.
    """
    parsed, problem = _parse_answer(answer)
    if parsed is None:
        assert problem is not None
        return [problem]
    problems: list[Problem] = []
    _answer_problems(request, parsed, problems)
    return problems


def _parse_answer(result: object) -> tuple[AskUserQuestionAnswer | None, Problem | None]:
    if isinstance(result, AskUserQuestionAnswer):
        return result, None
    if isinstance(result, Mapping):
        try:
            return AskUserQuestionAnswer.from_dict(result), None
        except UserInteractionError as exc:
            path, _, message = exc.message.partition(": ")
            return None, Problem(path, message) if message else Problem("", exc.message)
        except (TypeError, ValueError) as exc:  # a field of the wrong kind for its class
            return None, Problem("", str(exc))
    return None, Problem("", f"expected AskUserQuestionAnswer, got {type(result).__name__}")


def _answer_problems(
    request: AskUserQuestionRequest, answer: AskUserQuestionAnswer, problems: list[Problem]
) -> None:
    answers: object = answer.answers
    if type(answers) is not tuple:
        problems.append(Problem("answers", "expected a sequence"))
        return
    by_id = {question.id: question for question in request.questions}
    seen: set[str] = set()
    for index, item in enumerate(answers):
        if type(item) is not AskUserQuestionAnswerItem and not isinstance(
            item, AskUserQuestionAnswerItem
        ):
            problems.append(
                Problem(
                    f"answers[{index}]",
                    f"expected AskUserQuestionAnswerItem, got {type(item).__name__}",
                )
            )
            continue
        item_id = item.id
        question = by_id.get(item_id) if type(item_id) is str else None
        if question is None:
            problems.append(Problem(f"answers[{index}].id", f"{item_id!r} was not asked"))
        elif item_id in seen:
            problems.append(Problem(f"answers[{index}].id", f"{item_id!r} is answered twice"))
        else:
            seen.add(item_id)
            _item_problems(item, question, index, problems)


def _item_problems(
    item: AskUserQuestionAnswerItem,
    question: AskUserQuestionItem,
    index: int,
    problems: list[Problem],
) -> None:
    def problem(field: str, message: str) -> None:
        problems.append(Problem(f"answers[{index}]{field}", message))

    selected: object = item.selected
    custom, notes = item.custom, item.notes
    if custom is not None:
        message = _text(custom)
        if message is not None:
            problem(".custom", message)
    if type(selected) is not tuple:
        problem(".selected", "expected a sequence")
        return
    if notes is not None:
        message = _text(notes)
        if message is not None:
            problem(".notes", message)
        if not selected:
            problem(".notes", "notes go beside a selection, but nothing is selected")
    if not selected:
        return
    if custom is not None:
        problem("", "custom text and selected labels are exclusive")
    options = question.options
    if not options:
        problem(".selected", f"question {item.id!r} has no options to select")
        return
    if len(selected) > 1 and not question.multi_select:
        problem(
            ".selected",
            f"question {item.id!r} is single-select but {len(selected)} labels were selected",
        )
    offered = {option.label for option in options}
    for position, label in enumerate(selected):
        if label not in offered:
            problem(f".selected[{position}]", f"{label!r} was not offered for question {item.id!r}")
        elif label in selected[:position]:
            problem(f".selected[{position}]", f"{label!r} is selected twice")
