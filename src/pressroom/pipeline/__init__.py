"""What a campaign run does, as plain Python: Prefect's flows and tasks only call it.

- ``outcomes``: what each publish ended as (``published | skipped | failed |
  unconfirmed | partial``), the result rows (a thread's with its parts), their
  JSON-lines log, their tables and summary.
- ``retrying``: which failures are retried (transient ones only), and how long to wait
  (exponential backoff with jitter that never shortens the base delay, and at least what
  the service's ``Retry-After`` asked for).
- ``steps``: one side effect each: upload a medium once per content, wait for it, publish
  one post exactly once (the unknown-outcome rules live here), set a thumbnail.
  ``steps.find_uploaded`` is where the service's look-up of a file by content plugs in.
- ``attempts``: the attempt count and total time of a step across Prefect's retries.
- ``config``: the run's knobs and where its state lives (the user's state dir, one
  folder per service address and account, never the working directory).
- ``media_memory``: which contents were already uploaded, so scheduled runs do not spend
  the monthly upload quota again (a file lock keeps concurrent runs from losing updates).
- ``liveness``: who holds a run (host, pid, lease) and when an earlier RUNNING run is dead.
- ``run_logs``: pressroom's log lines in Prefect's run logs, API keys masked.

These import no Prefect and are tested without an orchestrator. The modules that speak
to Prefect import it inside their functions: ``runner`` (run the flow here),
``deployments`` and ``serving`` (``pressroom serve``), ``prefect_liveness`` (leases and
settling dead runs through Prefect's API), ``prefect_settings``. ``thread_pool`` (the
flow's task runner, Prefect's with its threads started up front) subclasses Prefect's
runner, so it imports Prefect as it loads; only the flow imports it. ``sealed`` holds
values Prefect hands on without walking into them.
"""
