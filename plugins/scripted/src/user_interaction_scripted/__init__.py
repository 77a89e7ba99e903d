"""user-interaction-scripted: the ``scripted`` provider of user-interaction.

Answers every question from a JSON answers file named by ``USER_INTERACTION_ANSWERS``,
for CI runs and evaluations of agents; fails closed on anything the file does not answer.
Select it with ``USER_INTERACTION_PROVIDER=scripted`` or ``UserInteraction().use("scripted")``,
or register ``AnswersFileProvider(path)``.
"""

from __future__ import annotations

from user_interaction.extensions import INVALID_ANSWERS_FILE, UNANSWERED_QUESTION

from ._provider import ANSWERS_ENV, AnswersFileProvider

__version__ = "0.1.0"

__all__ = [
    "ANSWERS_ENV",
    "INVALID_ANSWERS_FILE",
    "UNANSWERED_QUESTION",
    "AnswersFileProvider",
    "__version__",
]
