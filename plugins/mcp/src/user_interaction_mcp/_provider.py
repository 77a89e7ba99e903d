"""The provider: asks through the form elicitation of the MCP client whose tool call is
asking (see ``@interactive``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Final

from mcp.shared.exceptions import MCPError
from mcp_types import ElicitResult
from pydantic import ValidationError

from user_interaction import (
    INVALID_ANSWER,
    PROVIDER_FAILED,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    hookimpl,
)

from ._form import FormPlan
from ._interactive import Binding, current_binding, interactive

if TYPE_CHECKING:
    from user_interaction import AbortSignal

__all__ = ["McpProvider", "interactive"]


class McpProvider:
    """Asks in the MCP client that called the running tool: one form per request.

    The tool is decorated with :func:`interactive` (under ``@server.tool()``), which tells
    the provider which call it runs in. On a 2025-11-25 (legacy) session the form is an
    ``elicitation/create`` request sent mid-tool; abort and timeout withdraw it (the client
    gets ``notifications/cancelled``). On a 2026-07-28 session the tool returns the form
    as an ``InputRequiredResult`` and runs again with the answer (see :func:`interactive`).

    Where no form can be sent (no ``@interactive`` call, a client without form
    elicitation, a 2025-11-25 session without a back-channel such as stateless HTTP) the
    ask fails with ``PROVIDER_FAILED`` naming the fix, and nothing is sent.
    """

    #: The name the manager reports for this provider.
    name: Final = "mcp"

    @staticmethod
    def available() -> bool:
        """Never chosen implicitly: an MCP server names it (``use("mcp")``)."""
        return False

    def __repr__(self) -> str:
        return "<McpProvider>"

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show ``request`` as one form in the calling MCP client and return the answer."""
        binding = current_binding()
        if binding is None:
            raise UserInteractionError(
                "The mcp provider asks from inside an MCP tool call, and this ask is not in "
                "one: decorate the tool with @user_interaction_mcp.interactive (under "
                "@server.tool()) and give it a 'ctx: Context' parameter.",
                PROVIDER_FAILED,
            )
        _check_client(binding)
        plan = FormPlan(request.questions)
        signal = request.signal
        assert signal is not None  # the manager always hands over the ask's own signal
        if binding.replay is not None:
            action, content = await binding.replay.outcome(plan, signal)
        else:
            result = await _elicit(binding, plan, signal)
            action, content = result.action, result.content
        return plan.read(action, content)


def _check_client(binding: Binding) -> None:
    """Fail before sending anything when this call cannot show a form."""
    session = binding.context.session
    if binding.replay is None and not session.can_send_request:
        raise UserInteractionError(
            "This MCP session cannot send the client a request mid-tool (a 2025-11-25 "
            "session without a back-channel, such as stateless streamable HTTP): run the "
            "server over stdio or stateful HTTP (stateless_http=False), or let the client "
            "connect at protocol 2026-07-28.",
            PROVIDER_FAILED,
        )
    capabilities = session.client_capabilities
    elicitation = None if capabilities is None else capabilities.elicitation
    # An empty "elicitation": {} means form support (as before modes existed).
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        raise UserInteractionError(
            "The MCP client did not declare form elicitation, so it cannot show a question: "
            "connect with a client that supports elicitation (an SDK client passes "
            "elicitation_callback=), or ask through another provider.",
            PROVIDER_FAILED,
        )


async def _elicit(binding: Binding, plan: FormPlan, signal: AbortSignal) -> ElicitResult:
    """Send the form on the server's loop (from this one or any other) and await the reply,
    unless the signal fires first: then the request is cancelled."""
    context = binding.context
    sending = context.session.elicit_form(
        plan.message, plan.schema, related_request_id=context.request_id
    )
    try:
        if asyncio.get_running_loop() is binding.loop:
            return await signal.race(sending)
        try:
            there = asyncio.run_coroutine_threadsafe(sending, binding.loop)
        except RuntimeError as exc:  # the server's loop has closed
            sending.close()
            raise UserInteractionError(
                "The MCP tool call this ask belongs to has ended (its server loop is closed).",
                PROVIDER_FAILED,
                cause=exc,
            ) from exc
        return await signal.race(asyncio.wrap_future(there))
    except UserInteractionError:
        raise
    except ValidationError as exc:
        raise UserInteractionError(
            f"The MCP client's reply to the form is no valid elicitation result: {_brief(exc)}",
            INVALID_ANSWER,
            cause=exc,
        ) from exc
    except MCPError as exc:
        raise UserInteractionError(
            f"The MCP client answered elicitation/create with error {exc.error.code}: "
            f"{exc.error.message}",
            PROVIDER_FAILED,
            cause=exc,
        ) from exc


def _brief(error: Any) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 300 else text[:299] + "…"
