"""Helpers shared by the core tests (a module of its own: several test folders have a
conftest.py, so importing helpers from "conftest" would be ambiguous)."""

from __future__ import annotations

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)


def make_request(*ids: str, multi: bool = False, **kwargs: object) -> AskUserQuestionRequest:
    """A request with one two-option question per id (default: one question, "pkg")."""
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
        **kwargs,  # type: ignore[arg-type]
    )


def first_choice(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
    return AskUserQuestionAnswer(
        [AskUserQuestionAnswerItem(item.id, [item.options[0].label]) for item in request.questions]
    )
