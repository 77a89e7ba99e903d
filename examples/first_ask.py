"""Ask one real question end to end, with a tiny line-based provider defined here.

Run: python examples/first_ask.py   (type a number, or your own answer, then Enter)
"""

from __future__ import annotations

import sys

from user_interaction import (
    ASK_ABORTED,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


class LineProvider:
    """Reads one line per question from stdin (a sync provider: it runs on a thread)."""

    serial = True

    def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        answers = []
        for item in request.questions:
            print(f"\n[{item.header}] {item.question}" if item.header else f"\n{item.question}")
            for number, option in enumerate(item.options, 1):
                print(f"  {number}. {option.label}")
            print("> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line:
                raise UserInteractionError("End of input.", ASK_ABORTED)
            text = line.strip()
            if text.isdigit() and 1 <= int(text) <= len(item.options):
                answers.append(
                    AskUserQuestionAnswerItem(item.id, [item.options[int(text) - 1].label])
                )
            elif text:
                answers.append(AskUserQuestionAnswerItem(item.id, custom=text))
        return AskUserQuestionAnswer(answers)


def main() -> int:
    request = AskUserQuestionRequest(
        [
            AskUserQuestionItem(
                id="deploy",
                header="Confirm",
                question="Deploy the new build to production?",
                options=[AskUserQuestionOption("Yes"), AskUserQuestionOption("No, wait")],
            )
        ]
    )
    with UserInteraction() as ui:
        ui.register_provider(LineProvider())
        try:
            answer = ui.ask_sync(request, timeout=600)
        except UserInteractionError as exc:
            print(f"error [{exc.code}]: {exc}", file=sys.stderr)
            return 1
    item = answer.get("deploy")
    print("answer:", (item.custom or ", ".join(item.selected)) if item else "(skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
