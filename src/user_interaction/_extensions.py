"""Extensions: the plugin manager of a context, loading installed extensions, and the chain
of ``ask_wrapper`` layers composed around the provider call.

A :class:`UserInteraction` takes the plain ask path (``_ask.Ask``) until it has an
extension. Then its asks go through :meth:`Extensions.ask`, which:

1. loads the installed extensions once (entry points, the environment), remembering any
   that failed: those fail every ask with ``EXTENSION_FAILED`` before anything runs;
2. (re)composes the chain when the extensions changed: each ``ask_wrapper(ui)`` result
   wraps the next ask, the first in hook order outermost, around :meth:`_innermost`, which
   validates the request it is given, calls the active provider and notes what it asked;
3. runs the chain as a task of its own that the caller stops waiting for at once when its
   signal fires or its timeout passes (the chain's task is then cancelled, never the
   caller's);
4. validates the final answer against the caller's request, and hands the outcome to the
   ``ask_finished`` observers on a thread of their own, waiting for them until the
   caller's deadline at most (what they raise is logged, never the caller's problem).
"""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from operator import itemgetter
from threading import RLock, Thread
from time import monotonic, perf_counter
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Final, Union

import attrs
import pluggy

from ._abort import AbortController, AbortSignal, discard_awaitable
from ._approval import ANSWERED_BY
from ._ask import Ask, caller_left
from ._discovery import _Scanner
from ._errors import (
    ASK_TIMEOUT,
    EXTENSION_FAILED,
    INVALID_ANSWER,
    INVALID_REQUEST,
    UserInteractionError,
)
from ._hooks import PROJECT_NAME, AskFunction, ExtensionSpec
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest, with_signal
from ._registration import _aio
from ._validation import validate_answer, validate_request

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from ._manager import UserInteraction

__all__ = [
    "AUDIT_ENV",
    "DISABLE_AUTOLOAD_ENV",
    "EXTENSIONS_ENV",
    "EXTENSION_GROUP",
    "PREANSWERED_ENV",
    "ExtensionInfo",
    "Extensions",
    "autoloaded",
    "check_extension",
    "installed_extensions",
]

#: The entry-point group installed extensions are registered under.
EXTENSION_GROUP: Final = "user_interaction.extensions"
#: Set (to anything but empty): installed extensions are not loaded, except those named
#: in :data:`EXTENSIONS_ENV`.
DISABLE_AUTOLOAD_ENV: Final = "USER_INTERACTION_DISABLE_EXTENSION_AUTOLOAD"
#: ``name,name``: installed extensions to load even when autoload is disabled.
EXTENSIONS_ENV: Final = "USER_INTERACTION_EXTENSIONS"
#: A path: every context gets an ``AuditLog`` appending to it.
AUDIT_ENV: Final = "USER_INTERACTION_AUDIT"
#: A path: every context gets a ``PreAnswered`` answering from that answers file.
PREANSWERED_ENV: Final = "USER_INTERACTION_PREANSWERED"

_EAGER: Final = sys.version_info >= (3, 12)
#: How long an ask without a deadline waits for its observers before returning.
_OBSERVER_WAIT: Final = 1.0
#: The least an ask waits for its observers (so that one timed out is still recorded).
_OBSERVER_MIN_WAIT: Final = 0.1
_HOOKS: Final = ("ask_wrapper", "ask_finished")


def _logger() -> Any:
    import logging

    return logging.getLogger("user_interaction")


@attrs.frozen
class ExtensionInfo:
    """An installed extension, as listed without importing it."""

    #: The entry point's name.
    name: str
    #: The entry point's object reference, ``module:attr`` or a module.
    value: str
    #: The distribution that offers it, and its version.
    distribution: str
    version: str
    _entry_point: EntryPoint = attrs.field(eq=False, repr=False, alias="entry_point")

    def load(self) -> object:
        """Import the extension and return the plugin object to register.

        A class or zero-argument factory is called; a module or a ready object is used
        as it is. Any failure is ``EXTENSION_FAILED`` (the cause kept).
        """
        try:
            target = self._entry_point.load()
        except (Exception, SystemExit) as exc:
            raise self.failed(f"failed to import: {type(exc).__name__}: {exc}", exc) from exc
        if not isinstance(target, type) and (
            isinstance(target, ModuleType) or not callable(target) or _has_hooks(target)
        ):
            return target
        try:
            return target()
        except (Exception, SystemExit) as exc:
            raise self.failed(f"failed to construct: {type(exc).__name__}: {exc}", exc) from exc

    def failed(self, problem: str, cause: BaseException | None) -> UserInteractionError:
        """The ``EXTENSION_FAILED`` error for this extension, saying how to disable it."""
        if os.environ.get(DISABLE_AUTOLOAD_ENV):
            disable = f"remove {self.name!r} from {EXTENSIONS_ENV}"
        else:
            disable = (
                f"uninstall {self.distribution}, or set {DISABLE_AUTOLOAD_ENV}=1 (and list "
                f"the extensions to keep in {EXTENSIONS_ENV})"
            )
        return UserInteractionError(
            f"Extension {self.name!r} ({self.value}, from {self.distribution} {self.version}) "
            f"{problem}. Asks fail until it is fixed; to disable it, {disable}.",
            EXTENSION_FAILED,
            cause=cause,
        )


def _has_hooks(target: object) -> bool:
    return any(hasattr(target, hook) for hook in _HOOKS)


_SCANNER: Final = _Scanner(
    EXTENSION_GROUP,
    lambda name, value, distribution, version, entry_point: ExtensionInfo(
        name=name,
        value=value,
        distribution=distribution,
        version=version,
        entry_point=entry_point,
    ),
)


def installed_extensions() -> tuple[ExtensionInfo, ...]:
    """Every installed extension, sorted by name (nothing is imported)."""
    return _SCANNER.providers()


class _PluginManager(pluggy.PluginManager):
    """A ``PluginManager`` that tells its context when its plugins change."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(PROJECT_NAME)
        self._changed = changed
        self.add_hookspecs(ExtensionSpec)

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        self._changed()
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        removed = super().unregister(plugin, name)
        self._changed()
        return removed

    def set_blocked(self, name: str) -> None:
        super().set_blocked(name)
        self._changed()


def _register(pm: pluggy.PluginManager, plugin: object, name: str | None) -> None:
    """Register with pluggy's checks, plus: it implements at least one known hook
    (``TypeError`` otherwise; ``ValueError`` for a name already registered)."""
    try:
        pm.register(plugin, name)
    except pluggy.PluginValidationError as exc:
        if pm.is_registered(plugin):  # pluggy < 1.7 leaves it half registered
            pm.unregister(plugin)
        raise TypeError(f"{_named(plugin)} is not a valid extension: {exc}") from exc
    callers = pm.get_hookcallers(plugin) or []
    unknown = sorted(caller.name for caller in callers if not caller.has_spec())
    if unknown or not callers:
        pm.unregister(plugin)
        problem = (
            f"implements unknown hooks: {', '.join(unknown)}"
            if unknown
            else "implements no hook (mark ask_wrapper / ask_finished with @hookimpl)"
        )
        raise TypeError(f"{_named(plugin)} is not a valid extension: it {problem}")


def _default_name(pm: pluggy.PluginManager, plugin: object) -> str:
    """A name for an extension added without one, readable in errors: its module's or
    its class's name (``AuditLog``), numbered when taken (``AuditLog#2``)."""
    base = getattr(plugin, "__name__", None)
    if not isinstance(base, str):
        base = type(plugin).__qualname__
    name, number = base, 1
    while pm.has_plugin(name) or pm.is_blocked(name):
        number += 1
        name = f"{base}#{number}"
    return name


def _named(plugin: object) -> str:
    if isinstance(plugin, ModuleType):
        return f"module {plugin.__name__!r}"
    return f"{type(plugin).__qualname__} object"


def check_extension(info: ExtensionInfo) -> UserInteractionError | None:
    """Import and register ``info``'s extension on a scratch plugin manager; the
    ``EXTENSION_FAILED`` error, if any (for ``user-interaction extensions --check``)."""
    try:
        plugin = info.load()
        try:
            _register(_PluginManager(lambda: None), plugin, info.name)
        except (TypeError, ValueError) as exc:
            raise info.failed(f"cannot be registered: {exc}", exc) from exc
    except UserInteractionError as error:
        return error
    return None


def autoloaded(info: ExtensionInfo) -> bool:
    """Whether contexts load ``info`` (autoload on, or named in the variable)."""
    if not os.environ.get(DISABLE_AUTOLOAD_ENV):
        return True
    return info.name in {n.strip() for n in os.environ.get(EXTENSIONS_ENV, "").split(",")}


class _Record:
    """What the chain's innermost call learnt during one ask."""

    __slots__ = ("answer", "asked", "only", "provider", "request", "signal")

    def __init__(self, request: AskUserQuestionRequest) -> None:
        self.request = request  # the caller's, already validated
        self.signal: AbortSignal | None = None  # fires when the caller stops waiting
        self.provider: str | None = None
        self.answer: AskUserQuestionAnswer | None = None  # the provider's validated answer
        self.only: AskUserQuestionRequest | None = None  # the one request the provider got
        self.asked: list[AskUserQuestionRequest] = []  # every request, when more than one


_RECORD: ContextVar[_Record] = ContextVar("user_interaction_ask")

Outcome = tuple[bool, Any]
_Observer = tuple[str, Callable[..., Any]]
#: The arguments of one ``ask_finished`` call.
Finished = tuple[
    AskUserQuestionRequest,
    Union[AskUserQuestionAnswer, None],
    Union[UserInteractionError, None],
    Union[str, None],
    float,
]
_FINISHED_ARGS: Final = ("request", "answer", "error", "provider", "seconds")


def _observer_call(function: Callable[..., Any], argnames: tuple[str, ...]) -> Callable[..., Any]:
    """``function`` called with the five ``ask_finished`` arguments, positionally."""
    if argnames == _FINISHED_ARGS:
        return function
    if not argnames:
        return lambda *arguments: function()
    pick = itemgetter(*[_FINISHED_ARGS.index(name) for name in argnames])
    if len(argnames) == 1:
        return lambda *arguments: function(pick(arguments))
    return lambda *arguments: function(*pick(arguments))


class Extensions:
    """The extensions of one context: ``pm`` and the ask chain composed from it."""

    def __init__(self, ui: UserInteraction) -> None:
        self._ui = ui
        self._lock = RLock()
        self._loaded = False
        self._stale = True
        self._broken: UserInteractionError | None = None  # an extension failed to load
        self._failure: UserInteractionError | None = None  # ... or to build its wrapper
        self._chain: AskFunction | None = None
        self._codes: dict[Any, str] = {}  # each wrapper's ask's code object: its extension
        self._observers: tuple[_Observer, ...] = ()
        self._background: set[Any] = set()
        #: The context's plugin manager (``ui.pluginmanager``).
        self.pm = _PluginManager(self._changed)

    # -- changes ------------------------------------------------------------------------

    def _changed(self) -> None:
        self._stale = True
        self._ui._extended = True

    def add(self, plugin: object, name: str | None) -> Any:
        """Register ``plugin``; the returned ``Disposer`` unregisters it."""
        from ._registration import Disposer

        self._register(plugin, name)
        pm = self.pm

        def remove() -> None:
            if pm.is_registered(plugin):
                pm.unregister(plugin)

        return Disposer(remove)

    def _register(self, plugin: object, name: str | None) -> None:
        _register(self.pm, plugin, _default_name(self.pm, plugin) if name is None else name)

    # -- loading ------------------------------------------------------------------------

    def load(self) -> None:
        """Load the installed extensions and those the environment turns on, once."""
        with self._lock:
            if self._loaded:  # by another thread meanwhile
                return
            self._loaded = True
            errors: list[UserInteractionError] = []
            for info in _selected(errors):
                try:
                    plugin = info.load()
                    try:
                        self._register(plugin, info.name)
                    except (TypeError, ValueError) as exc:
                        raise info.failed(f"cannot be registered: {exc}", exc) from exc
                except UserInteractionError as exc:
                    errors.append(exc)
            self._load_builtins(errors)
            if errors:
                self._broken = _combine(errors)
                self._changed()

    def _load_builtins(self, errors: list[UserInteractionError]) -> None:
        from ._decisions import DECISIONS_ENV
        from .extensions import AuditLog, PreAnswered, RememberedDecisions

        for variable, kind, name in (
            (AUDIT_ENV, AuditLog, "audit"),
            (PREANSWERED_ENV, PreAnswered, "preanswered"),
            (DECISIONS_ENV, RememberedDecisions, "decisions"),
        ):
            path = os.environ.get(variable, "")
            if not path.strip():
                continue
            try:
                self._register(kind(path), name)
            except Exception as exc:
                errors.append(
                    UserInteractionError(
                        f"{variable}={path}: {kind.__name__} failed: {type(exc).__name__}: "
                        f"{exc}. Asks fail until it is fixed; to disable it, unset {variable}.",
                        EXTENSION_FAILED,
                        cause=exc,
                    )
                )

    def use_provider_decisions(self) -> None:
        """Remember approvals in the active provider's own store (the inbox's), once."""
        from ._decisions import ActiveProviderDecisions
        from .extensions import RememberedDecisions

        with self._lock:
            if not self.pm.has_plugin("decisions"):
                store = ActiveProviderDecisions(self._ui)
                self._register(RememberedDecisions(store=store), "decisions")

    # -- composing the chain ------------------------------------------------------------

    def prepare(self) -> None:
        """Load, and compose the chain if the extensions changed since it was composed."""
        if not self._loaded:
            self.load()
        if self._stale:
            self._compose_locked()

    def _compose_locked(self) -> None:
        with self._lock:
            if not self._stale:  # composed by another thread meanwhile
                return
            self._stale = False
            self._failure = None
            self._codes = {}
            try:
                self._chain = self._compose()
            except UserInteractionError as exc:
                self._chain, self._failure = None, exc
            hook = self.pm.hook.ask_finished
            self._observers = tuple(
                (impl.plugin_name, _observer_call(impl.function, tuple(impl.argnames)))
                for impl in reversed(hook.get_hookimpls())
                if not (impl.hookwrapper or impl.wrapper)
            )
            needed = bool(self._chain or self._observers or self._broken or self._failure)
            self._ui._extended = needed or self._stale

    def _compose(self) -> AskFunction | None:
        """The wrappers around :meth:`_innermost`, the first in hook order outermost."""
        ui = self._ui
        wrappers: list[tuple[str, Callable[[AskFunction], Any]]] = []
        for impl in reversed(self.pm.hook.ask_wrapper.get_hookimpls()):
            if impl.hookwrapper or impl.wrapper:
                continue
            try:
                wrap = impl.function(*[ui for _ in impl.argnames])
            except Exception as exc:
                raise _failed(impl.plugin_name, "ask_wrapper() raised", exc) from exc
            if wrap is None:
                continue
            if not callable(wrap):
                raise _failed(
                    impl.plugin_name, f"ask_wrapper() returned {type(wrap).__name__}", None
                )
            wrappers.append((impl.plugin_name, wrap))
        if not wrappers:
            return None
        ask: AskFunction = self._innermost
        for name, wrap in reversed(wrappers):
            try:
                wrapped = wrap(ask)
            except Exception as exc:
                raise _failed(name, "its wrapper raised", exc) from exc
            if not callable(wrapped):
                raise _failed(name, f"its wrapper returned {type(wrapped).__name__}", None)
            code = getattr(wrapped, "__code__", None)
            if code is None:  # a callable object: its __call__ (or the object itself) raises
                code = getattr(type(wrapped).__dict__.get("__call__"), "__code__", None)
            if code is not None:
                self._codes[code] = name
            ask = wrapped
        return ask

    async def _innermost(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """The end of the chain: check the request it is given and ask the provider."""
        record = _RECORD.get()
        if request is not record.request:
            if not isinstance(request, AskUserQuestionRequest):
                raise UserInteractionError(
                    "next_ask(request): expected AskUserQuestionRequest, got "
                    f"{type(request).__name__}",
                    INVALID_REQUEST,
                )
            validate_request(request)
        registration = self._ui._active
        if registration is None:
            registration = self._ui._registration()  # raises NO_PROVIDER
        record.provider = registration.name
        if record.only is None and not record.asked:
            record.only = request  # the common case: one request reaches the provider
        else:  # a wrapper asked more than once: keep them all
            if record.only is not None:
                record.asked.append(record.only)
                record.only = None
            record.asked.append(request)
        signal = record.signal
        if signal is not None and request.signal is not signal:
            if request.signal is not None and request.signal is not record.request.signal:
                signal = AbortSignal.any([request.signal, signal])
            request = with_signal(request, signal)
        answer = await Ask(registration, request, None).run()
        record.answer = answer
        return answer

    # -- asking -------------------------------------------------------------------------
    # The chain runs as a task of its own that the caller stops waiting for at once when
    # its signal fires or the timeout passes (the task is then told and cancelled), and
    # whose outcome, whatever a wrapper raised, is mapped as a provider's would be.

    async def ask(
        self, request: AskUserQuestionRequest, timeout: float | None
    ) -> AskUserQuestionAnswer:
        """Ask through the chain (``request`` has passed the manager's checks), then tell
        the observers."""
        if self._stale or not self._loaded:
            self.prepare()
        if self._broken is not None:
            raise self._broken
        ui = self._ui
        if not ui._extended:  # nothing but the loading was left to do
            return await Ask(ui._registration(), request, timeout).run()
        started = perf_counter()
        deadline = _deadline(request, timeout)
        chain = self._chain
        provider = None
        try:
            if self._failure is not None:
                raise self._failure
            if chain is None:  # observers only: the plain path, timed
                registration = ui._registration()
                provider = registration.name
                answer = await Ask(registration, request, timeout).run()
            else:
                answer, provider = await self._run_chain(chain, request, timeout, deadline)
        except BaseException as exc:
            if self._observers:
                await self._observe(
                    request, None, exc, provider, started=started, deadline=deadline
                )
            raise
        answered_by = ANSWERED_BY.get()
        if answered_by is not None:  # approve() wants to know whether a provider was asked
            answered_by.provider_asked = provider is not None
        if self._observers:
            await self._observe(request, answer, None, provider, started=started, deadline=deadline)
        return answer

    async def _run_chain(
        self,
        chain: AskFunction,
        request: AskUserQuestionRequest,
        timeout: float | None,
        deadline: float | None,
    ) -> tuple[AskUserQuestionAnswer, str | None]:
        """The chain's checked answer and the provider that gave it, or its error mapped:
        a ``UserInteractionError`` as it is, ``KeyboardInterrupt`` and ``SystemExit`` as
        they are, anything else (``GeneratorExit``, a wrapper's own ``CancelledError``)
        ``EXTENSION_FAILED``."""
        record = _Record(request)
        controller = AbortController()
        record.signal = controller.signal
        if deadline is not None:
            record.signal._expire_by(deadline)
        token = _RECORD.set(record)  # the chain's task starts with a copy of this context
        try:
            ok, outcome = await self._waited(chain, record, controller, timeout)
        finally:
            _RECORD.reset(token)
        if not ok:
            if isinstance(outcome, (UserInteractionError, KeyboardInterrupt, SystemExit)):
                raise outcome
            raise self._blame(outcome) from outcome
        return _checked(record, outcome), record.provider

    def _blame(self, exc: BaseException) -> UserInteractionError:
        """``EXTENSION_FAILED`` for what a wrapper raised, naming the innermost wrapper in
        its traceback or its causes' (each wrapper's ``ask`` is known by its code object)."""
        codes = self._codes
        name = None
        error: BaseException | None = exc
        seen: set[int] = set()
        while error is not None and name is None and id(error) not in seen:
            seen.add(id(error))
            traceback = error.__traceback__
            while traceback is not None:
                name = codes.get(traceback.tb_frame.f_code, name)
                traceback = traceback.tb_next
            error = error.__cause__ or error.__context__
        if name is None and len(set(codes.values())) == 1:
            name = next(iter(codes.values()))
        return _failed(name, "its wrapper raised", exc)

    async def _waited(
        self,
        chain: AskFunction,
        record: _Record,
        controller: AbortController,
        timeout: float | None,
    ) -> Outcome:
        """Run the chain as a task the caller stops waiting for when its signal fires or
        the timeout runs out; the task is then told (its signal) and cancelled."""
        aio = _aio()
        loop = aio.get_running_loop()
        coroutine = _settled(chain, record.request)
        if _EAGER:
            task = aio.Task(coroutine, loop=loop, eager_start=True)
        else:
            task = loop.create_task(coroutine)
        if task.done():
            return task.result()  # type: ignore[no-any-return]
        waiter = loop.create_future()

        def settle(outcome: Outcome) -> None:
            if not waiter.done():
                waiter.set_result(outcome)

        def end(error: UserInteractionError) -> None:
            controller.abort(error)
            settle((False, error))

        def finished(done: Any) -> None:
            if done.cancelled():
                settle((False, caller_left()))
            else:
                settle(done.result())

        task.add_done_callback(finished)
        signal = record.request.signal
        remove = None
        if signal is not None:

            def aborted() -> None:
                error = signal.error()
                controller.abort(error)
                try:
                    loop.call_soon_threadsafe(end, error)
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass

            remove = signal.add_callback(aborted)
        timer = None
        if timeout is not None:
            error = UserInteractionError(f"No answer within {timeout:g} s.", ASK_TIMEOUT)
            timer = loop.call_later(timeout, end, error)
        try:
            return await waiter  # type: ignore[no-any-return]
        finally:
            if remove is not None:
                remove()
            if timer is not None:
                timer.cancel()
            if not task.done():
                controller.abort(caller_left())
                task.cancel()

    # -- observing ----------------------------------------------------------------------
    # Observers run on a thread of their own before the caller has the outcome, so an
    # audit line is written when ``ask`` returns; nothing they do changes that outcome.
    # The caller waits for them until its deadline (one second without one) and no more:
    # an observer still running then finishes on its own.

    async def _observe(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: BaseException | None,
        provider: str | None,
        *,
        started: float,
        deadline: float | None,
    ) -> None:
        seconds = perf_counter() - started
        aio = _aio()
        if deadline is None:
            wait = _OBSERVER_WAIT
        else:
            wait = max(deadline - monotonic(), _OBSERVER_MIN_WAIT)
        if error is not None and not isinstance(error, UserInteractionError):
            if not isinstance(error, aio.CancelledError):
                return  # KeyboardInterrupt, SystemExit: not an outcome of the ask
            error = caller_left()
            wait = 0  # the caller is gone: it waits for nothing
        loop = aio.get_running_loop()
        told = loop.create_future()

        def tell() -> None:
            try:
                self.notify((request, answer, error, provider, seconds), loop)
            finally:
                try:
                    loop.call_soon_threadsafe(_set_done, told)
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass

        Thread(target=tell, name="user-interaction ask_finished", daemon=True).start()
        if wait:
            await aio.wait([told], timeout=wait)

    def notify(self, arguments: Finished, loop: Any) -> None:
        """Tell every ``ask_finished`` observer; whatever one raises is logged and ignored.

        An async observer's awaitable runs on in the background on ``loop``, never
        awaited by the ask.
        """
        for name, call in self._observers:
            try:
                result = call(*arguments)
                if result is not None and hasattr(result, "__await__"):
                    self._in_background(name, result, loop)
            except BaseException:
                _logger().exception("ask_finished of extension %r failed", name)

    def _in_background(self, name: str, awaitable: Any, loop: Any) -> None:
        async def observe() -> None:
            try:
                await awaitable
            except (Exception, KeyboardInterrupt, SystemExit):  # never the loop's problem
                _logger().exception("ask_finished of extension %r failed", name)

        try:
            _aio().run_coroutine_threadsafe(observe(), loop)
        except RuntimeError:  # the loop is closed: the observer cannot run
            discard_awaitable(awaitable)


def _deadline(request: AskUserQuestionRequest, timeout: float | None) -> float | None:
    """When the caller stops waiting by itself (``time.monotonic()``), if it does."""
    signal = request.signal
    deadlines = [
        None if timeout is None else monotonic() + timeout,
        None if signal is None else signal.deadline,
    ]
    return min((each for each in deadlines if each is not None), default=None)


def _set_done(future: Any) -> None:
    if not future.done():
        future.set_result(None)


async def _settled(chain: AskFunction, request: AskUserQuestionRequest) -> Outcome:
    """Run the chain as a task: its outcome, never an exception escaping the task."""
    try:
        return True, await chain(request)
    except BaseException as exc:
        return False, exc


def _checked(record: _Record, answer: object) -> AskUserQuestionAnswer:
    """The chain's answer checked against the caller's request (unless it is the
    provider's, already checked against that very request)."""
    request = record.request
    if answer is record.answer and record.only is request:
        return answer  # type: ignore[return-value]
    try:
        checked = validate_answer(request, answer)
    except UserInteractionError as exc:
        message = exc.message.replace("provider answer: ", "")
        raise UserInteractionError(
            f"The answer after the extensions' wrappers is invalid: {message}", INVALID_ANSWER
        ) from None
    if len(checked.answers) != len(request.questions):
        dropped = _dropped(record, checked)
        if dropped is not None:
            raise dropped
    return checked


def _dropped(record: _Record, answer: AskUserQuestionAnswer) -> UserInteractionError | None:
    """``INVALID_ANSWER`` if a question neither reached the provider nor got an answer."""
    answered = {item.id for item in answer.answers}
    requests = record.asked if record.only is None else [record.only]
    asked = {item.id for request in requests for item in request.questions}
    missing = [
        item.id
        for item in record.request.questions
        if item.id not in answered and item.id not in asked
    ]
    if not missing:
        return None
    return UserInteractionError(
        f"The extensions' wrappers dropped questions {', '.join(map(repr, missing))}: "
        "neither answered nor asked of the provider",
        INVALID_ANSWER,
    )


def _failed(name: str | None, problem: str, cause: BaseException | None) -> UserInteractionError:
    detail = "" if cause is None else f" {type(cause).__name__}: {cause}"
    who = "An extension" if name is None else f"Extension {name!r}"
    return UserInteractionError(
        f"{who}: {problem}{':' if detail else ''}{detail}",
        EXTENSION_FAILED,
        cause=cause,
    )


def _combine(errors: list[UserInteractionError]) -> UserInteractionError:
    if len(errors) == 1:
        return errors[0]
    listed = " ".join(f"({n}) {error.message}" for n, error in enumerate(errors, 1))
    return UserInteractionError(
        f"{len(errors)} extensions failed to load: {listed}",
        EXTENSION_FAILED,
        cause=errors[0].__cause__,
    )


def _selected(errors: list[UserInteractionError]) -> list[ExtensionInfo]:
    """The installed extensions to load, in name order (an unknown name is an error)."""
    infos = installed_extensions()
    named = [name.strip() for name in os.environ.get(EXTENSIONS_ENV, "").split(",") if name.strip()]
    if not os.environ.get(DISABLE_AUTOLOAD_ENV):
        chosen = list(infos)
    else:
        chosen = [info for info in infos if info.name in named]
    known = {info.name for info in infos}
    for name in named:
        if name not in known:
            installed = ", ".join(sorted(known)) or "none"
            errors.append(
                UserInteractionError(
                    f"{EXTENSIONS_ENV} names {name!r}, which is not an installed extension "
                    f"(installed: {installed}). Asks fail until it is fixed; to disable it, "
                    f"remove it from {EXTENSIONS_ENV}.",
                    EXTENSION_FAILED,
                )
            )
    return chosen
