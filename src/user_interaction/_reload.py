"""Re-importing a provider's code from source, for ``UserInteraction.reload()``.

The provider's top-level package (every module under it) is imported afresh into new
module objects: the running provider keeps its old code until it is swapped out, and a
failed import or construction puts the old modules back, so nothing changes. Byte-code
caches are bypassed so an edit is seen even within the same second.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Mapping, TypeVar

from ._errors import RELOAD_FAILED, UserInteractionError

if TYPE_CHECKING:
    from ._discovery import ProviderInfo

__all__ = ["reimport_provider"]

T = TypeVar("T")

_CORE = __name__.partition(".")[0]
#: Where no byte-code cache can be: under the null device, never a directory.
_NO_CACHE = os.path.join(os.devnull, "bytecode")


def _failed(message: str, cause: BaseException | None = None) -> UserInteractionError:
    return UserInteractionError(
        f"Reload failed, the previous provider stays active: {message}", RELOAD_FAILED, cause=cause
    )


def _resolve(root: ModuleType, qualname: str) -> object:
    target: object = root
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def reimport_provider(
    provider: object,
    origin: ProviderInfo | None,
    options: Mapping[str, object],
    register: Callable[[object], T],
) -> T:
    """``register(fresh)``, where ``fresh`` is built from freshly imported code the way the
    first provider was built.

    Any failure, ``register`` rejecting the new provider included (its ``ask`` changed
    signature or vanished), is ``RELOAD_FAILED`` with ``sys.modules`` as it was.
    """
    if origin is not None:
        module_name = origin.module
    elif isinstance(provider, ModuleType):
        module_name = provider.__name__
    else:
        module_name = type(provider).__module__
        qualname = type(provider).__qualname__
        if "<locals>" in qualname:
            raise _failed(f"{qualname} is defined inside a function and cannot be re-imported")
    if module_name == "__main__":
        raise _failed("a provider defined in __main__ cannot be re-imported")
    package = module_name.partition(".")[0]
    if package == _CORE:
        raise _failed(f"{module_name} belongs to the user_interaction core")

    owned = [
        name for name in list(sys.modules) if name == package or name.startswith(package + ".")
    ]
    saved = {name: sys.modules[name] for name in owned}
    for name in owned:
        del sys.modules[name]
    importlib.invalidate_caches()
    previous = sys.pycache_prefix, sys.dont_write_bytecode
    # A byte-code cache that does not exist and is not written: every module compiles
    # from its source, so an edit in the same second and of the same size is seen.
    sys.pycache_prefix, sys.dont_write_bytecode = _NO_CACHE, True
    try:
        module = importlib.import_module(module_name)
        if origin is not None:
            fresh = origin.build(origin._entry_point.load(), options)
        elif isinstance(provider, ModuleType):
            fresh = module
        else:
            factory = _resolve(module, qualname)
            if not isinstance(factory, type):
                raise TypeError(f"{module_name}.{qualname} is no longer a class")
            fresh = factory()
        return register(fresh)
    except BaseException as exc:
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
        sys.modules.update(saved)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        detail = (
            exc.message if isinstance(exc, UserInteractionError) else f"{type(exc).__name__}: {exc}"
        )
        raise _failed(f"{module_name}: {detail}", exc) from exc
    finally:
        sys.pycache_prefix, sys.dont_write_bytecode = previous
