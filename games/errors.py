"""Rules errors: a `ValueError` with a stable code and a plain message."""

from __future__ import annotations

# The codes a hand record or a live action can fail with (docs/hand-record.md §5).
BAD_RECORD = "bad_record"
INVALID_DECK = "invalid_deck"
DECK_EXHAUSTED = "deck_exhausted"
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL_ACTION = "illegal_action"
BAD_AMOUNT = "bad_amount"
FAIRNESS_MISMATCH = "fairness_mismatch"


class RulesError(ValueError):
    """An action or record the rules do not allow; `code` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}
