"""Extensions of a context: its plugin manager, the checks an extension passes to be
registered, and loading the installed ones and those the environment turns on.

Which extensions are installed is discovery's job (``_discovery``); running their
wrappers and observers around an ask is the chain's (``_chain``). The manager owns the
plugin manager made here and recomposes its chain when the plugin manager says it changed.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Callable

import pluggy

from ._discovery import (
    AUDIT_ENV,
    DISABLE_AUTOLOAD_ENV,
    EXTENSION_GROUP,
    EXTENSIONS_ENV,
    PREANSWERED_ENV,
    ExtensionInfo,
    installed_extensions,
)
from ._errors import EXTENSION_FAILED, UserInteractionError
from ._hooks import PROJECT_NAME, ExtensionSpec

__all__ = [
    "AUDIT_ENV",
    "DISABLE_AUTOLOAD_ENV",
    "EXTENSIONS_ENV",
    "EXTENSION_GROUP",
    "PREANSWERED_ENV",
    "ExtensionInfo",
    "ExtensionManager",
    "autoloaded",
    "check_extension",
    "installed_extensions",
    "load_extensions",
    "register_extension",
]


class ExtensionManager(pluggy.PluginManager):
    """A context's plugin manager of extensions; ``changed()`` is called whenever its
    plugins change."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(PROJECT_NAME)
        self._changed = changed
        self.add_hookspecs(ExtensionSpec)

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        self._changed()
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> object:
        removed = super().unregister(plugin, name)
        self._changed()
        return removed

    def set_blocked(self, name: str) -> None:
        super().set_blocked(name)
        self._changed()


def register_extension(pm: pluggy.PluginManager, plugin: object, name: str | None) -> None:
    """Register with pluggy's checks, plus: it implements at least one known hook
    (``TypeError`` otherwise; ``ValueError`` for a name already registered). Without a
    name, it is named after its module or class (``AuditLog``, then ``AuditLog#2``)."""
    if name is None:
        name = _default_name(pm, plugin)
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
        _load_one(ExtensionManager(lambda: None), info)
    except UserInteractionError as error:
        return error
    return None


def _load_one(pm: pluggy.PluginManager, info: ExtensionInfo) -> None:
    plugin = info.load()
    try:
        register_extension(pm, plugin, info.name)
    except (TypeError, ValueError) as exc:
        raise info.failed(f"cannot be registered: {exc}", exc) from exc


def autoloaded(info: ExtensionInfo) -> bool:
    """Whether contexts load ``info`` (autoload on, or named in the variable)."""
    if not os.environ.get(DISABLE_AUTOLOAD_ENV):
        return True
    return info.name in {n.strip() for n in os.environ.get(EXTENSIONS_ENV, "").split(",")}


def load_extensions(pm: pluggy.PluginManager) -> UserInteractionError | None:
    """Register the installed extensions and those the environment turns on; what failed
    to load, as one ``EXTENSION_FAILED`` error (it fails every ask), or ``None``."""
    errors: list[UserInteractionError] = []
    for info in _selected(errors):
        try:
            _load_one(pm, info)
        except UserInteractionError as exc:
            errors.append(exc)
    _load_builtins(pm, errors)
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    listed = " ".join(f"({n}) {error.message}" for n, error in enumerate(errors, 1))
    return UserInteractionError(
        f"{len(errors)} extensions failed to load: {listed}",
        EXTENSION_FAILED,
        cause=errors[0].__cause__,
    )


def _load_builtins(pm: pluggy.PluginManager, errors: list[UserInteractionError]) -> None:
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
            register_extension(pm, kind(path), name)
        except Exception as exc:
            errors.append(
                UserInteractionError(
                    f"{variable}={path}: {kind.__name__} failed: {type(exc).__name__}: "
                    f"{exc}. Asks fail until it is fixed; to disable it, unset {variable}.",
                    EXTENSION_FAILED,
                    cause=exc,
                )
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
