"""The fallback for clients without form elicitation: ``session/request_permission``.

A permission request offers buttons, nothing else, so it serves single-select questions
only: one request per question, one permission option per answer option. The question,
its header and detail, and the option descriptions and previews travel as the tool
call's title and text content, which clients show above the buttons.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final

from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
)

from user_interaction import (
    ASK_CANCELLED,
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    UserInteractionError,
)

from ._form import plain_preview

__all__ = ["PermissionPlan", "check_permission_fallback"]

_OPTION_PREFIX: Final = "option-"


def check_permission_fallback(
    questions: Sequence[AskUserQuestionItem],
    lack: str = "did not advertise form elicitation (clientCapabilities.elicitation.form)",
) -> None:
    """Raise ``PROVIDER_FAILED`` saying what the client lacks (``lack``) if a question of
    the request cannot be asked as a permission request (free text, multi-select)."""
    problems = [
        f"{question.id!r} is {'multi-select' if question.multi_select else 'free text'}"
        for question in questions
        if question.multi_select or not question.options
    ]
    if problems:
        raise UserInteractionError(
            f"The ACP client {lack}, and session/request_permission can ask single-select "
            "questions only: question " + ", question ".join(problems) + ".",
            PROVIDER_FAILED,
        )


def _previewed(option: AskUserQuestionOption) -> bool:
    return bool(option.preview and option.preview.strip())


class PermissionPlan:
    """The permission request for one single-select question, and its outcome."""

    __slots__ = ("item", "options", "tool_call")

    def __init__(self, item: AskUserQuestionItem) -> None:
        self.item = item
        self.options = [
            PermissionOption(
                option_id=f"{_OPTION_PREFIX}{index}", name=option.label, kind="allow_once"
            )
            for index, option in enumerate(item.options, 1)
        ]
        lines = [item.question]
        if item.detail:
            lines += ["", item.detail]
        described = [option for option in item.options if option.description or _previewed(option)]
        if described:
            lines.append("")
        for option in described:
            lines.append(
                f"- {option.label}" + (f": {option.description}" if option.description else "")
            )
            if _previewed(option):
                lines += ["", plain_preview(option.preview or ""), ""]
        self.tool_call = ToolCallUpdate(
            tool_call_id=f"user-question-{uuid.uuid4().hex}",
            title=f"{item.header}: {item.question}" if item.header else item.question,
            kind="other",
            status="pending",
            content=[
                ContentToolCallContent(
                    type="content",
                    content=TextContentBlock(type="text", text="\n".join(lines).rstrip("\n")),
                )
            ],
        )

    def read(self, response: RequestPermissionResponse) -> AskUserQuestionAnswerItem:
        """The answer in ``response``; a ``cancelled`` outcome raises ``ASK_CANCELLED``."""
        outcome = response.outcome
        if isinstance(outcome, DeniedOutcome):
            raise UserInteractionError(
                "The user cancelled the permission prompt in the ACP client.", ASK_CANCELLED
            )
        if not isinstance(outcome, AllowedOutcome):  # pragma: no cover - the SDK checks this
            raise UserInteractionError(
                f"The ACP client answered with an unknown outcome: {outcome!r}", PROVIDER_FAILED
            )
        for option, offered in zip(self.item.options, self.options):
            if offered.option_id == outcome.option_id:
                return AskUserQuestionAnswerItem(self.item.id, selected=(option.label,))
        raise UserInteractionError(
            f"The ACP client's answer to question {self.item.id!r} is the option id "
            f"{outcome.option_id!r}, which was not offered (offered: "
            + ", ".join(repr(option.option_id) for option in self.options)
            + ").",
            INVALID_ANSWER,
        )
