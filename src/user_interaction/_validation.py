"""The rules of a well-formed request (checked before a provider sees it) and of a
well-formed answer (checked before the caller sees it)."""

from __future__ import annotations

import re
from typing import Final, Mapping

from ._errors import EMPTY_QUESTIONS, INVALID_ANSWER, INVALID_REQUEST, UserInteractionError
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

__all__ = ["text_problem", "validate_answer", "validate_request"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def text_problem(text: str, *, required: bool = True) -> str | None:
    """What is wrong with ``text`` as a request's text, or ``None``.

    Required text (an id, a question, a label) must not be blank: whitespace and NUL bytes
    do not count. No text may hold a lone surrogate (``"\\ud800"``): it is not Unicode,
    and no provider could encode it to show or send it.
    """
    if required and not (text.replace("\x00", "") if "\x00" in text else text).strip():
        return "must not be blank"
    if not text.isascii() and _SURROGATE.search(text) is not None:  # isascii(): O(1)
        return "must be valid Unicode: it holds a lone surrogate"
    return None


def _bad(where: str, problem: str, code: str = INVALID_REQUEST) -> UserInteractionError:
    return UserInteractionError(f"{where}: {problem}", code)


def _text(value: object, where: str) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise _bad(where, f"expected a string, got {type(value).__name__}")
    problem = text_problem(value)
    if problem is not None:
        raise _bad(where, problem)


def _optional_text(value: object, where: str) -> None:
    if value is not None and not isinstance(value, str):
        raise _bad(where, f"expected a string or None, got {type(value).__name__}")
    problem = None if value is None else text_problem(value, required=False)
    if problem is not None:
        raise _bad(where, problem)


def _odd(text: str) -> bool:
    """Whether optional non-ASCII text breaks a rule (a lone surrogate)."""
    return text_problem(text, required=False) is not None


_last_valid: tuple[AskUserQuestionItem, ...] | None = None


def validate_request(request: object) -> None:
    """Raise ``EMPTY_QUESTIONS`` / ``INVALID_REQUEST`` naming the first broken rule.

    A fast pass builds no strings; only a failing request is walked again to say where.
    The questions tuple last found valid is remembered (it is immutable), so asking the
    same request again costs one identity check.
    """
    global _last_valid
    questions = getattr(request, "questions", None)
    if questions is not None and questions is _last_valid:
        return
    if type(request) is AskUserQuestionRequest and _questions_ok(questions):
        _last_valid = questions
        return
    _explain_request(request)


def _questions_ok(questions: object) -> bool:
    """The fast pass. It screens text inline, without a call per string (it runs on every
    new request): ASCII text without NUL bytes that is not blank is fine; only other text
    (non-ASCII, NUL bytes, blank) pays for a call to :func:`text_problem`."""
    if type(questions) is not tuple or not questions:
        return False
    ids: set[str] = set()
    for item in questions:
        if type(item) is not AskUserQuestionItem:
            return False
        item_id = item.id
        if type(item_id) is not str or item_id in ids:
            return False
        plain = item_id.isascii() and "\x00" not in item_id and item_id.strip()
        if not plain and text_problem(item_id):
            return False
        ids.add(item_id)
        text = item.question
        if type(text) is not str:
            return False
        plain = text.isascii() and "\x00" not in text and text.strip()
        if not plain and text_problem(text):
            return False
        header, detail = item.header, item.detail
        if header is not None and (
            type(header) is not str or (not header.isascii() and _odd(header))
        ):
            return False
        if detail is not None and (
            type(detail) is not str or (not detail.isascii() and _odd(detail))
        ):
            return False
        multi: object = item.multi_select  # typed bool, but a caller may pass anything
        if multi is not True and multi is not False:
            return False
        options = item.options
        if type(options) is not tuple:
            return False
        if not options:
            if multi:
                return False
            continue
        labels: set[str] = set()
        for option in options:
            if type(option) is not AskUserQuestionOption:
                return False
            label = option.label
            if type(label) is not str or label in labels:
                return False
            plain = label.isascii() and "\x00" not in label and label.strip()
            if not plain and text_problem(label):
                return False
            labels.add(label)
            description, preview = option.description, option.preview
            if description is not None and (
                type(description) is not str or (not description.isascii() and _odd(description))
            ):
                return False
            if preview is not None and (
                type(preview) is not str or (not preview.isascii() and _odd(preview))
            ):
                return False
    return True


def _explain_request(request: object) -> None:
    """The slow pass: find the first broken rule and say where (accepts str subclasses)."""
    if not isinstance(request, AskUserQuestionRequest):
        raise UserInteractionError(
            f"request: expected AskUserQuestionRequest, got {type(request).__name__}",
            INVALID_REQUEST,
        )
    questions = request.questions
    if type(questions) is not tuple:
        raise _bad("questions", f"expected a sequence, got {type(questions).__name__}")
    if not questions:
        raise UserInteractionError("questions: at least one question is required", EMPTY_QUESTIONS)
    seen_ids: set[str] = set()
    for index, item in enumerate(questions):
        if type(item) is not AskUserQuestionItem:
            raise _bad(
                f"questions[{index}]", f"expected AskUserQuestionItem, got {type(item).__name__}"
            )
        item_id = item.id
        _text(item_id, f"questions[{index}].id")
        if item_id in seen_ids:
            raise _bad(f"questions[{index}].id", f"duplicate id {item_id!r}")
        seen_ids.add(item_id)
        _text(item.question, f"questions[{index}].question")
        if item.header is not None:
            _optional_text(item.header, f"questions[{index}].header")
        if item.detail is not None:
            _optional_text(item.detail, f"questions[{index}].detail")
        if type(item.multi_select) is not bool:
            raise _bad(f"questions[{index}].multi_select", "expected a boolean")
        options = item.options
        if type(options) is not tuple:
            raise _bad(f"questions[{index}].options", "expected a sequence of options")
        if options:
            labels: set[str] = set()
            for position, option in enumerate(options):
                where = f"questions[{index}].options[{position}]"
                if type(option) is not AskUserQuestionOption:
                    raise _bad(
                        where, f"expected AskUserQuestionOption, got {type(option).__name__}"
                    )
                label = option.label
                _text(label, f"{where}.label")
                if label in labels:
                    raise _bad(f"{where}.label", f"duplicate label {label!r}")
                labels.add(label)
                if option.description is not None:
                    _optional_text(option.description, f"{where}.description")
                if option.preview is not None:
                    _optional_text(option.preview, f"{where}.preview")
        elif item.multi_select:
            raise _bad(
                f"questions[{index}].multi_select",
                "a question without options cannot be multi-select",
            )


def validate_answer(request: AskUserQuestionRequest, result: object) -> AskUserQuestionAnswer:
    """Return the provider's answer as checked against ``request``, or raise ``INVALID_ANSWER``.

    Like requests: a fast pass that builds no strings, then a slow one that says where.
    """
    if type(result) is AskUserQuestionAnswer and _answers_ok(request.questions, result.answers):
        return result
    return _explain_answer(request, result)


def _answers_ok(questions: tuple[AskUserQuestionItem, ...], answers: object) -> bool:
    if type(answers) is not tuple:
        return False
    if not answers:
        return True
    single = len(questions) == 1
    if single and len(answers) != 1:
        return False
    by_id = None if single else {item.id: item for item in questions}
    seen: set[str] = set()
    for answer in answers:
        if type(answer) is not AskUserQuestionAnswerItem:
            return False
        answer_id = answer.id
        if type(answer_id) is not str:
            return False
        if by_id is None:
            question = questions[0]
            if answer_id != question.id:
                return False
        else:
            found = by_id.get(answer_id)
            if found is None or answer_id in seen:
                return False
            seen.add(answer_id)
            question = found
        selected = answer.selected
        custom = answer.custom
        if type(selected) is not tuple:
            return False
        notes = answer.notes
        if notes is not None and (type(notes) is not str or not notes.strip() or not selected):
            return False
        if custom is not None:
            if type(custom) is not str or not custom.strip() or selected:
                return False
            continue
        count = len(selected)
        if count == 0:
            continue
        if count == 1:
            label = selected[0]
            for option in question.options:
                if option.label == label:
                    break
            else:
                return False
            continue
        if not question.multi_select:
            return False
        remaining = [option.label for option in question.options]
        for label in selected:
            if label not in remaining:  # not offered, or selected twice
                return False
            remaining.remove(label)
    return True


def _explain_answer(request: AskUserQuestionRequest, result: object) -> AskUserQuestionAnswer:
    """The slow pass over an answer: parse a wire dict, or find the first broken rule."""
    if type(result) is not AskUserQuestionAnswer:
        if isinstance(result, Mapping):
            try:
                result = AskUserQuestionAnswer.from_dict(result)
            except UserInteractionError as exc:
                raise UserInteractionError(
                    f"provider answer: {exc.message}", INVALID_ANSWER
                ) from None
        elif not isinstance(result, AskUserQuestionAnswer):
            raise UserInteractionError(
                f"provider answer: expected AskUserQuestionAnswer, got {type(result).__name__}",
                INVALID_ANSWER,
            )
    answers = result.answers
    if type(answers) is not tuple:
        raise _bad("answers", "expected a sequence", INVALID_ANSWER)
    questions = request.questions
    if len(questions) == 1 and len(answers) == 1:  # the common case, without a dict
        only = questions[0]
        by_id = {only.id: only}
    else:
        by_id = {item.id: item for item in questions}
    seen: set[str] = set()
    for index, answer in enumerate(answers):
        if type(answer) is not AskUserQuestionAnswerItem:
            raise _bad(
                f"answers[{index}]",
                f"expected AskUserQuestionAnswerItem, got {type(answer).__name__}",
                INVALID_ANSWER,
            )
        answer_id = answer.id
        question = by_id.get(answer_id) if isinstance(answer_id, str) else None
        if question is None:
            raise _bad(f"answers[{index}].id", f"{answer_id!r} was not asked", INVALID_ANSWER)
        if answer_id in seen:
            raise _bad(f"answers[{index}].id", f"{answer_id!r} is answered twice", INVALID_ANSWER)
        seen.add(answer_id)
        selected = answer.selected
        custom = answer.custom
        if custom is not None:
            if not isinstance(custom, str):
                raise _bad(f"answers[{index}].custom", "expected a string", INVALID_ANSWER)
            if not custom.strip():
                raise _bad(f"answers[{index}].custom", "must not be blank", INVALID_ANSWER)
        if type(selected) is not tuple:
            raise _bad(f"answers[{index}].selected", "expected a sequence", INVALID_ANSWER)
        notes = answer.notes
        if notes is not None:
            if not isinstance(notes, str):
                raise _bad(f"answers[{index}].notes", "expected a string", INVALID_ANSWER)
            if not notes.strip():
                raise _bad(f"answers[{index}].notes", "must not be blank", INVALID_ANSWER)
            if not selected:
                raise _bad(
                    f"answers[{index}].notes",
                    "notes go beside a selection, but nothing is selected",
                    INVALID_ANSWER,
                )
        if not selected:
            continue
        if custom is not None:
            raise _bad(
                f"answers[{index}]",
                "custom text and selected labels are exclusive",
                INVALID_ANSWER,
            )
        options = question.options
        if not options:
            raise _bad(
                f"answers[{index}].selected",
                f"question {answer_id!r} has no options to select",
                INVALID_ANSWER,
            )
        if len(selected) > 1 and not question.multi_select:
            raise _bad(
                f"answers[{index}].selected",
                f"question {answer_id!r} is single-select but {len(selected)} labels were selected",
                INVALID_ANSWER,
            )
        offered = [option.label for option in options]
        for position, label in enumerate(selected):
            if label not in offered:
                raise _bad(
                    f"answers[{index}].selected[{position}]",
                    f"{label!r} was not offered for question {answer_id!r}",
                    INVALID_ANSWER,
                )
            if label in selected[:position]:
                raise _bad(
                    f"answers[{index}].selected[{position}]",
                    f"{label!r} is selected twice",
                    INVALID_ANSWER,
                )
    return result
