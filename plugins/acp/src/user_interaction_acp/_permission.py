"""The fallback for clients without form elicitation: ``session/request_permission``.

A permission request offers buttons, nothing else: a single-select question is one
request with one permission option per answer option (an approval's Allow, Always allow,
Deny and Always deny as the kinds ``allow_once``, ``allow_always``, ``reject_once`` and
``reject_always``, the others ``allow_once``); a multi-select question is one
request per answer option, "Include" or "Skip". Free text cannot be asked this way. The
question, its header and detail, and the option descriptions and previews travel as the
tool call's title and text content, which clients show above the buttons.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final, Literal

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
from user_interaction.toolkit import plain_preview

from ._form import PREVIEW_LIMIT

__all__ = ["InclusionPlan", "PermissionPlan", "check_permission_fallback", "multi_select_answer"]

_OPTION_PREFIX: Final = "option-"
#: A permission option's kind.
Kind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


def check_permission_fallback(
    questions: Sequence[AskUserQuestionItem],
    lack: str = "did not advertise form elicitation (clientCapabilities.elicitation.form)",
) -> None:
    """Raise ``PROVIDER_FAILED`` saying what the client lacks (``lack``) if a question of
    the request cannot be asked as permission requests (free text)."""
    problems = [f"{question.id!r} is free text" for question in questions if not question.options]
    if problems:
        raise UserInteractionError(
            f"The ACP client {lack}, and session/request_permission can ask questions with "
            "options only: question " + ", question ".join(problems) + ".",
            PROVIDER_FAILED,
        )


#: The permission kinds of an approval's choices (``ui.approve``): the client can show
#: them as what they are, and offer to remember "always".
_APPROVAL_KINDS: Final[dict[str, Kind]] = {
    "Allow": "allow_once",
    "Always allow": "allow_always",
    "Deny": "reject_once",
    "Always deny": "reject_always",
}


def _approval_kinds(item: AskUserQuestionItem) -> dict[str, Kind]:
    """Each option's permission kind when ``item`` is an approval (one question
    ``approve`` offering those choices), else none."""
    labels = {option.label for option in item.options}
    if item.id != "approve" or item.multi_select or not labels <= _APPROVAL_KINDS.keys():
        return {}
    return _APPROVAL_KINDS


def _previewed(option: AskUserQuestionOption) -> bool:
    return bool(option.preview and option.preview.strip())


class PermissionPlan:
    """The permission request for one single-select question, and its outcome."""

    __slots__ = ("item", "options", "tool_call")

    def __init__(self, item: AskUserQuestionItem) -> None:
        self.item = item
        kinds = _approval_kinds(item)
        self.options = [
            PermissionOption(
                option_id=f"{_OPTION_PREFIX}{index}",
                name=option.label,
                kind=kinds.get(option.label, "allow_once"),
            )
            for index, option in enumerate(item.options, 1)
        ]
        lines = _question_lines(item)
        described = [option for option in item.options if option.description or _previewed(option)]
        if described:
            lines.append("")
        for option in described:
            lines += _option_lines(option, f"- {option.label}")
        self.tool_call = _tool_call(item, lines)

    def read(self, response: RequestPermissionResponse) -> AskUserQuestionAnswerItem:
        """The answer in ``response``; a ``cancelled`` outcome raises ``ASK_CANCELLED``."""
        chosen = _chosen(self.item, self.options, response)
        for option, offered in zip(self.item.options, self.options):
            if offered.option_id == chosen:
                return AskUserQuestionAnswerItem(self.item.id, selected=(option.label,))
        raise AssertionError("unreachable: _chosen() checks the id")  # pragma: no cover


class InclusionPlan:
    """The permission request for one option of a multi-select question: include or skip
    it. A question with ``n`` options is ``n`` such requests, asked in order."""

    __slots__ = ("item", "option", "options", "tool_call")

    def __init__(self, item: AskUserQuestionItem, position: int) -> None:
        self.item = item
        self.option = option = item.options[position]
        self.options = [
            PermissionOption(option_id=_INCLUDE, name="Include", kind="allow_once"),
            PermissionOption(option_id=_SKIP, name="Skip", kind="reject_once"),
        ]
        count = len(item.options)
        lines = _question_lines(item)
        lines += ["", *_option_lines(option, f"Option {position + 1} of {count}: {option.label}")]
        self.tool_call = _tool_call(item, lines, f" ({position + 1}/{count})")

    def read(self, response: RequestPermissionResponse) -> bool:
        """Whether the user included the option; ``cancelled`` raises ``ASK_CANCELLED``."""
        return _chosen(self.item, self.options, response) == _INCLUDE


def multi_select_answer(
    item: AskUserQuestionItem, included: Sequence[bool]
) -> AskUserQuestionAnswerItem:
    """The answer to ``item`` from one include/skip decision per option (none included:
    the question is skipped)."""
    return AskUserQuestionAnswerItem(
        item.id,
        selected=tuple(option.label for option, chosen in zip(item.options, included) if chosen),
    )


_INCLUDE: Final = "include"
_SKIP: Final = "skip"


def _question_lines(item: AskUserQuestionItem) -> list[str]:
    return [item.question, "", item.detail] if item.detail else [item.question]


def _option_lines(option: AskUserQuestionOption, head: str) -> list[str]:
    lines = [head + (f": {option.description}" if option.description else "")]
    if _previewed(option):
        lines += ["", plain_preview(option.preview or "", PREVIEW_LIMIT), ""]
    return lines


def _tool_call(item: AskUserQuestionItem, lines: list[str], suffix: str = "") -> ToolCallUpdate:
    title = f"{item.header}: {item.question}" if item.header else item.question
    return ToolCallUpdate(
        tool_call_id=f"user-question-{uuid.uuid4().hex}",
        title=title + suffix,
        kind="other",
        status="pending",
        content=[
            ContentToolCallContent(
                type="content",
                content=TextContentBlock(type="text", text="\n".join(lines).rstrip("\n")),
            )
        ],
    )


def _chosen(
    item: AskUserQuestionItem,
    options: Sequence[PermissionOption],
    response: RequestPermissionResponse,
) -> str:
    """The option id the user picked, checked against those offered."""
    outcome = response.outcome
    if isinstance(outcome, DeniedOutcome):
        raise UserInteractionError(
            "The user cancelled the permission prompt in the ACP client.", ASK_CANCELLED
        )
    if not isinstance(outcome, AllowedOutcome):  # pragma: no cover - the SDK checks this
        raise UserInteractionError(
            f"The ACP client answered with an unknown outcome: {outcome!r}", PROVIDER_FAILED
        )
    if any(offered.option_id == outcome.option_id for offered in options):
        return outcome.option_id
    raise UserInteractionError(
        f"The ACP client's answer to question {item.id!r} is the option id "
        f"{outcome.option_id!r}, which was not offered (offered: "
        + ", ".join(repr(option.option_id) for option in options)
        + ").",
        INVALID_ANSWER,
    )
