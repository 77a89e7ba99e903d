"""Any text a provider puts in an answer either passes the answer rules or is
``INVALID_ANSWER``; and every answer that passes can be written anywhere an answer goes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from user_interaction import (
    INVALID_ANSWER,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
    check_answer,
    hookimpl,
)
from user_interaction.extensions import AuditLog

REQUEST = AskUserQuestionRequest(
    [
        AskUserQuestionItem(
            "pkg", "Which?", options=[AskUserQuestionOption("npm"), AskUserQuestionOption("pnpm")]
        )
    ]
)
#: Every code point, lone surrogates and NUL included.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)


class Returns:
    """A provider that returns whatever it was given, as its answer."""

    def __init__(self) -> None:
        self.answer: Any = None

    @hookimpl
    def ask(self, request: AskUserQuestionRequest) -> Any:
        return self.answer


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(custom=ANY_TEXT, notes=st.one_of(st.none(), ANY_TEXT))
def test_any_text_in_an_answer_passes_the_rules_or_is_invalid_answer(
    tmp_path_factory: Any, custom: str, notes: str | None
) -> None:
    provider = Returns()
    item: dict[str, Any] = {"id": "pkg", "selected": [], "custom": custom}
    if notes is not None:
        item["notes"] = notes
    provider.answer = {"answers": [item]}
    audit = Path(tmp_path_factory.mktemp("audit")) / "audit.jsonl"
    problems = check_answer(REQUEST, provider.answer)
    with UserInteraction() as ui:
        ui.register_provider(provider)
        ui.add_extension(AuditLog(audit))
        if problems:  # the public rules say what the manager does
            with pytest.raises(UserInteractionError) as refused:
                ui.ask_sync(REQUEST)
            assert refused.value.code == INVALID_ANSWER
            return
        answer = ui.ask_sync(REQUEST)
    assert isinstance(answer, AskUserQuestionAnswer)
    wire = json.dumps(answer.to_dict(), ensure_ascii=False).encode("utf-8")  # strict UTF-8
    assert AskUserQuestionAnswer.from_dict(json.loads(wire)) == answer
    (line,) = audit.read_text(encoding="utf-8").removesuffix("\n").split("\n")
    assert json.loads(line)["answer"] == answer.to_dict()
