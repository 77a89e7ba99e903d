"""``user-interaction ask``: ask a human from a shell script and print the answer."""

from __future__ import annotations

import argparse
import logging
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final, Iterator, TextIO

from user_interaction._discovery import PROVIDER_ENV, find_provider
from user_interaction._manager import UserInteraction
from user_interaction._model import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)

from ._common import (
    EXIT_OK,
    EXIT_OUTPUT_FAILED,
    FORMATTER,
    STATUS_EPILOG,
    Failure,
    add_provider_option,
    asker,
    compact,
    read_request,
    seconds,
    trace_mode,
    write_out,
)

if TYPE_CHECKING:
    from ._common import Commands

_DEFAULT_ID: Final = "question"

_EXAMPLES: Final = """\
examples:
  user-interaction ask "Deploy to production?" -o Yes -o No
  answer=$(user-interaction ask "Which package manager?" -o pnpm -o "npm=the default")
  user-interaction ask "Which checks?" --multi -o lint -o tests --json
  user-interaction ask "Release name?" --provider web --timeout 300
  user-interaction ask --request request.json    # wire JSON, or the tool's arguments

"""


def add_parser(commands: Commands, tracing: argparse.ArgumentParser) -> None:
    """Add ``ask`` to ``commands``."""
    ask = commands.add_parser(
        "ask",
        parents=[tracing],
        help="ask a question and print the answer",
        description="Ask through a provider and print the answer: the chosen label(s) or "
        "the custom text, one per line (the wire JSON with --json). Only the answer goes "
        "to stdout: when stdout is not a terminal, whatever the provider prints there "
        "goes to stderr, so answer=$(user-interaction ask ...) works.",
        epilog=_EXAMPLES + STATUS_EPILOG,
        formatter_class=FORMATTER,
    )
    ask.add_argument("question", nargs="?", metavar="QUESTION", help="the question to ask")
    ask.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="LABEL[=DESCRIPTION]",
        help="an option (repeat for several); split at the first '='",
    )
    ask.add_argument("--multi", action="store_true", help="let the human pick several options")
    ask.add_argument("--header", metavar="TEXT", help='a short heading, like "Confirm"')
    ask.add_argument("--detail", metavar="TEXT", help="supporting text shown with the question")
    ask.add_argument(
        "--id", metavar="ID", help=f"the question's id in --json output (default: {_DEFAULT_ID})"
    )
    ask.add_argument(
        "--request",
        metavar="FILE",
        help="read a request (JSON, in the wire form or as the ask_user_question tool's "
        "arguments) from FILE, or from stdin with '-'",
    )
    ask.add_argument(
        "--provider",
        "-p",
        metavar="NAME",
        help=f"the provider to ask; by default the one {PROVIDER_ENV} names, else the only "
        "one installed, else the available one of highest priority (e.g. tui on a "
        "terminal, else stdio, else web): 'user-interaction providers --check' shows which",
    )
    add_provider_option(ask)
    ask.add_argument("--timeout", type=seconds, metavar="SECONDS", help="give up after SECONDS")
    ask.add_argument("--json", action="store_true", help="print the answer as wire JSON")
    ask.set_defaults(run=run, parser=ask)


def _option(text: str) -> AskUserQuestionOption:
    label, equals, description = text.partition("=")
    return AskUserQuestionOption(label, description if equals else None)


def _request_from(args: argparse.Namespace) -> AskUserQuestionRequest:
    parser: argparse.ArgumentParser = args.parser
    if args.request is not None:
        extra = [
            flag
            for flag, value in (
                ("QUESTION", args.question),
                ("--option", args.option),
                ("--multi", args.multi),
                ("--header", args.header),
                ("--detail", args.detail),
                ("--id", args.id),
            )
            if value
        ]
        if extra:
            parser.error(f"--request cannot be combined with {', '.join(extra)}")
        return read_request(args.request)
    if args.question is None:
        parser.error("give a QUESTION, or --request FILE")
    item = AskUserQuestionItem(
        args.id if args.id is not None else _DEFAULT_ID,
        args.question,
        header=args.header,
        options=[_option(text) for text in args.option],
        multi_select=args.multi,
        detail=args.detail,
    )
    return AskUserQuestionRequest([item])


@contextmanager
def _prompts_off_stdout() -> Iterator[TextIO]:
    """Keep stdout for the answer: when it is not a terminal, point ``sys.stdout`` at
    stderr while the provider runs. Yields the real stdout."""
    stdout = sys.stdout
    if stdout is None or sys.stderr is None or _isatty(stdout):
        yield stdout
        return
    stdout.flush()
    sys.stdout = sys.stderr
    try:
        yield stdout
    finally:
        sys.stdout = stdout


def _quiet_asyncio() -> None:
    """After Ctrl-C, the abandoned ask may end with an error nobody retrieves any more;
    keep asyncio from logging it as the process exits."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def _answer_lines(request: AskUserQuestionRequest, answer: AskUserQuestionAnswer) -> list[str]:
    """The chosen labels or the custom text of each question, in the request's order."""
    lines: list[str] = []
    for question in request.questions:
        item = answer.get(question.id)
        if item is None:
            continue
        if item.custom is not None:
            lines.append(item.custom)
        else:
            lines.extend(item.selected)
    return lines


def run(args: argparse.Namespace) -> int:
    """Ask, then print the answer."""
    request = _request_from(args)
    if sys.stdout is None:  # closed (>&-): the answer would be lost, so ask nobody
        raise Failure(
            "cannot write the answer: stdout is closed (nothing was asked)", EXIT_OUTPUT_FAILED
        )
    with _prompts_off_stdout() as stdout, UserInteraction() as ui:
        info = find_provider(args.provider)
        ui.use(f"{info.distribution}:{info.name}", **dict(args.provider_option))
        ask = asker(trace_mode(args), info.name, args.timeout)
        try:
            answer = ask(ui, request)
        except KeyboardInterrupt:
            _quiet_asyncio()
            raise
    if args.json:
        text = compact(answer.to_dict()) + "\n"
    else:
        text = "".join(line + "\n" for line in _answer_lines(request, answer))
    try:
        write_out(stdout, text, what="the answer", flush=True)
    except BrokenPipeError:  # `ask | head -c0`: the human answered, and nobody reads it
        raise Failure(
            "cannot write the answer to stdout: the pipe is closed (the answer is lost)",
            EXIT_OUTPUT_FAILED,
        ) from None
    return EXIT_OK
