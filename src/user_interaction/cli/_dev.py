"""``user-interaction dev``: ask again and again, hot-reloading the provider on every
save (the loop itself is in ``_dev_loop``, imported only when ``dev`` runs)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ._common import (
    EXIT_OUTPUT_FAILED,
    FORMATTER,
    Failure,
    asker,
    count,
    read_request,
    seconds,
    trace_mode,
    write_out,
)

if TYPE_CHECKING:
    from ._common import Commands


def add_parser(commands: Commands, tracing: argparse.ArgumentParser) -> None:
    """Add ``dev`` to ``commands``."""
    dev = commands.add_parser(
        "dev",
        parents=[tracing],
        help="develop a provider: ask again and again, hot-reload on save",
        description="Ask a sample request (or --request FILE) again and again through "
        "PROVIDER, an installed provider's name or a Python file (path.py or "
        "path.py:Class) that defines one. When a watched file changes, the provider is "
        "reloaded: the question on screen finishes on the old code, the next one uses the "
        "new code; an edit that fails to import keeps the old provider. Stop with Ctrl-C.",
        formatter_class=FORMATTER,
    )
    dev.add_argument("provider", metavar="PROVIDER", help="a provider name or a .py file")
    dev.add_argument("--request", metavar="FILE", help="ask this wire-format request instead")
    dev.add_argument(
        "--watch",
        action="append",
        default=[],
        metavar="PATH",
        help="also watch PATH, a file or directory (repeatable)",
    )
    dev.add_argument(
        "--watcher",
        choices=("auto", "watchfiles", "poll"),
        default="auto",
        help="how to watch: watchfiles when installed (auto), or polling",
    )
    dev.add_argument(
        "--poll-interval",
        type=seconds,
        default=0.5,
        metavar="SECONDS",
        help="seconds between two polls (default: 0.5)",
    )
    dev.add_argument("--rounds", type=count, metavar="N", help="stop after N asks")
    dev.add_argument(
        "--on-change",
        action="store_true",
        help="ask once, then once after each successful reload",
    )
    dev.add_argument("--timeout", type=seconds, metavar="SECONDS", help="timeout of each ask")
    dev.add_argument(
        "--traceback", action="store_true", help="print the traceback behind a failed ask"
    )
    dev.set_defaults(run=run, parser=dev)


def run(args: argparse.Namespace) -> int:
    """Run the dev loop until Ctrl-C (or ``--rounds``)."""
    from ._dev_loop import DevLoop, sample_request

    request = sample_request() if args.request is None else read_request(args.request)
    stdout = sys.stdout
    if stdout is None:  # closed (>&-): dev's report is all it gives
        raise Failure("cannot write dev's report: stdout is closed", EXIT_OUTPUT_FAILED)
    loop = DevLoop(
        args.provider,
        request,
        watch=args.watch,
        watcher=args.watcher,
        poll_interval=args.poll_interval,
        rounds=args.rounds,
        on_change=args.on_change,
        show_traceback=args.traceback,
        make_asker=lambda name: asker(trace_mode(args), name, args.timeout),
        write=lambda text: write_out(stdout, text, what="dev's report", flush=True),
    )
    try:
        return loop.run()
    except BrokenPipeError:  # `dev | head`: main() ends quietly
        raise
    except (OSError, ValueError) as exc:  # a --watch path that does not exist, ...
        raise Failure(str(exc)) from exc
