"""pressroom's own log lines of a run, in the run's logs in the Prefect UI.

Prefect sends the loggers named in ``PREFECT_LOGGING_EXTRA_LOGGERS`` (set by
``prefect_settings.CLIENT``: ``pressroom.pipeline`` and ``pressroom.client``) to its API,
tied to the flow or task run that logged them, but gives them only its handlers, not a
level: ``attach`` lets their INFO lines (uploads, waits, look-ups, retries with their
reasons) through, and masks anything that looks like an API key on the way out.
"""

from __future__ import annotations

import logging
import os
import re

from pressroom import log_safety

RUN_LOGGERS = ("pressroom.pipeline", "pressroom.client")
_KEY = re.compile(r"\bprk_(?:live|test)_[A-Za-z0-9_\-]+")


class RedactSecrets(logging.Filter):
    """Masks API keys (``prk_live_…``, and the one in ``PRESSROOM_API_KEY``) in a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def redact(text: str) -> str:
    key = os.environ.get("PRESSROOM_API_KEY")
    if key and len(key) >= 8:
        text = text.replace(key, "***")
    return log_safety.scrub(_KEY.sub("prk_***", text))


def attach() -> None:
    """Let the run loggers' INFO lines reach Prefect's run logs, with keys masked, and
    keep URLs' paths and queries out of every line of the process (``log_safety``: our
    httpx client's request lines would show presigned upload URLs whole)."""
    log_safety.install()
    for name in RUN_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
        # On the handlers (Prefect's, attached to these loggers), so the records of child
        # loggers (pressroom.pipeline.steps) pass through it too.
        for handler in logger.handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(RedactSecrets())
