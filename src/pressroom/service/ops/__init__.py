"""What an operator sees of a running service: request ids, logs, health and metrics.

- ``requests.RequestContext``: the outermost middleware. It gives every request an id
  (``X-Request-ID``, the proxy's if it sent a sane one), keeps it in a contextvar for
  every log line and error body of that request, writes one access line and counts the
  request in the metrics.
- ``logs``: plain lines on a terminal, JSON lines with ``PRESSROOM_LOG_FORMAT=json``.
- ``health``: ``/healthz``, ``/readyz`` and ``/metrics``, unauthenticated and left out
  of the OpenAPI document; on the API's port, or on ``PRESSROOM_OPS_PORT`` (``server``).
- ``metrics``: the Prometheus metrics, labelled by route template, never by raw path,
  so their number stays bounded whatever clients send.
"""
