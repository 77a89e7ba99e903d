"""The child process of the one-line ask tests: confirm, select, checkbox, text and
``require_approval`` asked through the stdio provider, one call after another.

Usage: ``python prompts_driver.py PLAN`` where PLAN is JSON ``{"form": ..., "calls":
[...]}``. The form is ``async`` (``await ui.confirm(...)``) or ``sync``
(``ui.confirm_sync(...)``, with no event loop anywhere). Each call is ``[name, args,
kwargs]``: ``name`` is ``confirm``, ``select``, ``checkbox`` or ``text`` (an option given
as an object is an ``AskUserQuestionOption``), or a target guarded by
``require_approval``: the functions ``delete_file`` (sync) and ``fetch_url`` (async), the
methods ``reset`` (sync) and ``push`` (async) of a ``Repo``.

It prints ``RESULT {"index": i, "value": ...}`` or ``RESULT {"index": i, "error": CODE,
"message": ...}`` per call, ``RAN [...]`` whenever a guarded target runs, and ``DONE``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Callable

from user_interaction import (
    AskUserQuestionOption,
    UserInteraction,
    UserInteractionError,
    require_approval,
)


def say(kind: str, value: object) -> None:
    sys.stdout.write(f"{kind} {json.dumps(value)}\n")
    sys.stdout.flush()


ui = UserInteraction()


@require_approval(ui)
def delete_file(path: str, *, force: bool = False) -> str:
    say("RAN", ["delete_file", path, force])
    return f"deleted {path}"


@require_approval(ui)
async def fetch_url(url: str) -> str:
    await asyncio.sleep(0)
    say("RAN", ["fetch_url", url])
    return f"fetched {url}"


class Repo:
    def __repr__(self) -> str:
        return "Repo('app')"

    @require_approval(ui, header="Git")
    def reset(self, ref: str) -> str:
        say("RAN", ["reset", ref])
        return f"reset to {ref}"

    @require_approval(ui, question="Push to origin?", header="Git")
    async def push(self, branch: str) -> str:
        say("RAN", ["push", branch])
        return f"pushed {branch}"


GUARDED: dict[str, Callable[..., Any]] = {
    "delete_file": delete_file,
    "fetch_url": fetch_url,
    "reset": Repo().reset,
    "push": Repo().push,
}


def result(index: int, value: Any = None, error: UserInteractionError | None = None) -> None:
    if error is None:
        say("RESULT", {"index": index, "value": value})
    else:
        say("RESULT", {"index": index, "error": error.code, "message": error.message})


def options(name: str, args: list[Any]) -> list[Any]:
    """The arguments of ``select`` / ``checkbox`` with option objects made options."""
    if name not in ("select", "checkbox"):
        return args
    return [
        args[0],
        [AskUserQuestionOption(**o) if isinstance(o, dict) else o for o in args[1]],
        *args[2:],
    ]


def main(form: str, calls: list[tuple[str, list[Any], dict[str, Any]]]) -> None:
    calls = [(name, options(name, args), kwargs) for name, args, kwargs in calls]
    with ui:
        ui.use("stdio")

        def function(name: str) -> Callable[..., Any]:
            if name in GUARDED:
                return GUARDED[name]
            method: Callable[..., Any] = getattr(ui, name if form == "async" else f"{name}_sync")
            return method

        if form == "sync":  # as a synchronous program calls them: no event loop anywhere
            for index, (name, args, kwargs) in enumerate(calls):
                try:
                    result(index, function(name)(*args, **kwargs))
                except UserInteractionError as exc:
                    result(index, error=exc)
        else:

            async def run_all() -> None:
                asyncio.get_running_loop().slow_callback_duration = 600  # PYTHONDEVMODE
                for index, (name, args, kwargs) in enumerate(calls):
                    try:
                        result(index, await function(name)(*args, **kwargs))
                    except UserInteractionError as exc:
                        result(index, error=exc)

            asyncio.run(run_all())
    say("DONE", None)


if __name__ == "__main__":
    plan = json.loads(sys.argv[1])
    main(plan["form"], plan["calls"])
