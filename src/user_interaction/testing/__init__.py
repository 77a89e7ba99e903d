"""Testing kit: answer questions without a human, and prove a provider keeps the rules of
the documentation's Semantics page.

* :class:`ScriptedProvider` answers from rules (by question id, by a pattern on the
  question text, or a default) and records every request it saw.
* :class:`UserInteractionFixture` is a fresh context with a ``ScriptedProvider`` active;
  the pytest plugin (``user_interaction.testing.pytest_plugin``) yields one as the
  ``user_interaction`` fixture and scripts it from ``@pytest.mark.answers(...)``.
* :func:`wire_question`, :func:`wire_request`, :func:`sample_request` and
  :func:`first_choice` build the requests and answers a test needs.
* :mod:`user_interaction.testing.driver` is a small program asking through a provider,
  for tests that drive a UI from outside, as a child behind pipes or a pseudo-terminal.
* :mod:`user_interaction.testing.conformance` is the provider conformance suite (it needs
  pytest; this package itself does not).
"""

from __future__ import annotations

from ._fixture import UserInteractionFixture
from ._requests import first_choice, sample_request, wire_question, wire_request
from ._scripted import ScriptedProvider
from ._specs import (
    FIRST_OPTION,
    OMIT,
    SILENT,
    SKIP,
    UNANSWERED_QUESTION,
    AnswerSequence,
    AnswerSpec,
    Custom,
    Reject,
    WithNotes,
    custom,
    reject,
    sequence,
    with_notes,
)

__all__ = [
    "FIRST_OPTION",
    "OMIT",
    "SILENT",
    "SKIP",
    "UNANSWERED_QUESTION",
    "AnswerSequence",
    "AnswerSpec",
    "Custom",
    "Reject",
    "ScriptedProvider",
    "UserInteractionFixture",
    "WithNotes",
    "custom",
    "first_choice",
    "reject",
    "sample_request",
    "sequence",
    "wire_question",
    "wire_request",
    "with_notes",
]
