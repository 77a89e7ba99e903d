"""The model-facing tool: what an agent harness hands to an LLM so the model can ask the human.

A harness advertises the tool (:func:`openai_tool`, :func:`anthropic_tool`, or
:data:`NAME`, :data:`DESCRIPTION` and :data:`PARAMETERS` for any other vendor), and when
the model calls it, passes the call's arguments to :func:`call` and the returned
:class:`ToolResult` back to the model::

    result = await tool.call(ui, tool_call.function.arguments, signal=signal, timeout=300)
    messages.append(result.to_openai_message(tool_call.id))

:func:`call` never raises a :class:`~user_interaction.UserInteractionError`: every outcome
(an answer, a cancelled or timed-out ask, arguments the model got wrong) becomes text the
model can read and act on. Arguments are checked by :func:`parse_arguments`, which reports
every problem at once, each starting with its path in the model's own key names
(``questions[0].options[1].label: must not be blank``), so the model can fix its call
from the message alone.
"""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any, Final, Mapping

import attrs

from ._errors import INVALID_REQUEST, UserInteractionError
from ._json import loads
from ._model import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)
from ._validation import text_problem
from .toolkit import describe_value

if TYPE_CHECKING:
    from ._abort import AbortSignal
    from ._manager import UserInteraction

__all__ = [
    "DESCRIPTION",
    "NAME",
    "PARAMETERS",
    "ToolLimits",
    "ToolResult",
    "anthropic_tool",
    "call",
    "openai_tool",
    "parameters",
    "parse_arguments",
    "render_answer",
]

#: The tool's name, as the model calls it.
NAME: Final = "ask_user_question"

#: What the model reads about the tool: when to ask, how answers come back, how to
#: recommend an option.
DESCRIPTION: Final = (
    "Ask the user one or more questions and wait for the answers. Use it when you need "
    "the user's confirmation before acting, when the user should choose between "
    "alternatives, or when information you need is missing and you cannot find or infer "
    "it yourself. Ask related questions together in one call.\n"
    "\n"
    "Give every question a short unique `id`; the answers echo it back, as JSON like "
    '{"answers":[{"id":"pkg","selected":["pnpm"]}]}. To offer choices, list `options`, '
    "each with a short `label` and an optional `description`; the chosen labels come back "
    "in `selected`. Set `multi_select` to true to let the user choose several options. A "
    "question without `options` asks for free text. The user can always answer in their "
    "own words instead: then `selected` is empty and their text is in `custom`. An answer "
    "with neither means the user skipped the question, and a question may be missing from "
    "the answers. Beside a selection the user may add `notes` (for example a condition such "
    'as "but pin the version"): treat them as part of the answer. `header` is an optional '
    'short tag shown with the question, such as "Confirm" or "Auth method".\n'
    "\n"
    "An option may carry a `preview`: Markdown shown with it, such as a code snippet, a "
    "mockup or a config example. Add previews only when the user must compare concrete "
    "artifacts to choose; plain labels suit everything else.\n"
    "\n"
    'If you recommend an option, list it first and append " (Recommended)" to its label.'
)

_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
_ROOT_KEYS: Final = ("questions",)
_QUESTION_KEYS: Final = ("id", "question", "header", "options", "multi_select")
_OPTION_KEYS: Final = ("label", "description", "preview")
_MOST_PROBLEMS: Final = 10  # reported in one message; the rest are counted
_LONGEST_ECHO: Final = 40  # characters of a model-written value repeated in a message
_PREVIEW_LENGTH: Final = 10_000  # the default limit of one option's preview


def _positive_or_none(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{attribute.name} must be an int or None, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, got {value}")


@attrs.frozen(kw_only=True)
class ToolLimits:
    """Limits a harness sets on what the model may ask; ``None`` means no limit.

    Only previews are limited by default. Arguments beyond a limit are ``INVALID_REQUEST``
    naming the limit, and the tool definitions built with these limits state them to the
    model.
    """

    #: Most questions in one call.
    max_questions: int | None = attrs.field(default=None, validator=_positive_or_none)
    #: Most options of one question.
    max_options: int | None = attrs.field(default=None, validator=_positive_or_none)
    #: Longest ``header``, in characters.
    max_header_length: int | None = attrs.field(default=None, validator=_positive_or_none)
    #: Longest ``preview`` of one option, in characters (10,000 unless set).
    max_preview_length: int | None = attrs.field(
        default=_PREVIEW_LENGTH, validator=_positive_or_none
    )


_NO_LIMITS: Final = ToolLimits()


@attrs.frozen
class ToolResult:
    """What a tool call returns to the model.

    ``text`` is the tool's output: the rendered answer, or ``Error: <message>``.
    ``is_error`` says which; ``error`` is ``{"name", "code", "message"}`` of the
    :class:`~user_interaction.UserInteractionError` for the harness (``None`` on success).
    """

    text: str
    is_error: bool = False
    error: dict[str, str] | None = attrs.field(default=None, hash=False)

    def to_openai_message(self, tool_call_id: str) -> dict[str, Any]:
        """The ``{"role": "tool", ...}`` message answering an OpenAI chat tool call."""
        return {"role": "tool", "tool_call_id": tool_call_id, "content": self.text}

    def to_anthropic_block(self, tool_use_id: str) -> dict[str, Any]:
        """The ``tool_result`` content block answering an Anthropic ``tool_use`` block."""
        return {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": self.text,
            "is_error": self.is_error,
        }


# -- the schema and the vendor definitions ----------------------------------------------


def parameters(limits: ToolLimits | None = None) -> dict[str, Any]:
    """A fresh copy of the arguments' JSON Schema (draft 2020-12), with ``limits`` in it.

    ``parameters()`` equals :data:`PARAMETERS`. Duplicate ids and labels, and
    ``multi_select`` without options, are beyond what the schema says; only
    :func:`parse_arguments` rejects those.
    """
    limits = _NO_LIMITS if limits is None else limits

    def text(description: str, longest: int | None = None) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": "\\S"}
        if longest is not None:
            schema["maxLength"] = longest
        schema["description"] = description
        return schema

    def array(items: dict[str, Any], description: str, most: int | None) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": items}
        if most is not None:
            schema["maxItems"] = most
        schema["description"] = description
        return schema

    option = {
        "type": "object",
        "properties": {
            "label": text("The choice as the user sees it; returned in `selected` if chosen."),
            "description": text("Optional explanation of the choice."),
            "preview": text(
                "Optional Markdown shown with the choice while the user considers it: a code "
                "snippet, an ASCII mockup of a layout, a config or diff excerpt. Add previews "
                "when the options are concrete artifacts the user should compare to choose; "
                "leave them out when the label and description say enough (preferences, "
                "yes/no, names). Not every UI can show a preview: the label and description "
                "must make sense without it.",
                limits.max_preview_length,
            ),
        },
        "required": ["label"],
        "additionalProperties": False,
    }
    question = {
        "type": "object",
        "properties": {
            "id": text("Unique id of the question; the answer carries it back."),
            "question": text("The complete question to ask the user."),
            "header": text(
                'Optional short tag shown with the question, e.g. "Confirm".',
                limits.max_header_length,
            ),
            "options": array(
                option,
                "Choices to offer; leave out for a free-text question.",
                limits.max_options,
            ),
            "multi_select": {
                "type": "boolean",
                "default": False,
                "description": "Let the user choose several options (needs options).",
            },
        },
        "required": ["id", "question"],
        "additionalProperties": False,
    }
    questions = array(question, "The questions to ask, in order.", limits.max_questions)
    questions["minItems"] = 1
    return {
        "$schema": _SCHEMA_DIALECT,
        "type": "object",
        "properties": {"questions": questions},
        "required": ["questions"],
        "additionalProperties": False,
    }


#: The JSON Schema (draft 2020-12) of the tool's arguments, without limits: usable as an
#: OpenAI function's ``parameters`` and an Anthropic tool's ``input_schema``. Treat it as
#: read-only; :func:`parameters` returns a copy to modify.
PARAMETERS: Final[dict[str, Any]] = parameters()


def _description(limits: ToolLimits | None) -> str:
    if limits is None:
        return DESCRIPTION
    rules = []
    if limits.max_questions is not None:
        rules.append(f"at most {_count(limits.max_questions, 'question')} per call")
    if limits.max_options is not None:
        rules.append(f"at most {_count(limits.max_options, 'option')} per question")
    if limits.max_header_length is not None:
        rules.append(f"headers of at most {_count(limits.max_header_length, 'character')}")
    longest = limits.max_preview_length
    if longest is not None and longest != _PREVIEW_LENGTH:  # the default is in the schema
        rules.append(f"previews of at most {_count(longest, 'character')}")
    return f"{DESCRIPTION}\n\nLimits: {'; '.join(rules)}." if rules else DESCRIPTION


def openai_tool(limits: ToolLimits | None = None) -> dict[str, Any]:
    """The tool for OpenAI's Chat Completions ``tools=[...]``.

    ``{"type": "function", "function": {"name", "description", "parameters"}}``; for the
    Responses API, lift the inner dict: ``{"type": "function", **openai_tool()["function"]}``.
    """
    return {
        "type": "function",
        "function": {
            "name": NAME,
            "description": _description(limits),
            "parameters": parameters(limits),
        },
    }


def anthropic_tool(limits: ToolLimits | None = None) -> dict[str, Any]:
    """The tool for Anthropic's Messages API ``tools=[...]``:
    ``{"name", "description", "input_schema"}``."""
    return {"name": NAME, "description": _description(limits), "input_schema": parameters(limits)}


# -- parsing the model's arguments --------------------------------------------------------


def parse_arguments(
    raw: object,
    *,
    limits: ToolLimits | None = None,
    agent: object | None = None,
    signal: AbortSignal | None = None,
) -> AskUserQuestionRequest:
    """Turn the model's arguments (a dict, or a JSON string or bytes) into a request.

    Raises ``UserInteractionError`` ``INVALID_REQUEST`` for anything malformed, and nothing
    else whatever ``raw`` is. Its message lists every problem found (up to ten), separated
    by ``"; "``, each as ``<path>: <problem>`` in the model's key names, e.g.
    ``questions[0].id: required``. An empty ``questions`` list is ``INVALID_REQUEST``
    too. ``agent`` and ``signal`` are stored on the request.
    """
    if isinstance(raw, (str, bytes, bytearray)):
        try:
            raw = loads(raw)
        except ValueError as exc:  # bad JSON, nested too deeply, UnicodeDecodeError, ...
            raise _invalid([f"arguments: not valid JSON ({exc})"]) from exc
    problems: list[str] = []
    questions = _questions(raw, problems, _NO_LIMITS if limits is None else limits)
    if problems:
        raise _invalid(problems)
    return AskUserQuestionRequest(questions, agent, signal)


def _invalid(problems: list[str]) -> UserInteractionError:
    message = "; ".join(problems[:_MOST_PROBLEMS])
    if len(problems) > _MOST_PROBLEMS:
        message += f"; and {len(problems) - _MOST_PROBLEMS} more problems"
    return UserInteractionError(message, INVALID_REQUEST)


def _questions(
    data: object, problems: list[str], limits: ToolLimits
) -> tuple[AskUserQuestionItem, ...]:
    if not isinstance(data, Mapping):
        problems.append(f"arguments: expected an object, got {describe_value(data)}")
        return ()
    items: list[AskUserQuestionItem] = []
    if "questions" not in data:
        problems.append("questions: required")
    elif not isinstance(data["questions"], (list, tuple)):
        problems.append(f"questions: expected an array, got {describe_value(data['questions'])}")
    elif not data["questions"]:
        problems.append("questions: at least one question is required")
    else:
        value = data["questions"]
        most = limits.max_questions
        if most is not None and len(value) > most:
            problems.append(
                f"questions: at most {_count(most, 'question')} per call, got {len(value)}"
            )
        ids: set[str] = set()
        for index, entry in enumerate(value):
            item = _question(entry, f"questions[{index}]", problems, limits, ids)
            if item is not None:
                items.append(item)
    _unknown_keys(data, "", _ROOT_KEYS, problems)
    return tuple(items)


def _question(
    data: object, path: str, problems: list[str], limits: ToolLimits, ids: set[str]
) -> AskUserQuestionItem | None:
    if not isinstance(data, Mapping):
        problems.append(f"{path}: expected an object, got {describe_value(data)}")
        return None
    found = len(problems)
    item_id = _text(data, path, "id", problems, required=True)
    if item_id is not None:
        if item_id in ids:
            problems.append(f"{path}.id: duplicate id {_echo(item_id)}")
        ids.add(item_id)
    question = _text(data, path, "question", problems, required=True)
    header = _text(data, path, "header", problems)
    longest = limits.max_header_length
    if header is not None and longest is not None and len(header) > longest:
        problems.append(f"{path}.header: at most {_count(longest, 'character')}, got {len(header)}")
    options = _options(data, path, problems, limits)
    multi_select = data.get("multi_select", False)
    if not isinstance(multi_select, bool):
        problems.append(
            f"{path}.multi_select: expected a boolean, got {describe_value(multi_select)}"
        )
    elif multi_select and options == ():
        problems.append(f"{path}.multi_select: a question without options cannot be multi-select")
    _unknown_keys(data, path, _QUESTION_KEYS, problems)
    if len(problems) > found or item_id is None or question is None or options is None:
        return None
    return AskUserQuestionItem(item_id, question, header, options, multi_select is True)


def _options(
    data: Mapping[Any, Any], path: str, problems: list[str], limits: ToolLimits
) -> tuple[AskUserQuestionOption, ...] | None:
    """The question's options (``()`` when left out), or ``None`` if any is malformed."""
    if "options" not in data:
        return ()
    value = data["options"]
    path = f"{path}.options"
    if not isinstance(value, (list, tuple)):
        problems.append(f"{path}: expected an array, got {describe_value(value)}")
        return None
    found = len(problems)
    most = limits.max_options
    if most is not None and len(value) > most:
        problems.append(f"{path}: at most {_count(most, 'option')} per question, got {len(value)}")
    labels: set[str] = set()
    options: list[AskUserQuestionOption] = []
    for position, entry in enumerate(value):
        where = f"{path}[{position}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: expected an object, got {describe_value(entry)}")
            continue
        label = _text(entry, where, "label", problems, required=True)
        if label is not None:
            if label in labels:
                problems.append(f"{where}.label: duplicate label {_echo(label)}")
            labels.add(label)
        description = _text(entry, where, "description", problems)
        preview = _text(entry, where, "preview", problems)
        longest = limits.max_preview_length
        if preview is not None and longest is not None and len(preview) > longest:
            problems.append(
                f"{where}.preview: at most {_count(longest, 'character')}, got {len(preview)}"
            )
        _unknown_keys(entry, where, _OPTION_KEYS, problems)
        if label is not None:
            options.append(AskUserQuestionOption(label, description, preview))
    return tuple(options) if len(problems) == found else None


def _text(
    data: Mapping[Any, Any], path: str, key: str, problems: list[str], *, required: bool = False
) -> str | None:
    """The non-blank string at ``key``, or ``None`` (absent, or a problem reported)."""
    where = f"{path}.{key}"
    if key not in data:
        if required:
            problems.append(f"{where}: required")
        return None
    value = data[key]
    if not isinstance(value, str):
        hint = " (leave the field out instead)" if value is None and not required else ""
        problems.append(f"{where}: expected a string, got {describe_value(value)}{hint}")
        return None
    problem = text_problem(value)
    if problem is not None:
        problems.append(f"{where}: {problem}")
        return None
    return value


def _unknown_keys(
    data: Mapping[Any, Any], path: str, known: tuple[str, ...], problems: list[str]
) -> None:
    for key in data:
        if isinstance(key, str) and key in known:
            continue
        name = str(key)
        if isinstance(key, str) and key.isidentifier() and len(key) <= _LONGEST_ECHO:
            where = f"{path}.{key}" if path else key
        else:
            where = f"{path}[{json.dumps(_shorten(name), ensure_ascii=False)}]"
        guess = difflib.get_close_matches(name, known, n=1) if len(name) <= _LONGEST_ECHO else []
        hint = f", did you mean {guess[0]}?" if guess else ""
        problems.append(f"{where}: unknown field{hint} (allowed: {', '.join(known)})")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _shorten(text: str) -> str:
    return text if len(text) <= _LONGEST_ECHO else f"{text[:_LONGEST_ECHO]}…"


def _echo(text: str) -> str:
    return repr(_shorten(text))


# -- answering the model ------------------------------------------------------------------


def render_answer(answer: AskUserQuestionAnswer) -> str:
    """The answer as the model reads it: compact JSON, non-ASCII kept readable.

    ``{"answers":[{"id":"pkg","selected":["pnpm"]}]}``; each item's keys in the order
    ``id``, ``selected``, ``notes``, ``custom``, with ``notes`` and ``custom`` only when
    the user wrote them.
    """
    return json.dumps(answer.to_dict(), ensure_ascii=False, separators=(",", ":"))


async def call(
    ui: UserInteraction,
    raw: object,
    *,
    signal: AbortSignal | None = None,
    timeout: float | None = None,
    limits: ToolLimits | None = None,
    agent: object | None = None,
) -> ToolResult:
    """Run one tool call: parse ``raw``, ask through ``ui``, render the answer.

    Never raises a ``UserInteractionError``: an error becomes
    ``ToolResult("Error: <message>", True, err.to_dict())``. ``signal`` aborts the ask
    (checked first, as :meth:`UserInteraction.ask` does); ``timeout`` is passed to
    ``ui.ask()``. A bad ``timeout`` value is the harness's mistake and raises
    ``ValueError``; cancellation of the calling task propagates.
    """
    try:
        if signal is not None and signal.aborted:
            raise signal.error()
        request = parse_arguments(raw, limits=limits, agent=agent, signal=signal)
        answer = await ui.ask(request, timeout=timeout)
    except UserInteractionError as err:
        return ToolResult(f"Error: {err.message}", True, err.to_dict())
    return ToolResult(render_answer(answer))
