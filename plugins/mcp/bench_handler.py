"""Benchmark of the elicitation handler's overhead: a report, never a test.

``python plugins/mcp/bench_handler.py [--rounds N]`` times, side by side on one event loop
with a fast in-process provider:

- ``handler``: ``elicitation_handler(ui)(context, params)`` for a form elicitation (schema
  read, request built, ``ui.ask``, answers converted to typed content), the form seen
  before (the handler remembers the last 32 forms: the usual case, one tool asking the
  same form again) and new every time (a fresh handler per elicitation);
- ``direct``: ``ui.ask`` of the equivalent, already built request (two copies used in
  turn, so the manager's "same request again" shortcut never applies).

The overhead is the difference of the medians (handler - direct); the target is 100 µs per
elicitation. Two forms: the eleven-field profile of the tests (every primitive kind) and
a one-field Yes/No. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from types import SimpleNamespace
from typing import Any

from mcp_types import ElicitRequestFormParams, ElicitResult
from user_interaction_mcp import elicitation_handler

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionRequest,
    UserInteraction,
)

PROFILE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As on your badge."},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "ratio": {"type": "number", "default": 0.5},
        "subscribe": {"type": "boolean", "default": True},
        "email": {"type": "string", "format": "email"},
        "homepage": {"type": "string", "format": "uri"},
        "birthday": {"type": "string", "format": "date"},
        "meeting": {"type": "string", "format": "date-time"},
        "nickname": {"type": "string", "minLength": 2, "maxLength": 8},
        "color": {
            "type": "string",
            "oneOf": [{"const": c, "title": c.title()} for c in ("red", "green", "blue")],
        },
        "tags": {"type": "array", "items": {"enum": ["lint", "test", "docs"]}},
    },
    "required": ["name", "age"],
}
PROFILE_ANSWERS = {
    "name": AskUserQuestionAnswerItem("name", custom="Ada"),
    "age": AskUserQuestionAnswerItem("age", custom="36"),
    "ratio": AskUserQuestionAnswerItem("ratio", custom="0.25"),
    "subscribe": AskUserQuestionAnswerItem("subscribe", ("No",)),
    "email": AskUserQuestionAnswerItem("email", custom="ada@example.org"),
    "homepage": AskUserQuestionAnswerItem("homepage", custom="https://example.org/"),
    "birthday": AskUserQuestionAnswerItem("birthday", custom="1815-12-10"),
    "meeting": AskUserQuestionAnswerItem("meeting", custom="2026-12-01T09:30:00Z"),
    "nickname": AskUserQuestionAnswerItem("nickname", custom="countess"),
    "color": AskUserQuestionAnswerItem("color", ("Green",)),
    "tags": AskUserQuestionAnswerItem("tags", ("lint", "docs")),
}
CONFIRM: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "title": "Deploy now?"}},
    "required": ["ok"],
}
CONFIRM_ANSWERS = {"ok": AskUserQuestionAnswerItem("ok", ("Yes",))}


class FastProvider:
    """Answers every question at once from a table: the provider's own cost is ~nothing."""

    def __init__(self, answers: dict[str, AskUserQuestionAnswerItem]) -> None:
        self._answers = answers

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        return AskUserQuestionAnswer([self._answers[item.id] for item in request.questions])


async def measure(
    schema: dict[str, Any], answers: dict[str, AskUserQuestionAnswerItem], rounds: int
) -> tuple[list[float], list[float], list[float]]:
    context: Any = SimpleNamespace(session=SimpleNamespace(server_info=None))
    params = ElicitRequestFormParams(message="Tell us about yourself.", requested_schema=schema)
    with UserInteraction() as ui:
        ui.register_provider(FastProvider(answers))
        handler = elicitation_handler(ui)
        result = await handler(context, params)
        assert isinstance(result, ElicitResult)
        assert result.action == "accept", result
        # the equivalent request, twice (two handlers build two equal requests)
        requests = [built(ui, schema, params) for _ in range(2)]
        seen: list[float] = []
        new: list[float] = []
        direct: list[float] = []
        clock = time.perf_counter
        for index in range(rounds):
            start = clock()
            await handler(context, params)
            seen.append(clock() - start)
            fresh = elicitation_handler(ui)
            start = clock()
            await fresh(context, params)
            new.append(clock() - start)
            start = clock()
            await ui.ask(requests[index % 2])
            direct.append(clock() - start)
    return seen, new, direct


def built(ui: UserInteraction, schema: dict[str, Any], params: Any) -> AskUserQuestionRequest:
    """The request a new handler builds for ``params`` (read from its form memory)."""
    handler: Any = elicitation_handler(ui)
    _, request = handler._first_round(schema, params.message, None)
    assert request is not None
    return request  # type: ignore[no-any-return]


def report(name: str, seen: list[float], new: list[float], direct: list[float]) -> None:
    d = statistics.median(direct) * 1e6
    print(f"{name}: direct ui.ask {d:.1f} µs (median of {len(direct)})")
    for label, samples in (("form seen before", seen), ("new form", new)):
        h = statistics.median(samples) * 1e6
        print(f"  handler, {label:<17} {h:8.1f} µs   overhead {h - d:7.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3000)
    args = parser.parse_args()
    for name, schema, answers in (
        ("profile (11 fields)", PROFILE, PROFILE_ANSWERS),
        ("confirm (1 boolean)", CONFIRM, CONFIRM_ANSWERS),
    ):
        asyncio.run(measure(schema, answers, 200))  # warm up
        report(name, *asyncio.run(measure(schema, answers, args.rounds)))


if __name__ == "__main__":
    main()
