"""``user-interaction dev``: ask again and again, and hot-reload the provider on every save.

The provider is an installed one (by name) or a Python file. A file inside a package (its
folder has an ``__init__.py``) is imported under its dotted name with the package's parent
on ``sys.path``; a lone file is imported under the stable name ``dev_<stem>`` through a
finder of its own. Either way ``UserInteraction.reload()`` can import it again by name.

The main thread asks, one round after another; the watcher's thread reloads. A reload
keeps the manager's no-loss semantics: the question on screen finishes on the old code,
the next one uses the new code, and an edit that fails to import (``RELOAD_FAILED``)
leaves the old provider active. After a failed ask the loop waits for the next
successful reload instead of failing again at once.
"""

from __future__ import annotations

import _thread
import importlib
import importlib.abc
import importlib.util
import json
import logging
import re
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Final, Iterator, Sequence

from user_interaction._abort import AbortController
from user_interaction._discovery import find_provider
from user_interaction._errors import (
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    RELOAD_FAILED,
    UserInteractionError,
)
from user_interaction._manager import UserInteraction
from user_interaction._model import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    with_signal,
)

from ._common import forget_caught_interrupt

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

__all__ = ["DevLoop", "load_file_provider", "sample_request"]

Asker = Callable[[UserInteraction, AskUserQuestionRequest], AskUserQuestionAnswer]

_TARGET: Final = re.compile(r"^(?P<path>.+\.py):(?P<attr>[A-Za-z_][\w.]*)$")
#: How soon a Ctrl-C that Python dropped is delivered again (see _lost_interrupts_delivered).
_REDELIVER_AFTER: Final = 0.05


def sample_request() -> AskUserQuestionRequest:
    """The request ``dev`` asks by default: a header, detail, descriptions, a
    multi-select question and a free-text one."""
    return AskUserQuestionRequest(
        [
            AskUserQuestionItem(
                "deploy",
                "Deploy build 1234 to production?",
                header="Confirm",
                detail="All 212 checks passed; the last deploy was 3 days ago.",
                options=[
                    AskUserQuestionOption("Yes", "ship it now"),
                    AskUserQuestionOption("No", "wait for the next release window"),
                ],
            ),
            AskUserQuestionItem(
                "checks",
                "Which checks should run again first?",
                header="Checks",
                options=[
                    AskUserQuestionOption("unit"),
                    AskUserQuestionOption("integration"),
                    AskUserQuestionOption("lint"),
                ],
                multi_select=True,
            ),
            AskUserQuestionItem("note", "Anything the agent should know?", header="Note"),
        ]
    )


class _FileFinder(importlib.abc.MetaPathFinder):
    """Finds one module name at one file path (so a re-import finds it again)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self.path = path

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path)


def _module_name(path: Path) -> tuple[str, Path]:
    """The name to import the file at ``path`` under, and what to watch for it."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    in_package = directory != path.parent or path.name == "__init__.py"
    if in_package and parts and all(part.isidentifier() for part in parts):
        root = str(directory)
        if root not in sys.path:
            sys.path.insert(0, root)
        return ".".join(parts), directory / parts[0]
    name = "dev_" + re.sub(r"\W", "_", path.stem)
    if not any(isinstance(f, _FileFinder) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _FileFinder(name, path))
    folder = str(path.parent)
    if folder not in sys.path:  # the file's own imports of its neighbours, as `python file`
        sys.path.insert(0, folder)
    return name, path


def _not_found(message: str) -> UserInteractionError:
    return UserInteractionError(message, PROVIDER_NOT_FOUND)


def _load_failed(message: str, cause: BaseException | None) -> UserInteractionError:
    return UserInteractionError(message, PROVIDER_LOAD_FAILED, cause=cause)


def load_file_provider(target: str) -> tuple[object, Path]:
    """The provider defined in the file ``target`` (``path.py`` or ``path.py:Class``;
    a package folder stands for its ``__init__.py``), and the path to watch."""
    match = _TARGET.match(target)
    attr = match.group("attr") if match else None
    path = Path(match.group("path") if match else target).resolve()
    if path.is_dir():
        path = path / "__init__.py"
    if not path.is_file():
        raise _not_found(f"{target}: no such file (and no installed provider has that name)")
    name, watched = _module_name(path)
    try:
        module = importlib.import_module(name)
    except (Exception, SystemExit) as exc:
        raise _load_failed(f"{path} failed to import: {type(exc).__name__}: {exc}", exc) from exc
    if attr is not None:
        found: object = module
        try:
            for part in attr.split("."):
                found = getattr(found, part)
        except AttributeError:
            raise _not_found(f"{path} defines no {attr!r}") from None
    else:
        classes = [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and value.__module__ == module.__name__
            and callable(getattr(value, "ask", None))
        ]
        if len(classes) == 1:
            found = classes[0]
        elif not classes and callable(getattr(module, "ask", None)):
            found = module  # a module with an ask() function is a provider too
        elif not classes:
            raise _not_found(f"{path} defines no class with an ask(request) method")
        else:
            names = ", ".join(sorted(cls.__name__ for cls in classes))
            raise _not_found(
                f"{path} defines several provider classes ({names}): pick one with {path.name}:NAME"
            )
    if isinstance(found, type):
        try:
            provider = found()
        except (Exception, SystemExit) as exc:
            raise _load_failed(
                f"{found.__name__}() failed: {type(exc).__name__}: {exc}", exc
            ) from exc
    elif callable(getattr(found, "ask", None)):
        provider = found
    else:
        raise _not_found(f"{path}: {attr} is not a provider (no ask(request) method)")
    return provider, watched


def _package_paths(module_name: str) -> list[Path]:
    """Where the imported top-level package of ``module_name`` lives."""
    module = sys.modules.get(module_name.partition(".")[0])
    if module is None:
        return []
    locations = list(getattr(module, "__path__", None) or [])
    if not locations and getattr(module, "__file__", None):
        locations = [module.__file__]
    return [Path(location) for location in locations if location and Path(location).exists()]


def _is_file_target(target: str) -> bool:
    return target.endswith(".py") or bool(_TARGET.match(target)) or Path(target).exists()


@contextmanager
def _lost_interrupts_delivered() -> Iterator[None]:
    """Deliver again, while ``dev`` runs, a Ctrl-C that Python had to drop.

    A SIGINT handled while the main thread runs a weakref callback or a ``__del__``
    (importlib's bookkeeping of module locks during an import, say) raises its
    KeyboardInterrupt where it cannot propagate: Python reports it as "Exception ignored"
    and carries on, and ``dev`` would keep asking. Instead the interrupt is simulated again
    a moment later, from another thread, so that it is raised once the main thread is back
    in ordinary code (raising it from this hook would only be dropped again).
    """
    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        main = threading.current_thread() is threading.main_thread()
        if main and isinstance(unraisable.exc_value, KeyboardInterrupt):
            again = threading.Timer(_REDELIVER_AFTER, _thread.interrupt_main)
            again.daemon = True
            again.start()
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        if sys.unraisablehook is hook:
            sys.unraisablehook = previous


class DevLoop:
    """The ``dev`` command: rounds of asks, with a watcher that reloads the provider."""

    def __init__(
        self,
        target: str,
        request: AskUserQuestionRequest,
        *,
        watch: Sequence[str],
        watcher: str,
        poll_interval: float,
        rounds: int | None,
        on_change: bool,
        show_traceback: bool,
        make_asker: Callable[[str], Asker],
        write: Callable[[str], None],
    ) -> None:
        self.target = target
        self.request = request
        self.extra_watch = list(watch)
        self.backend = watcher
        self.poll_interval = poll_interval
        self.rounds = rounds
        self.on_change_only = on_change
        self.show_traceback = show_traceback
        self.make_asker = make_asker
        #: Writes (and flushes) dev's report; whatever it raises ends dev (see :meth:`_emit`).
        self.write = write
        self._output_failure: Exception | None = None
        self._pending: AbortController | None = None  # aborts the current round's ask
        self._print_lock = threading.Lock()
        self._reloaded = threading.Condition()
        self._generation = 0
        self._asking = False
        self._ui = UserInteraction()

    def say(self, text: str) -> None:
        self._emit(f"[dev] {text}\n")

    def _emit(self, text: str) -> None:
        """Write ``text``. A report that cannot be written (a full disk, a closed pipe)
        ends dev: the main thread raises the failure at once, or, when a watcher's thread
        failed, as soon as it stops waiting for the human (the pending ask is aborted) or
        for a change."""
        main = threading.current_thread() is threading.main_thread()
        with self._print_lock:
            failure = self._output_failure
            if failure is not None:  # dev is ending: nothing more can be said
                if main:
                    raise failure
                return
            try:
                self.write(text)
                return
            except Exception as exc:  # a Ctrl-C while writing stays a Ctrl-C
                self._output_failure = exc
                if main:
                    raise
        pending = self._pending  # set before the main thread's last line: never stale
        if pending is not None:
            pending.abort("dev's report cannot be written")
        with self._reloaded:
            self._reloaded.notify_all()

    def _activate(self) -> tuple[str, list[Path]]:
        """Load and register the provider; its name and the paths to watch."""
        ui = self._ui
        if _is_file_target(self.target):
            provider, watched = load_file_provider(self.target)
            name = getattr(provider, "name", None)
            if not isinstance(name, str) or not name:
                name = (
                    provider.__name__
                    if isinstance(provider, ModuleType)
                    else type(provider).__name__
                )
            try:
                ui.register_provider(provider, name=name)
            except TypeError as exc:
                raise _load_failed(f"{self.target}: {exc}", exc) from exc
            return name, [watched]
        info = find_provider(self.target)
        ui.use(info.name)
        return info.name, _package_paths(info.module)

    def _changed(self, paths: list[str]) -> None:
        """The watcher saw ``paths`` change: reload, and say what happened."""
        what = ", ".join(Path(path).name for path in paths[:3])
        if len(paths) > 3:
            what += f" and {len(paths) - 3} more"
        try:
            self._ui.reload()
        except UserInteractionError as error:
            self.say(f"{what} changed; {error.code}: {' '.join(error.message.split())}")
            return
        except BaseException as exc:  # e.g. SystemExit from the module: keep watching
            # reload() restored the modules before letting it through: the old code stays
            message = f"Reload failed, the previous provider stays active: {type(exc).__name__}"
            self.say(f"{what} changed; {RELOAD_FAILED}: {message}: {exc}")
            return
        with self._reloaded:
            self._generation += 1
            self._reloaded.notify_all()
        pending = "; the question on screen finishes on the old code" if self._asking else ""
        self.say(f"{what} changed; reloaded{pending}")

    def _wait_for_reload(self, generation: int) -> None:
        with self._reloaded:
            if self._generation == generation:
                self.say("waiting for a change (Ctrl-C to stop)")
            while self._generation == generation and self._output_failure is None:
                self._reloaded.wait(0.5)  # a timeout keeps Ctrl-C responsive

    def run(self) -> int:
        """Run until the rounds are done or Ctrl-C; returns the exit status (0)."""
        from ._watch import Watcher

        with _lost_interrupts_delivered(), self._ui:
            name, paths = self._activate()
            extra = [Path(path) for path in self.extra_watch]
            watcher = Watcher(
                [*paths, *extra],
                self._changed,
                backend=self.backend,
                poll_interval=self.poll_interval,
            )
            ask = self.make_asker(name)
            self.say(f"provider {name!r}; {watcher.describe()}; Ctrl-C to stop")
            watcher.start()
            try:
                self._rounds(ask)
            except KeyboardInterrupt:
                forget_caught_interrupt()
                # the abandoned ask may end with an error nobody retrieves: keep asyncio quiet
                logging.getLogger("asyncio").setLevel(logging.CRITICAL)
                self.say("stopped")
            finally:
                watcher.stop()
        if self._output_failure is not None:  # a line from the watcher's thread was lost
            raise self._output_failure
        return 0

    def _rounds(self, ask: Asker) -> None:
        count = len(self.request.questions)
        done = 0
        while self.rounds is None or done < self.rounds:
            done += 1
            generation = self._generation
            pending = self._pending = AbortController()
            self.say(f"round {done}: asking {count} question{'s' if count != 1 else ''}")
            self._asking = True
            try:
                answer = ask(self._ui, with_signal(self.request, pending.signal))
            except UserInteractionError as error:
                self._asking = False
                self.say(f"{error.code}: {' '.join(error.message.split())}")
                if self.show_traceback and error.__cause__ is not None:
                    cause = error.__cause__
                    text = "".join(
                        traceback.format_exception(type(cause), cause, cause.__traceback__)
                    )
                    self._emit(text)
                failed = True
            else:
                self._asking = False
                text = json.dumps(answer.to_dict(), ensure_ascii=False, separators=(",", ":"))
                self.say(f"answer: {text}")
                failed = False
            more = self.rounds is None or done < self.rounds
            if more and (failed or self.on_change_only):
                self._wait_for_reload(generation)
