"""Request builders for tests: questions in the wire form, and a sample request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from user_interaction._model import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

__all__ = ["first_choice", "sample_request", "wire_question", "wire_request"]


def wire_question(
    id: str,
    question: str,
    *labels: str,
    header: str | None = None,
    multi: bool = False,
    detail: str | None = None,
    descriptions: Mapping[str, str] | None = None,
    previews: Mapping[str, str] | None = None,
    tool_form: bool = False,
) -> dict[str, Any]:
    """One question as JSON data: an option per label (with its description and preview
    when ``descriptions`` or ``previews`` has one for that label), and only the keys that
    are set. In the wire form (``multiSelect``), or with ``tool_form`` as the model-facing
    tool's arguments (``multi_select``)."""
    data: dict[str, Any] = {"id": id, "question": question}
    if header is not None:
        data["header"] = header
    if labels:
        described, previewed = descriptions or {}, previews or {}
        data["options"] = [
            {
                "label": label,
                **({"description": described[label]} if label in described else {}),
                **({"preview": previewed[label]} if label in previewed else {}),
            }
            for label in labels
        ]
    if multi:
        data["multi_select" if tool_form else "multiSelect"] = True
    if detail is not None:
        data["detail"] = detail
    return data


def wire_request(*questions: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    """A request as JSON data: ``{"questions": [...]}`` and any other ``fields``
    (``key``, ``remember``...). ``AskUserQuestionRequest.from_dict`` reads it."""
    return {"questions": [dict(question) for question in questions], **fields}


def sample_request(*ids: str, multi: bool = False, **fields: Any) -> AskUserQuestionRequest:
    """A request with one question per id (default: one, ``"pkg"``), each ``Question
    <id>?`` with the options ``pnpm`` (described ``fast``) and ``npm``; ``fields`` go to
    the request (``signal=``, ``key=``...)."""
    return AskUserQuestionRequest(
        [
            AskUserQuestionItem(
                id,
                f"Question {id}?",
                options=[AskUserQuestionOption("pnpm", "fast"), AskUserQuestionOption("npm")],
                multi_select=multi,
            )
            for id in (ids or ("pkg",))
        ],
        **fields,
    )


def first_choice(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
    """The answer picking each question's first option (skipping a question without
    options): what a provider under test returns when any valid answer will do."""
    return AskUserQuestionAnswer(
        [
            AskUserQuestionAnswerItem(item.id, [item.options[0].label] if item.options else [])
            for item in request.questions
        ]
    )
