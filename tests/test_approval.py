"""require_approval: the function runs only on an explicit Yes (or Allow)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    AskUserQuestionItem,
    AskUserQuestionOption,
    UserInteraction,
    UserInteractionError,
    require_approval,
)
from user_interaction.testing import OMIT, SKIP, ScriptedProvider, custom, reject

YES_NO = (AskUserQuestionOption("Yes"), AskUserQuestionOption("No"))


def asked(provider: ScriptedProvider) -> AskUserQuestionItem:
    (request,) = provider.requests
    (item,) = request.questions
    return item


def test_sync_function_runs_on_yes(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    calls = []

    @require_approval(ui)
    def delete_file(path: str, *, force: bool = False) -> str:
        calls.append((path, force))
        return f"deleted {path}"

    scripted.answer(answer="Yes")
    assert delete_file("notes.txt", force=True) == "deleted notes.txt"
    assert calls == [("notes.txt", True)]
    assert "<locals>" in delete_file.__qualname__
    assert asked(scripted) == AskUserQuestionItem(
        "answer",
        "Allow delete_file?",  # named as a person knows it, without <locals>
        header="Approve",
        options=YES_NO,
        detail="path='notes.txt'\nforce=True",
    )


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ("No", ASK_DECLINED),
        (SKIP, ASK_DECLINED),
        (OMIT, ASK_DECLINED),
        (custom("later"), ASK_DECLINED),
        (reject(ASK_CANCELLED), ASK_CANCELLED),
    ],
)
def test_sync_function_does_not_run_without_yes(
    ui: UserInteraction, scripted: ScriptedProvider, spec: Any, code: str
) -> None:
    calls = []

    @require_approval(ui)
    def deploy() -> None:
        calls.append("deploy")

    scripted.answer(answer=spec)
    with pytest.raises(UserInteractionError) as info:
        deploy()
    assert info.value.code == code
    assert calls == []


def test_declined_names_the_function(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    @require_approval(ui)
    def deploy() -> None:
        raise AssertionError("must not run")

    scripted.answer(answer="No")
    with pytest.raises(UserInteractionError, match=r"deploy was not approved"):
        deploy()


def test_async_function_awaits_confirm(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    calls = []

    @require_approval(ui, question="Push to origin?", header="Git")
    async def push(branch: str) -> str:
        calls.append(branch)
        await asyncio.sleep(0)
        return branch

    assert inspect.iscoroutinefunction(push)
    scripted.answer(answer="Yes")
    assert asyncio.run(push("main")) == "main"
    assert asked(scripted) == AskUserQuestionItem(
        "answer", "Push to origin?", header="Git", options=YES_NO, detail="branch='main'"
    )
    scripted.requests.clear()
    scripted.answer(answer="No")
    with pytest.raises(UserInteractionError) as info:
        asyncio.run(push("release"))
    assert info.value.code == ASK_DECLINED
    assert calls == ["main"]


def test_async_function_does_not_block_the_loop(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    """The async wrapper awaits confirm(); confirm_sync() would raise on a running loop."""
    scripted.delay = 0.05
    scripted.answer(answer="Yes")

    @require_approval(ui)
    async def work() -> int:
        return 1

    async def main() -> list[int]:
        ticks = []

        async def tick() -> int:
            for _ in range(3):
                await asyncio.sleep(0.005)
                ticks.append(1)
            return 0

        return [*await asyncio.gather(work(), tick()), len(ticks)]

    assert asyncio.run(main()) == [1, 0, 3]


def test_methods(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    class Repo:
        def __init__(self, name: str) -> None:
            self.name = name

        def __repr__(self) -> str:
            return f"Repo({self.name!r})"

        @require_approval(ui)
        def reset(self, ref: str = "HEAD") -> str:
            return f"{self.name}@{ref}"

        @require_approval(ui, header=None)
        async def fetch(self) -> str:
            return self.name

    scripted.answer(answer="Yes")
    repo = Repo("app")
    assert repo.reset("v1") == "app@v1"
    item = asked(scripted)
    assert item.question == "Allow Repo.reset?"
    assert item.detail == "ref='v1'"  # self is left out

    scripted.requests.clear()
    assert asyncio.run(repo.fetch()) == "app"
    assert (asked(scripted).header, asked(scripted).detail) == (None, None)

    scripted.answer(answer="No")
    with pytest.raises(UserInteractionError):
        repo.reset()


def test_keeps_name_docstring_and_signature(ui: UserInteraction) -> None:
    def plain(path: str, *paths: str, mode: int = 0o644, **extra: object) -> int:
        """Change modes."""
        return 0

    async def coro(url: str, timeout: float = 1.0) -> bytes:
        """Fetch a URL."""
        return b""

    for func in (plain, coro):
        wrapped = require_approval(ui)(func)
        assert wrapped.__name__ == func.__name__
        assert wrapped.__qualname__ == func.__qualname__
        assert wrapped.__doc__ == func.__doc__
        assert inspect.signature(wrapped) == inspect.signature(func)
        assert inspect.iscoroutinefunction(wrapped) == inspect.iscoroutinefunction(func)


def test_detail_binds_every_kind_of_argument(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    @require_approval(ui)
    def run(cmd: str, *args: str, cwd: str = ".", **env: str) -> None:
        pass

    scripted.answer(answer="Yes")
    run("ls", "-l", "-a", PATH="/bin")
    assert asked(scripted).detail == "cmd='ls'\nargs=('-l', '-a')\nenv={'PATH': '/bin'}"


def test_no_arguments_means_no_detail(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    @require_approval(ui)
    def reboot() -> None:
        pass

    scripted.answer(answer="Yes")
    reboot()
    assert asked(scripted).detail is None


def test_each_repr_is_cut_in_its_middle_to_200_characters(
    ui: UserInteraction, scripted: ScriptedProvider
) -> None:
    class Broken:
        def __repr__(self) -> str:
            raise ValueError("no repr")

    @require_approval(ui)
    def write(data: str, short: str, broken: object) -> None:
        pass

    scripted.answer(answer="Yes")
    write("/safe/" + "a" * 1000 + "/../../etc", "y" * 198, Broken())
    detail = asked(scripted).detail
    assert detail is not None
    data, short, broken = detail.split("\n")
    assert data.startswith("data='/safe/aaaa")
    assert data.endswith("…" + "a" * 89 + "/../../etc'")  # the dangerous tail stays
    assert len(data) == len("data=") + 200
    assert short == "short='" + "y" * 198 + "'"  # exactly 200: kept whole
    assert broken.startswith("broken=<") and "Broken object at" in broken


def test_a_wrong_call_fails_before_asking(ui: UserInteraction, scripted: ScriptedProvider) -> None:
    @require_approval(ui)
    def one(value: int) -> int:
        return value

    with pytest.raises(TypeError):
        one(1, 2)  # type: ignore[call-arg]
    assert scripted.requests == []


def test_exported_lazily() -> None:
    import user_interaction

    assert "require_approval" in user_interaction.__all__
    assert user_interaction.require_approval is require_approval
