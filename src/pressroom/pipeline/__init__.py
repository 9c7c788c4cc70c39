"""What a campaign run does, as plain Python: Prefect's flows and tasks only call it.

- ``outcomes``: what each publish ended as (``published | skipped | failed |
  unconfirmed``), the result rows, their JSON-lines log and their tables.
- ``retrying``: which failures are retried (transient ones only), and how long to wait
  (exponential backoff with jitter that never shortens the base delay, and at least what
  the service's ``Retry-After`` asked for).
- ``steps``: one side effect each: upload a medium once per content, wait for it, publish
  one post exactly once (the unknown-outcome rules live here), set a thumbnail.
- ``media_memory``: which contents were already uploaded to which service, so scheduled
  runs do not spend the monthly upload quota again.

Nothing here imports Prefect, so all of it is tested without an orchestrator.
"""
