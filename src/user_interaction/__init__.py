"""user-interaction: ask a human, through exactly one pluggable provider, and get
validated answers back.

Build an :class:`AskUserQuestionRequest`, activate a provider on a
:class:`UserInteraction` (``register_provider()`` or ``use("stdio")``), then
``await ui.ask(request)`` or ``ui.ask_sync(request)``. Every failure is a
:class:`UserInteractionError` whose ``code`` is one of the constants exported here.
"""

from __future__ import annotations

from ._abort import AbortController, AbortSignal
from ._discovery import ENTRY_POINT_GROUP, PROVIDER_ENV, ProviderInfo
from ._errors import (
    AMBIGUOUS_PROVIDER,
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    DUPLICATE_PROVIDER,
    EMPTY_QUESTIONS,
    ERROR_CODES,
    INVALID_ANSWER,
    INVALID_REQUEST,
    NO_PROVIDER,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    RELOAD_FAILED,
    HarnessError,
    UserInteractionError,
)
from ._hooks import AskSpec, Provider, hookimpl, hookspec
from ._manager import Disposer, UserInteraction
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

__version__ = "0.1.0"

__all__ = [
    "AMBIGUOUS_PROVIDER",
    "ASK_ABORTED",
    "ASK_CANCELLED",
    "ASK_DECLINED",
    "ASK_TIMEOUT",
    "DUPLICATE_PROVIDER",
    "EMPTY_QUESTIONS",
    "ENTRY_POINT_GROUP",
    "ERROR_CODES",
    "INVALID_ANSWER",
    "INVALID_REQUEST",
    "NO_PROVIDER",
    "PROVIDER_DISPOSED",
    "PROVIDER_ENV",
    "PROVIDER_FAILED",
    "PROVIDER_LOAD_FAILED",
    "PROVIDER_NOT_FOUND",
    "RELOAD_FAILED",
    "AbortController",
    "AbortSignal",
    "AskSpec",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "Disposer",
    "HarnessError",
    "Provider",
    "ProviderInfo",
    "UserInteraction",
    "UserInteractionError",
    "__version__",
    "hookimpl",
    "hookspec",
]
