"""The rules of a well-formed request (checked before a provider sees it) and of a
well-formed answer (checked before the caller sees it)."""

from __future__ import annotations

from typing import Mapping

from ._errors import EMPTY_QUESTIONS, INVALID_ANSWER, INVALID_REQUEST, UserInteractionError
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

__all__ = ["validate_answer", "validate_request"]


def _bad(where: str, problem: str, code: str = INVALID_REQUEST) -> UserInteractionError:
    return UserInteractionError(f"{where}: {problem}", code)


def _text(value: object, where: str) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise _bad(where, f"expected a string, got {type(value).__name__}")
    if not value.strip():
        raise _bad(where, "must not be blank")


def _optional_text(value: object, where: str) -> None:
    if value is not None and not isinstance(value, str):
        raise _bad(where, f"expected a string or None, got {type(value).__name__}")


def validate_request(request: object) -> None:
    """Raise ``EMPTY_QUESTIONS`` / ``INVALID_REQUEST`` naming the first broken rule."""
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
        elif item.multi_select:
            raise _bad(
                f"questions[{index}].multi_select",
                "a question without options cannot be multi-select",
            )


def validate_answer(request: AskUserQuestionRequest, result: object) -> AskUserQuestionAnswer:
    """Return the provider's answer as checked against ``request``, or raise ``INVALID_ANSWER``."""
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
