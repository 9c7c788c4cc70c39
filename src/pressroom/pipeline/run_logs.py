"""pressroom's own log lines of a run, in the run's logs in the Prefect UI.

Prefect sends the loggers named in ``PREFECT_LOGGING_EXTRA_LOGGERS`` (set by
``prefect_settings.CLIENT``: ``pressroom.pipeline`` and ``pressroom.client``) to its API,
tied to the flow or task run that logged them, but gives them only its handlers, not a
level: ``attach`` lets their INFO lines (waits, look-ups, the client's retries) through,
and masks anything that looks like an API key on the way out. Those lines go to the
console too, through Prefect's console handler on the root logger.

``RUN_LOG`` carries the lines a run's log needs and the console never showed: each
upload, each readiness wait and each publish result. It sends to Prefect's API handler
only, so the console keeps its one line per task and the results table. A retry needs no
line of ours: Prefect logs each one in the task run with the failure that caused it, and
the wait a ``Retry-After`` asked for is a ``pressroom.pipeline`` line.

``attach`` runs wherever a task runs (``tasks.common`` calls it on import: the flow's
process, and each Dask worker that unpickles a task); without it a worker's pressroom
loggers keep Python's default WARNING and drop every INFO line.
"""

from __future__ import annotations

import logging
import os
import re

from pressroom import log_safety

RUN_LOGGERS = ("pressroom.pipeline", "pressroom.client")
RUN_LOG = logging.getLogger(__name__)
"""Lines for the run's logs in Prefect alone, not the console."""
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
    httpx client's request lines would show presigned upload URLs whole).

    Called after Prefect is imported (which sets its logging up); calling it again
    changes nothing."""
    from prefect.logging.handlers import APILogHandler

    log_safety.install()
    # Prefect's API handler, as Prefect gives it to its extra loggers.
    api = [h for h in logging.getLogger("prefect.extra").handlers if isinstance(h, APILogHandler)]
    for name in RUN_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
        if not any(isinstance(h, APILogHandler) for h in logger.handlers):
            # Prefect's logging was set up before PREFECT_LOGGING_EXTRA_LOGGERS named
            # this logger (a process that imported Prefect first, a worker started
            # without the setting): the lines would stay on the console.
            for api_handler in api:
                logger.addHandler(api_handler)
        for handler in logger.handlers:
            _mask(handler)
            if isinstance(handler, APILogHandler):
                _within_runs(handler)
    RUN_LOG.setLevel(logging.INFO)
    RUN_LOG.propagate = False  # the console handler is the root's
    for api_handler in api:
        _mask(api_handler)
        _within_runs(api_handler)
        if not any(isinstance(f, OneLinePerSuccess) for f in api_handler.filters):
            api_handler.addFilter(OneLinePerSuccess())
        if api_handler not in RUN_LOG.handlers:
            RUN_LOG.addHandler(api_handler)


class OneLinePerSuccess(logging.Filter):
    """Leaves Prefect's "Finished in state Completed()" line of a task run out of the run
    log (the filter sits on Prefect's API handler; the console still shows it).

    Each of pressroom's tasks that does work says its outcome in a line of its own
    (``RUN_LOG``: "published as 1844… after 1 attempt in 0.21 s"), and the UI shows each
    task run's state beside its name: Prefect's line said it a second time, and doubled
    what a fan-out sends and the server stores (400 lines for 200 posts, each a record
    built, sent and inserted during the run). A task run that ended otherwise (cached,
    failed, crashed) or was retried keeps Prefect's lines.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "prefect.task_runs" and record.msg == _PLAIN_SUCCESS)


_PLAIN_SUCCESS = "Finished in state Completed()"


class WithinRuns(logging.Filter):
    """Lets pressroom's lines reach Prefect's API handler only from inside a flow or task
    run, where they belong to a run's log.

    The handler stays on pressroom's loggers for the life of the process. A process that
    ran a flow and then uses the client outside any run (a script, a notebook, a test)
    would otherwise get one warning per line from Prefect, "attempted to send logs to the
    API without a flow run id", for lines that have no run log to go to. They still reach
    the console, through the root logger, as any library's lines do.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("pressroom.") or getattr(record, "flow_run_id", None):
            return True
        from prefect.context import FlowRunContext, TaskRunContext

        return TaskRunContext.get() is not None or FlowRunContext.get() is not None


def _within_runs(handler: logging.Handler) -> None:
    if not any(isinstance(f, WithinRuns) for f in handler.filters):
        handler.addFilter(WithinRuns())


def _mask(handler: logging.Handler) -> None:
    """On the handlers (Prefect's), not the loggers, so the records of child loggers
    (``pressroom.pipeline.steps``) pass through it too."""
    if not any(isinstance(f, RedactSecrets) for f in handler.filters):
        handler.addFilter(RedactSecrets())
