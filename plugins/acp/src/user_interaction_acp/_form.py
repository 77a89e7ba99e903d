"""Form elicitation: one ``elicitation/create`` form for a whole request, and its reply.

Each question becomes a field for the choice (a single-select string whose titled options
carry the descriptions, or a multi-select array) plus a free-text field for a custom
answer, and, when the provider offers notes, a free-text field for notes beside the
choice; a question without options is a single free-text field. An option's preview
travels as plain text in its description (form fields have no Markdown). Field names come
from the question's position and an ASCII slug of its id, so they are unique and safe
whatever the id is. The reply is checked against what the form offered before it becomes
an answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Union

from acp.schema import (
    AcceptElicitationResponse,
    CancelElicitationResponse,
    DeclineElicitationResponse,
    ElicitationMultiSelectPropertySchema,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    OtherElicitationResponse,
    TitledMultiSelectItems,
)

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    UserInteractionError,
)
from user_interaction.toolkit import describe_value, option_text, quoted, shorten

__all__ = ["PREVIEW_LIMIT", "FormPlan", "field_names"]

ElicitationReply = Union[
    AcceptElicitationResponse,
    DeclineElicitationResponse,
    CancelElicitationResponse,
    OtherElicitationResponse,
]
FormProperty = Union[ElicitationStringPropertySchema, ElicitationMultiSelectPropertySchema]

_SLUG_LIMIT: Final = 32
_NOT_SLUG: Final = re.compile(r"[^A-Za-z0-9]+")
_QUOTE_LIMIT: Final = 60
#: The most characters of a preview put into an option's description.
PREVIEW_LIMIT: Final = 2000


def field_names(index: int, question_id: str) -> tuple[str, str, str]:
    """The names of question ``index``'s choice, custom-text and notes fields.

    ``q<n>`` (the 1-based position) makes them unique; an ASCII slug of the id, when it has
    one, makes them readable: ``q1_pkg``, ``q1_pkg_custom`` and ``q1_pkg_notes``. Every
    name matches ``q[0-9]+(_[A-Za-z0-9_]*)?``, so a client may use it as an identifier, a
    key or a DOM id. The names of question ``n`` are ``q<n>`` or start with ``q<n>_``
    (never with a further digit), and its three names differ, so no two names of a form
    can be equal, whatever the ids are.
    """
    slug = _NOT_SLUG.sub("_", question_id).strip("_")[:_SLUG_LIMIT].rstrip("_")
    base = f"q{index + 1}_{slug}" if slug else f"q{index + 1}"
    return base, f"{base}_custom", f"{base}_notes"


@dataclass(frozen=True)
class _Question:
    """One question of the form and the names of its fields."""

    item: AskUserQuestionItem
    choice: str  # the option field, or the text field of a question without options
    custom: str | None  # the custom-text field; None for a question without options
    notes: str | None  # the notes field; None without options or when notes are off

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(option.label for option in self.item.options)


class FormPlan:
    """The form for one request, and how its reply maps back to an answer."""

    __slots__ = ("message", "questions", "schema")

    def __init__(self, questions: Sequence[AskUserQuestionItem], *, notes: bool = False) -> None:
        planned = []
        for index, item in enumerate(questions):
            choice, custom, noted = field_names(index, item.id)
            if not item.options:
                planned.append(_Question(item, choice, None, None))
            else:
                planned.append(_Question(item, choice, custom, noted if notes else None))
        self.questions: tuple[_Question, ...] = tuple(planned)
        properties: dict[str, FormProperty] = {}
        for question in self.questions:
            properties.update(_properties(question))
        self.schema = ElicitationSchema(type="object", properties=dict(properties))
        self.message = _message(questions)

    def read(self, reply: ElicitationReply) -> AskUserQuestionAnswer:
        """The answer in ``reply``: decline and cancel raise ``ASK_DECLINED`` and
        ``ASK_CANCELLED``; a value the form did not offer raises ``INVALID_ANSWER``."""
        if isinstance(reply, DeclineElicitationResponse):
            raise UserInteractionError(
                "The user declined to answer in the ACP client.", ASK_DECLINED
            )
        if isinstance(reply, CancelElicitationResponse):
            raise UserInteractionError(
                "The user dismissed the form in the ACP client.", ASK_CANCELLED
            )
        if not isinstance(reply, AcceptElicitationResponse):
            raise UserInteractionError(
                f"The ACP client answered the form with the unknown action {reply.action!r}.",
                PROVIDER_FAILED,
            )
        content: Mapping[str, object] = reply.content or {}
        known = {
            name
            for question in self.questions
            for name in (question.choice, question.custom, question.notes)
        }
        for name in content:
            if name not in known:
                raise _invalid(
                    f"The ACP client answered the field {name!r}, which the form did not contain "
                    f"(its fields: {quoted(sorted(n for n in known if n is not None))})."
                )
        return AskUserQuestionAnswer(
            [_read_question(question, content) for question in self.questions]
        )


def _message(questions: Sequence[AskUserQuestionItem]) -> str:
    if len(questions) == 1:
        return questions[0].question
    return f"The agent has {len(questions)} questions for you."


def _title(item: AskUserQuestionItem) -> str:
    return f"{item.header}: {item.question}" if item.header else item.question


def _properties(question: _Question) -> dict[str, FormProperty]:
    item = question.item
    title, description = _title(item), item.detail
    if question.custom is None:
        return {
            question.choice: ElicitationStringPropertySchema(
                type="string", title=title, description=description
            )
        }
    options = [
        EnumOption(
            const=option.label, title=option.label, description=option_text(option, PREVIEW_LIMIT)
        )
        for option in item.options
    ]
    choice: FormProperty
    if item.multi_select:
        choice = ElicitationMultiSelectPropertySchema(
            type="array",
            title=title,
            description=description,
            items=TitledMultiSelectItems(any_of=options),
        )
    else:
        choice = ElicitationStringPropertySchema(
            type="string", title=title, description=description, one_of=options
        )
    asked = shorten(item.header or item.question, _QUOTE_LIMIT)
    custom = ElicitationStringPropertySchema(
        type="string",
        title="Other answer",
        description=f'Your own answer to "{asked}", used instead of the choice.',
    )
    fields: dict[str, FormProperty] = {question.choice: choice, question.custom: custom}
    if question.notes is not None:
        fields[question.notes] = ElicitationStringPropertySchema(
            type="string",
            title="Notes",
            description=(
                f'Notes beside your choice for "{asked}", '
                "such as a condition or a detail to keep in mind."
            ),
        )
    return fields


def _read_question(question: _Question, content: Mapping[str, object]) -> AskUserQuestionAnswerItem:
    item = question.item
    notes = None
    if question.notes is not None:
        notes = _text(question, question.notes, content.get(question.notes))
    if question.custom is not None:
        custom = _text(question, question.custom, content.get(question.custom))
        if custom is not None:  # custom text overrides a choice; notes stay with it
            return AskUserQuestionAnswerItem(item.id, custom=_joined(custom, notes))
    value = content.get(question.choice)
    if not item.options:
        text = _text(question, question.choice, value)
        return AskUserQuestionAnswerItem(item.id, custom=text)
    selected = _choices(question, value) if item.multi_select else _choice(question, value)
    if not selected:  # notes go beside a selection: alone, they are the human's own answer
        return AskUserQuestionAnswerItem(item.id, custom=notes)
    return AskUserQuestionAnswerItem(item.id, selected=selected, notes=notes)


def _joined(custom: str, notes: str | None) -> str:
    return custom if notes is None else f"{custom}\n\n{notes}"


def _text(question: _Question, name: str, value: object) -> str | None:
    """Text typed into ``name``; blank text counts as none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _invalid(f"{_where(question, name)} must be text, got {describe_value(value)}.")
    return value.strip() or None


def _choice(question: _Question, value: object) -> tuple[str, ...]:
    if value is None or value == "":  # no option picked (labels are never blank)
        return ()
    if not isinstance(value, str):
        raise _invalid(
            f"{_where(question, question.choice)} must be one of the offered labels, "
            f"got {describe_value(value)}."
        )
    _check_offered(question, value)
    return (value,)


def _choices(question: _Question, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _invalid(
            f"{_where(question, question.choice)} must be an array of offered labels, "
            f"got {describe_value(value)}."
        )
    picked: list[str] = []
    for entry in value:
        if not isinstance(entry, str):
            raise _invalid(
                f"{_where(question, question.choice)} must contain only offered labels, "
                f"got {describe_value(entry)}."
            )
        _check_offered(question, entry)
        if entry not in picked:  # a client that repeats a label picked it once
            picked.append(entry)
    return tuple(picked)


def _check_offered(question: _Question, label: str) -> None:
    if label not in question.labels:
        raise _invalid(
            f"{_where(question, question.choice)} is {label!r}, which was not offered "
            f"(offered: {quoted(question.labels)})."
        )


def _where(question: _Question, name: str) -> str:
    return f"The ACP client's answer to question {question.item.id!r} (field {name!r})"


def _invalid(message: str) -> UserInteractionError:
    return UserInteractionError(message, INVALID_ANSWER)
