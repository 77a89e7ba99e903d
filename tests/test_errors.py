from __future__ import annotations

import pickle

import pytest

import user_interaction as ui_mod
from user_interaction import ERROR_CODES, HarnessError, UserInteractionError

DOCUMENTED_CODES = [
    "EMPTY_QUESTIONS",
    "INVALID_REQUEST",
    "NO_PROVIDER",
    "DUPLICATE_PROVIDER",
    "ASK_ABORTED",
    "ASK_TIMEOUT",
    "ASK_CANCELLED",
    "ASK_DECLINED",
    "INVALID_ANSWER",
    "PROVIDER_FAILED",
    "PROVIDER_DISPOSED",
    "PROVIDER_NOT_FOUND",
    "AMBIGUOUS_PROVIDER",
    "PROVIDER_LOAD_FAILED",
    "RELOAD_FAILED",
    "EXTENSION_FAILED",
]


@pytest.mark.parametrize("code", DOCUMENTED_CODES)
def test_every_code_is_an_importable_constant(code: str) -> None:
    assert getattr(ui_mod, code) == code
    assert code in ui_mod.__all__
    assert code in ERROR_CODES


def test_error_codes_table_has_nothing_extra() -> None:
    assert sorted(ERROR_CODES) == sorted(DOCUMENTED_CODES)


def test_error_shape() -> None:
    cause = ValueError("boom")
    err = UserInteractionError("it broke", "PROVIDER_FAILED", cause=cause)
    assert isinstance(err, HarnessError)
    assert isinstance(err, Exception)
    assert str(err) == "it broke"
    assert err.message == "it broke"
    assert err.code == "PROVIDER_FAILED"
    assert err.name == "UserInteractionError"
    assert err.__cause__ is cause
    assert err.to_dict() == {
        "name": "UserInteractionError",
        "code": "PROVIDER_FAILED",
        "message": "it broke",
    }
    assert HarnessError("x", "Y").name == "HarnessError"


def test_error_without_cause_and_pickling() -> None:
    err = UserInteractionError("gone", "ASK_ABORTED")
    assert err.__cause__ is None
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is UserInteractionError
    assert (copy.message, copy.code) == ("gone", "ASK_ABORTED")
    assert "ASK_ABORTED" in repr(err)


class ToolFailed(HarnessError):
    """A harness's own coded error, as the docs of ``HarnessError`` describe."""


def test_a_harness_derives_its_own_coded_errors_from_harness_error() -> None:
    own = ToolFailed("the linter crashed", "TOOL_FAILED", cause=OSError("exit 2"))
    assert own.to_dict() == {
        "name": "ToolFailed",
        "code": "TOOL_FAILED",
        "message": "the linter crashed",
    }
    copy = pickle.loads(pickle.dumps(own))
    assert (type(copy), copy.code, repr(copy.__cause__)) == (
        ToolFailed,
        "TOOL_FAILED",
        "OSError('exit 2')",
    )
    caught = []
    for error in (own, UserInteractionError("no", "ASK_DECLINED")):
        try:
            raise error
        except UserInteractionError:
            caught.append("asking")
        except HarnessError:
            caught.append("harness")
    assert caught == ["harness", "asking"]
