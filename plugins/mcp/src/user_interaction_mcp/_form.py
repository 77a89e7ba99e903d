"""One MCP form per request: the ``requestedSchema`` it sends and how a reply maps back.

Question *i* is the property ``q{i}`` (positions, not ids: a model's id may be any string,
and positions never collide). Its title is ``[header] question`` and its description the
detail. A single-select question is a titled string enum (``oneOf`` of ``const``/``title``),
a multi-select one a titled array enum (``items.anyOf``); MCP options carry no
description, so an option's description joins its title (``"pnpm — fast, strict"``) while
the ``const`` stays the bare label, which is also the value returned. A question with
options gets a second string property ``q{i}_other`` for the human's own answer; a question
without options is a plain string. Nothing is ``required``: leaving a field empty skips
the question.

Option previews are Markdown, which forms cannot show: each becomes plain text in the
question's description (``label: preview``), so a client shows it under the question.
Forms have no place for notes beside a choice, so answers never carry ``notes``.

A reply is checked strictly before it becomes an answer: the SDK does not validate the
content against a raw schema, so a value of the wrong kind or a field the form did not
contain is ``INVALID_ANSWER``. Labels that were not offered are left to the manager's own
answer check, which rejects them with the same code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    UserInteractionError,
)
from user_interaction.toolkit import describe_value, plain_preview, quoted

__all__ = ["PREVIEW_LIMIT", "FormPlan"]

#: The most characters of one option's preview put into a question's description.
PREVIEW_LIMIT: Final = 1000
_OTHER_TITLE: Final = "Other (your own answer)"
_OTHER_DESCRIPTION: Final = "Replaces the choice above."


class FormPlan:
    """The form for one request (``message``, ``schema``, ``digest``) and its reading."""

    __slots__ = ("_digest", "_fields", "message", "questions", "schema")

    def __init__(self, questions: Sequence[AskUserQuestionItem]) -> None:
        self.questions = tuple(questions)
        properties: dict[str, dict[str, Any]] = {}
        for index, item in enumerate(self.questions):
            properties[f"q{index}"] = _choice_property(item)
            if item.options:
                properties[f"q{index}_other"] = {
                    "type": "string",
                    "title": _OTHER_TITLE,
                    "description": _OTHER_DESCRIPTION,
                }
        #: The ``requestedSchema``: a flat object of optional primitive properties.
        self.schema: dict[str, Any] = {"type": "object", "properties": properties}
        self._fields = frozenset(properties)
        #: The text shown above the form.
        self.message = (
            _title(self.questions[0])
            if len(self.questions) == 1
            else f"The agent has {len(self.questions)} questions for you."
        )
        self._digest: str | None = None

    @property
    def digest(self) -> str:
        """What identifies this form in a sealed ``request_state``: a changed question (or
        option, or detail) is a different form, so it never takes an old answer."""
        if self._digest is None:
            rendered = json.dumps(
                {"message": self.message, "schema": self.schema},
                sort_keys=True,
                separators=(",", ":"),
            )
            digest = hashlib.sha256(rendered.encode("utf-8", "surrogatepass")).hexdigest()
            self._digest = digest[:32]
        return self._digest

    def read(self, action: object, content: object) -> AskUserQuestionAnswer:
        """The answer in an ``ElicitResult``'s ``action`` and ``content``.

        ``decline`` raises ``ASK_DECLINED``, ``cancel`` ``ASK_CANCELLED``; content that
        does not fit the form raises ``INVALID_ANSWER``.
        """
        if action == "decline":
            raise UserInteractionError(
                "The user declined to answer in the MCP client.", ASK_DECLINED
            )
        if action == "cancel":
            raise UserInteractionError("The user dismissed the MCP client's form.", ASK_CANCELLED)
        if action != "accept":
            raise UserInteractionError(
                f"The MCP client answered the form with the unknown action {action!r}.",
                PROVIDER_FAILED,
            )
        if content is None:  # fail closed: "accept" without content says nothing
            raise _invalid("The MCP client accepted the form without any content.")
        if not isinstance(content, Mapping):
            raise _invalid(
                f"The MCP client's form content is {describe_value(content)}, not an object."
            )
        unknown = sorted(str(name) for name in content if name not in self._fields)
        if unknown:
            raise _invalid(
                f"The MCP client answered the field(s) {quoted(unknown)}, which the form "
                f"did not contain (its fields: {quoted(sorted(self._fields))})."
            )
        return AskUserQuestionAnswer(
            [_read(index, item, content) for index, item in enumerate(self.questions)]
        )


def _title(item: AskUserQuestionItem) -> str:
    return f"[{item.header}] {item.question}" if item.header else item.question


def _choice_property(item: AskUserQuestionItem) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": "string", "title": _title(item)}
    description = _description(item)
    if description:
        prop["description"] = description
    if not item.options:
        return prop
    options = [{"const": option.label, "title": _option_title(option)} for option in item.options]
    if item.multi_select:
        prop["type"] = "array"
        prop["items"] = {"anyOf": options}
    else:
        prop["oneOf"] = options
    return prop


def _option_title(option: AskUserQuestionOption) -> str:
    description = " ".join((option.description or "").split())
    return f"{option.label} — {description}" if description else option.label


def _description(item: AskUserQuestionItem) -> str | None:
    """The detail, then each option's preview as plain text (``label: preview``)."""
    parts = [item.detail] if item.detail else []
    for option in item.options:
        if option.preview and option.preview.strip():
            preview = plain_preview(option.preview, PREVIEW_LIMIT)
            parts.append(
                f"{option.label}:\n{preview}" if "\n" in preview else f"{option.label}: {preview}"
            )
    return "\n\n".join(parts) or None


def _read(
    index: int, item: AskUserQuestionItem, content: Mapping[Any, object]
) -> AskUserQuestionAnswerItem:
    choice, other = f"q{index}", f"q{index}_other"
    if item.options:
        custom = _text(item, other, content.get(other))
        if custom is not None:  # the human's own answer replaces the choice
            return AskUserQuestionAnswerItem(item.id, custom=custom)
    value = content.get(choice)
    if not item.options:
        return AskUserQuestionAnswerItem(item.id, custom=_text(item, choice, value))
    if item.multi_select:
        return AskUserQuestionAnswerItem(item.id, selected=_labels(item, choice, value))
    if value is None or value == "":
        return AskUserQuestionAnswerItem(item.id)
    if not isinstance(value, str):
        raise _invalid(f"{_where(item, choice)} must be one label, got {describe_value(value)}.")
    return AskUserQuestionAnswerItem(item.id, selected=(value,))


def _labels(item: AskUserQuestionItem, name: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _invalid(
            f"{_where(item, name)} must be an array of labels, got {describe_value(value)}."
        )
    for entry in value:
        if not isinstance(entry, str):
            raise _invalid(
                f"{_where(item, name)} must contain only labels, got {describe_value(entry)}."
            )
    return tuple(value)


def _text(item: AskUserQuestionItem, name: str, value: object) -> str | None:
    """Typed text; blank text counts as none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _invalid(f"{_where(item, name)} must be text, got {describe_value(value)}.")
    return value.strip() or None


def _where(item: AskUserQuestionItem, name: str) -> str:
    return f"The MCP client's answer to question {item.id!r} (field {name!r})"


def _invalid(message: str) -> UserInteractionError:
    return UserInteractionError(message, INVALID_ANSWER)
