"""The rules of a well-formed request (checked before a provider sees it) and of a
well-formed answer (checked before the caller sees it), written once.

Each rule set lists the :class:`Problem`\\ s it finds in the order a reader would check
them (the request's into a list it is given: the manager checks every request, and a
generator per field cost a third of a trivial ask): the manager raises the first
(``validate_request``, ``validate_answer``), and code that reports every problem to a
person (an inbox server refusing an answer, a form pointing at the broken field) lists
them with :func:`check_answer`.
"""

from __future__ import annotations

import re
from typing import Final, Iterator, Mapping

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
    if required and not text.replace("\x00", "").strip():
        return "must not be blank"
    if not text.isascii() and _SURROGATE.search(text) is not None:
        return "must be valid Unicode: it holds a lone surrogate"
    return None


# -- requests ----------------------------------------------------------------------------


def validate_request(request: object) -> None:
    """Raise ``EMPTY_QUESTIONS`` / ``INVALID_REQUEST`` naming the first broken rule."""
    problems: list[Problem] = []
    _request_problems(request, problems)
    if problems:
        raise problems[0].error()


def _text(value: object, where: str, problems: list[Problem], *, required: bool = True) -> None:
    if not isinstance(value, str):
        expected = "a string" if required else "a string or None"
        problems.append(
            Problem(where, f"expected {expected}, got {type(value).__name__}", INVALID_REQUEST)
        )
        return
    problem = text_problem(value, required=required)
    if problem is not None:
        problems.append(Problem(where, problem, INVALID_REQUEST))


def _optional(value: object, where: str, problems: list[Problem], *, blank: bool = True) -> None:
    """Optional text: ``None``, or text (``blank=False``: text that is not blank)."""
    if value is not None:
        _text(value, where, problems, required=not blank)


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
    if not isinstance(questions, tuple):
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
        _question_problems(item, f"questions[{index}]", ids, problems)
    _optional(request.key, "key", problems, blank=False)
    _optional(request.remember, "remember", problems, blank=False)


def _question_problems(item: object, where: str, ids: set[str], problems: list[Problem]) -> None:
    if not isinstance(item, AskUserQuestionItem):
        problems.append(
            Problem(
                where, f"expected AskUserQuestionItem, got {type(item).__name__}", INVALID_REQUEST
            )
        )
        return
    _text(item.id, f"{where}.id", problems)
    if isinstance(item.id, str):
        if item.id in ids:
            problems.append(Problem(f"{where}.id", f"duplicate id {item.id!r}", INVALID_REQUEST))
        ids.add(item.id)
    _text(item.question, f"{where}.question", problems)
    _optional(item.header, f"{where}.header", problems)
    _optional(item.detail, f"{where}.detail", problems)
    multi: object = item.multi_select
    if not isinstance(multi, bool):
        problems.append(Problem(f"{where}.multi_select", "expected a boolean", INVALID_REQUEST))
    options: object = item.options
    if not isinstance(options, tuple):
        problems.append(
            Problem(f"{where}.options", "expected a sequence of options", INVALID_REQUEST)
        )
        return
    if not options and item.multi_select:
        problems.append(
            Problem(
                f"{where}.multi_select",
                "a question without options cannot be multi-select",
                INVALID_REQUEST,
            )
        )
    labels: set[str] = set()
    for position, option in enumerate(options):
        at = f"{where}.options[{position}]"
        if not isinstance(option, AskUserQuestionOption):
            problems.append(
                Problem(
                    at,
                    f"expected AskUserQuestionOption, got {type(option).__name__}",
                    INVALID_REQUEST,
                )
            )
            continue
        _text(option.label, f"{at}.label", problems)
        if isinstance(option.label, str):
            if option.label in labels:
                problems.append(
                    Problem(f"{at}.label", f"duplicate label {option.label!r}", INVALID_REQUEST)
                )
            labels.add(option.label)
        _optional(option.description, f"{at}.description", problems)
        _optional(option.preview, f"{at}.preview", problems)


# -- answers -----------------------------------------------------------------------------


def validate_answer(request: AskUserQuestionRequest, result: object) -> AskUserQuestionAnswer:
    """Return the provider's answer as checked against ``request``, or raise
    ``INVALID_ANSWER`` naming the first broken rule."""
    answer, problem = _parse_answer(result)
    if answer is None:
        assert problem is not None
        raise problem.error("provider answer: ")
    for problem in _answer_problems(request, answer):
        raise problem.error()
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
    return list(_answer_problems(request, parsed))


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
    request: AskUserQuestionRequest, answer: AskUserQuestionAnswer
) -> Iterator[Problem]:
    answers: object = answer.answers
    if not isinstance(answers, tuple):
        yield Problem("answers", "expected a sequence")
        return
    by_id = {item.id: item for item in request.questions}
    seen: set[str] = set()
    for index, item in enumerate(answers):
        where = f"answers[{index}]"
        if not isinstance(item, AskUserQuestionAnswerItem):
            yield Problem(where, f"expected AskUserQuestionAnswerItem, got {type(item).__name__}")
            continue
        question = by_id.get(item.id) if isinstance(item.id, str) else None
        if question is None:
            yield Problem(f"{where}.id", f"{item.id!r} was not asked")
            continue
        if item.id in seen:
            yield Problem(f"{where}.id", f"{item.id!r} is answered twice")
            continue
        seen.add(item.id)
        yield from _item_problems(item, question, where)


def _answer_text(value: object, where: str) -> Iterator[Problem]:
    """Custom text and notes: the request's rules for required text."""
    if not isinstance(value, str):
        yield Problem(where, "expected a string")
        return
    problem = text_problem(value)
    if problem is not None:
        yield Problem(where, problem)


def _item_problems(
    item: AskUserQuestionAnswerItem, question: AskUserQuestionItem, where: str
) -> Iterator[Problem]:
    selected: object = item.selected
    custom, notes = item.custom, item.notes
    if custom is not None:
        yield from _answer_text(custom, f"{where}.custom")
    if not isinstance(selected, tuple):
        yield Problem(f"{where}.selected", "expected a sequence")
        return
    if notes is not None:
        yield from _answer_text(notes, f"{where}.notes")
        if not selected:
            yield Problem(f"{where}.notes", "notes go beside a selection, but nothing is selected")
    if not selected:
        return
    if custom is not None:
        yield Problem(where, "custom text and selected labels are exclusive")
    if not question.options:
        yield Problem(f"{where}.selected", f"question {item.id!r} has no options to select")
        return
    if len(selected) > 1 and not question.multi_select:
        yield Problem(
            f"{where}.selected",
            f"question {item.id!r} is single-select but {len(selected)} labels were selected",
        )
    offered = {option.label for option in question.options}
    for position, label in enumerate(selected):
        if label not in offered:
            yield Problem(
                f"{where}.selected[{position}]",
                f"{label!r} was not offered for question {item.id!r}",
            )
        elif label in selected[:position]:
            yield Problem(f"{where}.selected[{position}]", f"{label!r} is selected twice")
