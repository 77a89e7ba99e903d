"""Entry-point discovery of installed providers and extensions.

Listing never imports a provider or an extension: it reads each distribution's entry
points through :mod:`importlib.metadata`, each distribution on its own, so one with a
garbled ``entry_points.txt`` hides only itself. Nothing is cached: an install, an
uninstall or an edit is seen on the very next call.
"""

from __future__ import annotations

import os
import re
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Final, Iterable, Mapping, TypeVar

import attrs

from ._errors import (
    AMBIGUOUS_PROVIDER,
    EXTENSION_FAILED,
    NO_PROVIDER,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    UserInteractionError,
)

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "AUDIT_ENV",
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "EXTENSIONS_ENV",
    "EXTENSION_GROUP",
    "PREANSWERED_ENV",
    "PROVIDER_ENV",
    "EntryPointInfo",
    "ExtensionInfo",
    "ProviderInfo",
    "Ranking",
    "best_provider",
    "find_provider",
    "installed_extensions",
    "installed_providers",
    "rank_providers",
    "scan",
]

#: The entry-point group providers are registered under.
ENTRY_POINT_GROUP: Final = "user_interaction.providers"
#: Environment variable naming the provider ``use()`` picks when given no name.
PROVIDER_ENV: Final = "USER_INTERACTION_PROVIDER"
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

_Info = TypeVar("_Info")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def scan(group: str, make: Callable[[str, str, str, str, EntryPoint], _Info]) -> tuple[_Info, ...]:
    """Every entry point of ``group``, as ``make(name, value, distribution, version,
    entry_point)``, sorted by name then distribution; a distribution found twice on
    ``sys.path`` counts once (the first), one that cannot be read hides only itself."""
    from importlib import metadata

    found: list[_Info] = []
    seen: set[str] = set()
    header = f"[{group}]"
    for dist in metadata.distributions():
        try:
            # Only a file that names the group can hold one of its entry points: most do
            # not, and importlib.metadata parses only the ones that do.
            text = dist.read_text("entry_points.txt")
            if text is None or header not in text:
                continue
            entry_points = [ep for ep in dist.entry_points if ep.group == group]
            if not entry_points:
                continue
            name = dist.metadata["Name"] or "?"
        except Exception:  # a garbled distribution hides only itself
            continue
        key = _normalize(name)
        if key in seen:
            continue
        seen.add(key)
        version = dist.version or "?"
        for entry_point in entry_points:
            found.append(make(entry_point.name, entry_point.value, name, version, entry_point))
    found.sort(key=lambda info: (info.name, info.distribution))  # type: ignore[attr-defined]
    return tuple(found)


@attrs.frozen
class EntryPointInfo:
    """An installed entry point, as listed without importing it."""

    #: The entry point's name.
    name: str
    #: The entry point's object reference, ``module:attr`` (or a module).
    value: str
    #: The distribution that offers it, and its version.
    distribution: str
    version: str
    _entry_point: EntryPoint = attrs.field(eq=False, repr=False, alias="entry_point")

    @property
    def module(self) -> str:
        """The module the entry point imports."""
        return self.value.partition(":")[0].strip()


@attrs.frozen
class ProviderInfo(EntryPointInfo):
    """An installed provider, as listed without importing it (its ``name`` is the name
    ``use()`` takes)."""

    def load(self, **options: object) -> object:
        """Import the module and return the provider instance it offers.

        The entry point's object is a provider class or factory (called now with
        ``options`` as keyword arguments, so every activation gets a fresh instance) or a
        ready provider object. Any failure is ``PROVIDER_LOAD_FAILED`` with the original
        error as the cause.
        """
        return self.build(self.target(), options)

    def target(self) -> object:
        """The entry point's object (its module imported), not yet built."""
        import importlib

        importlib.invalidate_caches()  # a module installed a moment ago is found too
        try:
            return self._entry_point.load()
        except (Exception, SystemExit) as exc:
            raise self._failed(f"failed to import: {type(exc).__name__}: {exc}", exc) from exc

    def build(self, target: object, options: Mapping[str, object] | None = None) -> object:
        """Turn the entry point's object into a provider instance, with ``options``."""
        options = dict(options or {})
        if isinstance(target, type) or (callable(target) and not hasattr(target, "ask")):
            try:
                target = target(**options)
            except UserInteractionError as exc:
                if exc.code in _LOADING_ERRORS:  # a provider it loads failed (any's child)
                    raise
                raise self._failed(
                    f"failed to construct: {type(exc).__name__}: {exc}", exc
                ) from exc
            except TypeError as exc:
                if options:  # most likely an option it does not take: say which were given
                    given = ", ".join(sorted(options))
                    raise self._failed(f"rejected the options {given}: {exc}", exc) from exc
                raise self._failed(f"failed to construct: TypeError: {exc}", exc) from exc
            except (Exception, SystemExit) as exc:
                raise self._failed(
                    f"failed to construct: {type(exc).__name__}: {exc}", exc
                ) from exc
        elif options:
            given = ", ".join(sorted(options))
            raise self._failed(f"is a ready provider object and takes no options ({given})", None)
        if not callable(getattr(target, "ask", None)):
            raise self._failed(f"{type(target).__name__} object has no ask(request) method", None)
        return target

    def rank(self) -> Ranking:
        """Its ``priority`` and whether it is ``available()`` here, read from the
        entry point's object without building a provider (its module is imported)."""
        target = self.target()
        priority = getattr(target, "priority", 0)
        if isinstance(priority, bool) or not isinstance(priority, (int, float)):
            raise self._failed(f"has a priority that is not a number: {priority!r}", None)
        available = getattr(target, "available", None)
        if available is None:
            return Ranking(self, priority, True, "")
        try:
            ok = bool(available())
        except Exception as exc:
            raise self._failed(f"available() raised {type(exc).__name__}: {exc}", exc) from exc
        reason = "" if ok else _first_line(getattr(available, "__doc__", None))
        return Ranking(self, priority, ok, reason)

    def _failed(self, problem: str, cause: BaseException | None) -> UserInteractionError:
        return UserInteractionError(
            f"provider {self.name!r} ({self.value}, from {self.distribution} {self.version}) "
            f"{problem}",
            PROVIDER_LOAD_FAILED,
            cause=cause,
        )


@attrs.frozen
class Ranking:
    """How an installed provider ranks when ``use()`` is given no name."""

    info: ProviderInfo
    priority: float
    available: bool
    #: Why it is not available (the first line of its ``available()`` docstring), or "".
    reason: str


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    # a docstring's reStructuredText literals read as plain text: ``use("mcp")`` -> use("mcp")
    return re.sub(r"``(.+?)``", r"\1", lines[0].strip()) if lines else ""


def installed_providers() -> tuple[ProviderInfo, ...]:
    """Every installed provider, sorted by name (nothing is imported)."""
    return scan(ENTRY_POINT_GROUP, ProviderInfo)


@attrs.frozen
class ExtensionInfo(EntryPointInfo):
    """An installed extension, as listed without importing it."""

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
            isinstance(target, ModuleType)
            or not callable(target)
            or any(hasattr(target, hook) for hook in ("ask_wrapper", "ask_finished"))
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


def installed_extensions() -> tuple[ExtensionInfo, ...]:
    """Every installed extension, sorted by name (nothing is imported)."""
    return scan(EXTENSION_GROUP, ExtensionInfo)


def _describe(infos: tuple[ProviderInfo, ...]) -> str:
    if not infos:
        return f"no providers are installed (entry-point group {ENTRY_POINT_GROUP!r})"
    names = ", ".join(sorted({info.name for info in infos}))
    return f"installed providers: {names}"


_HOW: Final = f"choose one with use(name) or {PROVIDER_ENV}=<name>"


#: Errors of loading a provider, passed on as they are by a provider that loads others.
_LOADING_ERRORS: Final = frozenset(
    {PROVIDER_NOT_FOUND, AMBIGUOUS_PROVIDER, PROVIDER_LOAD_FAILED, NO_PROVIDER}
)


def find_provider(name: str | None = None, *, exclude: Iterable[str] = ()) -> ProviderInfo:
    """The one installed provider called ``name`` (or the best available one), unloaded.

    ``name`` may be ``"distribution:provider"`` to pick one of two distributions that offer
    one name. With no name: ``USER_INTERACTION_PROVIDER`` if set, else the available
    provider of highest priority — leaving out the providers named in ``exclude`` (a
    command answering the inbox's asks never picks the inbox itself to ask the human).
    """
    infos = installed_providers()
    origin = ""
    if name is None:
        left_out = set(exclude)
        chosen = os.environ.get(PROVIDER_ENV, "").strip()
        if chosen.startswith("any:"):  # any:tui,inbox: the any provider reads its children
            chosen = "any"
        if not chosen or chosen.rpartition(":")[2] in left_out:
            return best_provider(tuple(info for info in infos if info.name not in left_out))
        name, origin = chosen, f" (from {PROVIDER_ENV})"
    distribution, colon, wanted = name.rpartition(":")
    if colon:
        matches = [
            info
            for info in infos
            if info.name == wanted and _normalize(info.distribution) == _normalize(distribution)
        ]
    else:
        matches = [info for info in infos if info.name == name]
    if not matches:
        import difflib

        names = sorted({info.name for info in infos})
        close = difflib.get_close_matches(wanted if colon else name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UserInteractionError(
            f"No installed provider is named {name!r}{origin}; {_describe(infos)}{hint}",
            PROVIDER_NOT_FOUND,
        )
    if len(matches) > 1:
        offered = " and ".join(
            f"{info.distribution} {info.version} ({info.value})" for info in matches
        )
        pick = " or ".join(f"'{info.distribution}:{info.name}'" for info in matches)
        raise UserInteractionError(
            f"Provider name {name!r}{origin} is offered by more than one distribution: "
            f"{offered}; pick one with {pick}",
            AMBIGUOUS_PROVIDER,
        )
    return matches[0]


def rank_providers(infos: tuple[ProviderInfo, ...]) -> list[Ranking | UserInteractionError]:
    """Each provider's ranking, or why its entry point failed to load (imports them)."""
    ranked: list[Ranking | UserInteractionError] = []
    for info in infos:
        try:
            ranked.append(info.rank())
        except UserInteractionError as error:
            ranked.append(error)
    return ranked


def best_provider(infos: tuple[ProviderInfo, ...]) -> ProviderInfo:
    """The available provider of highest priority, like keyring's backends.

    One that fails to import is skipped (logged); none available, or a tie at the top, is
    ``PROVIDER_NOT_FOUND`` naming the candidates and how to choose.
    """
    if not infos:
        raise UserInteractionError(
            f"No provider to use: {_describe(infos)}; try: pip install user-interaction-stdio",
            PROVIDER_NOT_FOUND,
        )
    available: list[Ranking] = []
    summary: list[str] = []
    for outcome in rank_providers(infos):
        if isinstance(outcome, UserInteractionError):
            import logging

            logging.getLogger("user_interaction").warning("skipped: %s", outcome.message)
            summary.append(f"{outcome.message.split(' (')[0]} (fails to load)")
            continue
        state = "available" if outcome.available else "unavailable"
        if outcome.reason:
            state += f": {outcome.reason}"
        summary.append(f"{outcome.info.name} (priority {outcome.priority:g}, {state})")
        if outcome.available:
            available.append(outcome)
    candidates = "; ".join(summary)
    if not available:
        raise UserInteractionError(
            f"No installed provider is available here ({candidates}); {_HOW}",
            PROVIDER_NOT_FOUND,
        )
    available.sort(key=lambda ranking: -ranking.priority)
    if len(available) > 1 and available[0].priority == available[1].priority:
        tied = " and ".join(
            repr(r.info.name) for r in available if r.priority == available[0].priority
        )
        raise UserInteractionError(
            f"No provider chosen: {tied} tie at priority {available[0].priority:g} "
            f"({candidates}); {_HOW}",
            PROVIDER_NOT_FOUND,
        )
    return available[0].info
