from __future__ import annotations

import pytest

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
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


@pytest.fixture
def ui():
    with UserInteraction() as context:
        yield context
