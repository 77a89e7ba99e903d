"""The distribution is installed for real and found through its entry point."""

from __future__ import annotations

import subprocess
import sys

import user_interaction_stdio
from user_interaction_stdio import StdioProvider

from user_interaction import UserInteraction


def test_listed_by_providers() -> None:
    infos = [info for info in UserInteraction().providers() if info.name == "stdio"]
    assert len(infos) == 1
    info = infos[0]
    assert info.value == "user_interaction_stdio:StdioProvider"
    assert info.distribution == "user-interaction-stdio"
    assert info.version == user_interaction_stdio.__version__


def test_use_builds_a_fresh_provider() -> None:
    with UserInteraction() as ui:
        ui.use("stdio")
        provider = ui.provider
        assert isinstance(provider, StdioProvider)
        assert provider.serial is True
        assert repr(ui) == "<UserInteraction provider='stdio'>"


def test_listing_does_not_import_the_provider() -> None:
    code = (
        "import sys\n"
        "from user_interaction import UserInteraction\n"
        "names = [info.name for info in UserInteraction().providers()]\n"
        "assert 'stdio' in names, names\n"
        "assert 'user_interaction_stdio' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
