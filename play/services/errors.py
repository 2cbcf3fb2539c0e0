"""The two refusals of live play, raised by its services and answered by the sockets
and pages with the code and message they carry."""

from __future__ import annotations

from django.core.exceptions import ValidationError


class SeatError(ValidationError):
    """A player cannot sit down (or leave) here; the message says why."""


class PlayError(Exception):
    """A live-table request refused: `code` is the protocol's error code (docs/protocol.md)
        and the message is in the active language, fit to show the player. `field`: the
        request's field refused, where the protocol names it (the lobby's `open_table`);
    `limit` and `retry_after`: the limit a refusal is for (docs/protocol.md §3)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        limit: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        # A limit's refusal: its key (contract.codes.LIMITS) and, for a limit that time
        # frees, the whole seconds to wait.
        self.limit = limit
        self.retry_after = retry_after

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}
