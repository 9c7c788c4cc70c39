"""The error codes, from the one registry (``pressroom.error_codes``)."""

from __future__ import annotations

from pressroom.docs.markdown import cell, generated_header, table


def page() -> str:
    from pressroom.error_codes import BY_CODE

    lines = generated_header(
        "Error codes",
        ["`src/pressroom/error_codes.py`"],
        "Every answer that is not a 2xx has the body "
        '`{"success": false, "error": {"code", "message", "field"}}` (see '
        "[API conventions](api.md)). Clients decide whether a request may succeed when "
        "sent again by its code first, and by its status only for a code this table does "
        "not know (408, 429 and 5xx are transient): so a `rate_limited` 429 is retried and "
        "an `upload_quota_exceeded` 429 is not (`pressroom.error_codes.is_transient`).",
    )
    entries = sorted(BY_CODE.values(), key=lambda e: (e.status, e.code))
    rows = [
        [f"`{e.code}`", str(e.status), "transient" if e.transient else "final", cell(e.summary)]
        for e in entries
    ]
    lines += [*table(["code", "status", "retry", "meaning"], rows), ""]
    return "\n".join(lines)


def error_codes() -> list[str]:
    from pressroom.error_codes import BY_CODE

    return list(BY_CODE)
