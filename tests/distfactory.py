"""Write real distributions (dist-info + modules) into a directory put on ``sys.path``."""

from __future__ import annotations

import textwrap
from pathlib import Path

GROUP = "user_interaction.providers"

PROVIDER_SOURCE = """
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem

VERSION = {version!r}


class Provider:
    def ask(self, request):
        return AskUserQuestionAnswer(
            [AskUserQuestionAnswerItem(item.id, custom=VERSION) for item in request.questions]
        )
"""


def make_dist(
    root: Path,
    name: str,
    version: str = "1.0",
    entry_points: dict[str, str] | None = None,
    *,
    modules: dict[str, str] | None = None,
    other_groups: bool = False,
    group: str = GROUP,
) -> Path:
    """Create ``name-version.dist-info`` under ``root``; returns that directory."""
    dist_info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines: list[str] = []
    if other_groups:
        lines += ["[console_scripts]", f"{name}-cli = {name.replace('-', '_')}:main", ""]
    if entry_points is not None:
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entry_points.items()]
    if lines:
        (dist_info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for relative, source in (modules or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return dist_info
