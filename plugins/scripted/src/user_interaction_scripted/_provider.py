"""The provider: answers every ask from the answers file, failing closed."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Final, Union

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)
from user_interaction.testing import UNANSWERED_QUESTION, ScriptedProvider

from ._file import INVALID_ANSWERS_FILE, parse_answers, read_answers

__all__ = ["ANSWERS_ENV", "AnswersFileProvider"]

#: The environment variable naming the answers file.
ANSWERS_ENV: Final = "USER_INTERACTION_ANSWERS"

PathLike = Union[str, "os.PathLike[str]"]


class AnswersFileProvider:
    """Answers questions from a JSON answers file, for CI runs and agent evaluations.

    ``path`` defaults to the file named by ``USER_INTERACTION_ANSWERS``. The file is read
    and checked when the provider is built — so ``use("scripted")`` fails at once, with
    ``PROVIDER_LOAD_FAILED``, on a missing or malformed file — and read again at every ask,
    so a harness may rewrite it between asks. A question the file does not answer fails
    the ask with ``UNANSWERED_QUESTION`` naming its id; a file that has become unreadable
    or malformed fails it with ``INVALID_ANSWERS_FILE``. Never an empty answer.
    """

    #: The name the manager reports for this provider.
    name: Final = "scripted"
    #: Answers do not wait for a human: concurrent asks are answered concurrently.
    serial: Final = False
    #: Chosen over every terminal or web UI when an answers file is set (SPEC §11).
    priority: Final = 50

    @staticmethod
    def available() -> bool:
        """Only when USER_INTERACTION_ANSWERS names an answers file."""
        return bool(os.environ.get(ANSWERS_ENV, "").strip())

    def __init__(self, path: PathLike | None = None) -> None:
        if path is None:
            path = os.environ.get(ANSWERS_ENV, "")
            if not path.strip():
                raise UserInteractionError(
                    f"{ANSWERS_ENV} is not set: point it at a JSON answers file "
                    '(e.g. {"answers": {"pkg": "pnpm"}}; see the user-interaction-scripted '
                    "README)",
                    INVALID_ANSWERS_FILE,
                )
        #: The answers file.
        self.path = Path(path)
        self._lock = threading.Lock()
        self._text = read_answers(self.path)
        self._script = parse_answers(self._text, source=str(self.path))
        self._built = [self._script]

    def __repr__(self) -> str:
        return f"<AnswersFileProvider {str(self.path)!r}>"

    def _current(self) -> ScriptedProvider:
        """The script of the file as it is now (re-parsed only when its text changed)."""
        text = read_answers(self.path)
        with self._lock:
            if text == self._text:
                return self._script
        script = parse_answers(text, source=str(self.path))
        with self._lock:
            self._text, self._script = text, script
            self._built.append(script)
            return script

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Answer ``request`` from the answers file."""
        try:
            return await self._current().ask(request)
        except UserInteractionError as exc:
            if exc.code != UNANSWERED_QUESTION:
                raise
            raise UserInteractionError(f"{self.path}: {exc.message}", exc.code) from None

    def dispose(self) -> None:
        """End the asks pending now (waiting out a ``delay`` or a ``silent`` answer) with
        ``PROVIDER_DISPOSED``. The provider may be registered again later."""
        with self._lock:
            built, self._built = self._built, [self._script]
        for script in built:
            script.dispose()
