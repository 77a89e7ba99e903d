"""user-interaction: ask a human, through exactly one pluggable provider, and get
validated answers back.

Build an :class:`AskUserQuestionRequest`, activate a provider on a
:class:`UserInteraction` (``register_provider()`` or ``use("stdio")``), then
``await ui.ask(request)`` or ``ui.ask_sync(request)`` — or ask one question in one line
with ``ui.confirm()``, ``select()``, ``checkbox()`` or ``text()`` (each with a ``_sync``
twin), and guard a function with :func:`require_approval`. Extensions wrap and observe
every ask of a context (``ui.add_extension()``; built-ins in
:mod:`user_interaction.extensions`). Every failure is a :class:`UserInteractionError`
whose ``code`` is one of the constants exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._abort import AbortController, AbortSignal
from ._errors import (
    AMBIGUOUS_PROVIDER,
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    ASK_TIMEOUT,
    DUPLICATE_PROVIDER,
    EMPTY_QUESTIONS,
    ERROR_CODES,
    EXTENSION_FAILED,
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
from ._hooks import AskSpec, ExtensionSpec, Provider, hookimpl, hookspec

if TYPE_CHECKING:
    from ._approval import Approval
    from ._discovery import ENTRY_POINT_GROUP, PROVIDER_ENV, ProviderInfo, find_provider
    from ._manager import UserInteraction
    from ._model import (
        AskUserQuestionAnswer,
        AskUserQuestionAnswerItem,
        AskUserQuestionItem,
        AskUserQuestionOption,
        AskUserQuestionRequest,
    )
    from ._registration import Disposer
    from ._require_approval import require_approval
    from ._state import STATE_DIR_ENV, state_dir
    from ._validation import Problem, check_answer

# The data model, discovery and the manager are imported on first use: building their
# attrs classes is most of what importing the package would cost.
_LAZY = {
    "ENTRY_POINT_GROUP": "_discovery",
    "PROVIDER_ENV": "_discovery",
    "ProviderInfo": "_discovery",
    "find_provider": "_discovery",
    "UserInteraction": "_manager",
    "Disposer": "_registration",
    "AskUserQuestionAnswer": "_model",
    "AskUserQuestionAnswerItem": "_model",
    "AskUserQuestionItem": "_model",
    "AskUserQuestionOption": "_model",
    "AskUserQuestionRequest": "_model",
    "require_approval": "_require_approval",
    "Approval": "_approval",
    "STATE_DIR_ENV": "_state",
    "state_dir": "_state",
    "Problem": "_validation",
    "check_answer": "_validation",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    "EXTENSION_FAILED",
    "INVALID_ANSWER",
    "INVALID_REQUEST",
    "NO_PROVIDER",
    "PROVIDER_DISPOSED",
    "PROVIDER_ENV",
    "PROVIDER_FAILED",
    "PROVIDER_LOAD_FAILED",
    "PROVIDER_NOT_FOUND",
    "RELOAD_FAILED",
    "STATE_DIR_ENV",
    "AbortController",
    "AbortSignal",
    "Approval",
    "AskSpec",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "Disposer",
    "ExtensionSpec",
    "HarnessError",
    "Problem",
    "Provider",
    "ProviderInfo",
    "UserInteraction",
    "UserInteractionError",
    "__version__",
    "check_answer",
    "find_provider",
    "hookimpl",
    "hookspec",
    "require_approval",
    "state_dir",
]
