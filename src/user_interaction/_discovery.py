"""Entry-point discovery of installed providers.

Listing never imports a provider. The scan reads each distribution's
``entry_points.txt`` through :mod:`importlib.metadata` (the backport below Python 3.10)
and parses only those that mention our group. Its result is cached behind a cheap
fingerprint of ``sys.path`` (directory mtimes and every ``entry_points.txt``'s stat), so a
repeated call costs a few stats while an install, an uninstall or an edited
``entry_points.txt`` is still seen on the very next call.
"""

from __future__ import annotations

import os
import re
import sys
from _thread import allocate_lock
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Final,
    Generic,
    Iterable,
    Mapping,
    Protocol,
    TypeVar,
)

import attrs

from ._errors import (
    AMBIGUOUS_PROVIDER,
    NO_PROVIDER,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    UserInteractionError,
)

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROVIDER_ENV",
    "ProviderInfo",
    "Ranking",
    "best_provider",
    "find_provider",
    "installed_providers",
    "rank_providers",
]

#: The entry-point group providers are registered under.
ENTRY_POINT_GROUP: Final = "user_interaction.providers"
#: Environment variable naming the provider ``use()`` picks when given no name.
PROVIDER_ENV: Final = "USER_INTERACTION_PROVIDER"

_META_SUFFIXES: Final = (".dist-info", ".egg-info")


class _Listed(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def distribution(self) -> str: ...


_Info = TypeVar("_Info", bound=_Listed)


@attrs.frozen
class ProviderInfo:
    """An installed provider, as listed without importing it."""

    #: The entry point's name, the name ``use()`` takes.
    name: str
    #: The entry point's object reference, ``module:attr``.
    value: str
    #: The distribution that offers it, and its version.
    distribution: str
    version: str
    _entry_point: EntryPoint = attrs.field(eq=False, repr=False, alias="entry_point")

    @property
    def module(self) -> str:
        """The module the entry point imports."""
        return self.value.partition(":")[0].strip()

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


def _metadata() -> Any:
    if sys.version_info >= (3, 10):
        from importlib import metadata
    else:  # the selection API (EntryPoints.select, deduplication) needs the backport
        import importlib_metadata as metadata
    return metadata


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _section(text: str, group: str = ENTRY_POINT_GROUP) -> list[tuple[str, str]]:
    """The ``name = value`` pairs of our group in an ``entry_points.txt``.

    Parsed here, line by line, so one garbled line (or a garbled other group) skips only
    itself instead of hiding the whole distribution.
    """
    pairs: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            inside = line[1:-1].strip() == group
            continue
        if inside:
            name, equals, value = line.partition("=")
            if equals and name.strip() and value.strip():
                pairs.append((name.strip(), value.strip()))
    return pairs


class _Scanner(Generic[_Info]):
    """Caches the scan of one entry-point group until the fingerprint of ``sys.path``
    changes; ``make(name, value, distribution, version, entry_point)`` builds each row."""

    def __init__(self, group: str, make: Callable[[str, str, str, str, EntryPoint], _Info]) -> None:
        self._group = group
        self._make = make
        self._lock = allocate_lock()
        self._fingerprint: object = None
        self._providers: tuple[_Info, ...] = ()
        self._listings: dict[str, tuple[int, tuple[str, ...]]] = {}

    def providers(self) -> tuple[_Info, ...]:
        with self._lock:
            fingerprint = self._take_fingerprint()
            if fingerprint != self._fingerprint:
                import importlib

                importlib.invalidate_caches()
                self._providers = self._scan()
                self._fingerprint = fingerprint
            return self._providers

    def _take_fingerprint(self) -> object:
        stat = os.stat
        join = os.path.join
        listings = self._listings
        parts: list[object] = []
        for entry in sys.path:
            root = entry or "."
            try:
                status = stat(root)
            except OSError:
                parts.append(None)
                continue
            mtime = status.st_mtime_ns
            parts.append(mtime)
            cached = listings.get(root)
            if cached is not None and cached[0] == mtime:
                names = cached[1]
            else:
                try:
                    names = tuple(n for n in os.listdir(root) if n.endswith(_META_SUFFIXES))
                except OSError:  # a zip file or an unreadable directory: its stat suffices
                    names = ()
                listings[root] = (mtime, names)
            for name in names:
                try:
                    found = stat(join(root, name, "entry_points.txt"))
                except OSError:
                    parts.append(None)
                else:
                    parts.append((found.st_mtime_ns, found.st_size))
        parts.append(tuple(sys.path))
        return parts

    def _scan(self) -> tuple[_Info, ...]:
        metadata = _metadata()
        group = self._group
        found: list[_Info] = []
        seen: set[str] = set()
        for dist in metadata.distributions():
            try:
                text = dist.read_text("entry_points.txt")
                if not text or group not in text:
                    continue
                name = dist.metadata["Name"] or "?"
            except Exception:  # an unreadable distribution hides only itself
                continue
            key = _normalize(name)
            if key in seen:  # the same distribution found twice on sys.path
                continue
            seen.add(key)
            version = dist.version or "?"
            for entry_name, value in _section(text, group):
                try:
                    entry_point = metadata.EntryPoint(entry_name, value, group)
                except ValueError as exc:  # the backport (Python < 3.10) checks the value
                    entry_point = _Unloadable(exc)  # listed; it fails to load, saying why
                found.append(self._make(entry_name, value, name, version, entry_point))
        found.sort(key=lambda info: (info.name, info.distribution))
        return tuple(found)


class _Unloadable:
    """Stands for an entry point whose value is no object reference, which the
    ``importlib_metadata`` backport refuses to build: like on Python 3.10+, the provider is
    listed, and loading it fails with the reason (``PROVIDER_LOAD_FAILED``)."""

    def __init__(self, error: ValueError) -> None:
        self._error = error

    def load(self) -> object:
        raise self._error


_SCANNER: Final = _Scanner(
    ENTRY_POINT_GROUP,
    lambda name, value, distribution, version, entry_point: ProviderInfo(
        name=name,
        value=value,
        distribution=distribution,
        version=version,
        entry_point=entry_point,
    ),
)


def installed_providers() -> tuple[ProviderInfo, ...]:
    """Every installed provider, sorted by name (nothing is imported)."""
    return _SCANNER.providers()


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
