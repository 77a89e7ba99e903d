"""Errors and their stable codes.

Every runtime outcome a caller may want to branch on is a :class:`UserInteractionError`
with one of the string codes below; programming mistakes stay ``TypeError`` /
``RuntimeError``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AMBIGUOUS_PROVIDER",
    "ASK_ABORTED",
    "ASK_CANCELLED",
    "ASK_DECLINED",
    "ASK_TIMEOUT",
    "DUPLICATE_PROVIDER",
    "EMPTY_QUESTIONS",
    "ERROR_CODES",
    "EXTENSION_FAILED",
    "INVALID_ANSWER",
    "INVALID_REQUEST",
    "NO_PROVIDER",
    "PROVIDER_DISPOSED",
    "PROVIDER_FAILED",
    "PROVIDER_LOAD_FAILED",
    "PROVIDER_NOT_FOUND",
    "RELOAD_FAILED",
    "HarnessError",
    "UserInteractionError",
]

EMPTY_QUESTIONS: Final = "EMPTY_QUESTIONS"
INVALID_REQUEST: Final = "INVALID_REQUEST"
NO_PROVIDER: Final = "NO_PROVIDER"
DUPLICATE_PROVIDER: Final = "DUPLICATE_PROVIDER"
ASK_ABORTED: Final = "ASK_ABORTED"
ASK_TIMEOUT: Final = "ASK_TIMEOUT"
ASK_CANCELLED: Final = "ASK_CANCELLED"
ASK_DECLINED: Final = "ASK_DECLINED"
INVALID_ANSWER: Final = "INVALID_ANSWER"
PROVIDER_FAILED: Final = "PROVIDER_FAILED"
PROVIDER_DISPOSED: Final = "PROVIDER_DISPOSED"
PROVIDER_NOT_FOUND: Final = "PROVIDER_NOT_FOUND"
AMBIGUOUS_PROVIDER: Final = "AMBIGUOUS_PROVIDER"
PROVIDER_LOAD_FAILED: Final = "PROVIDER_LOAD_FAILED"
RELOAD_FAILED: Final = "RELOAD_FAILED"
EXTENSION_FAILED: Final = "EXTENSION_FAILED"

#: Every code the core raises, each with a one-line meaning (also used by the docs).
ERROR_CODES: Final[dict[str, str]] = {
    EMPTY_QUESTIONS: "the request has no questions",
    INVALID_REQUEST: "the request breaks a rule of the data model",
    NO_PROVIDER: "ask() with no active provider",
    DUPLICATE_PROVIDER: "registering while another provider is active",
    ASK_ABORTED: "the request's signal was aborted, before or while asking",
    ASK_TIMEOUT: "the timeout given to ask() ran out",
    ASK_CANCELLED: "the human dismissed the question",
    ASK_DECLINED: "the human explicitly refused to answer",
    INVALID_ANSWER: "the provider returned an answer that breaks the data model",
    PROVIDER_FAILED: "the provider raised an unexpected exception",
    PROVIDER_DISPOSED: "the provider was disposed while the ask was pending",
    PROVIDER_NOT_FOUND: "no installed provider has that name",
    AMBIGUOUS_PROVIDER: "two installed distributions offer that provider name",
    PROVIDER_LOAD_FAILED: "a provider's entry point failed to import or construct",
    RELOAD_FAILED: "a reload failed; the previous provider is still active",
    EXTENSION_FAILED: "an extension failed to load, or raised while wrapping an ask",
}


class HarnessError(Exception):
    """The shape of a coded error: a human-readable ``message``, a stable ``code``, a
    ``name`` and :meth:`to_dict`, kept across pickling.

    This library raises only its subclass :class:`UserInteractionError`. ``HarnessError``
    is the base for the agent harness around it: derive the harness's own errors from it
    (``class ToolFailed(HarnessError)``, with codes of its own) and they report to a model
    in the same ``{"name", "code", "message"}`` shape, while ``except HarnessError``
    catches both kinds and ``except UserInteractionError`` only the outcomes of asking.
    """

    message: str
    code: str

    def __init__(self, message: str, code: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        if cause is not None:
            self.__cause__ = cause

    @property
    def name(self) -> str:
        """The class name, as reported to a model (``"UserInteractionError"``)."""
        return type(self).__name__

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{self.name}({self.message!r}, {self.code!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # Keep code (and the keyword-only cause) across pickling, e.g. to a subprocess.
        return (_rebuild, (type(self), self.message, self.code, self.__cause__))

    def to_dict(self) -> dict[str, str]:
        """``{"name", "code", "message"}``: the shape a model-facing tool reports."""
        return {"name": self.name, "code": self.code, "message": self.message}


def _rebuild(
    cls: type[HarnessError], message: str, code: str, cause: BaseException | None
) -> HarnessError:
    return cls(message, code, cause=cause)


class UserInteractionError(HarnessError):
    """The error type of every runtime outcome of asking; branch on ``.code``."""
