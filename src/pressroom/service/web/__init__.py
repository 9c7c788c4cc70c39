"""The dashboard: server-rendered pages in the same app as the API.

- ``routes`` are thin: they read forms, call the domain services the API uses, and
  render ``templates/`` (a base layout and partials). Forms work without JavaScript;
  ``static/`` (vendored, nothing fetched at run time) adds copy buttons and upload
  progress.
- ``security`` is the dashboard's own route class: session cookie, CSRF and security
  headers apply to these routes only, so the JSON API under ``/api`` keeps its speed.
- Sessions, OAuth states and throttle counters live in the database (``auth``, ``oauth``).
"""
