"""The media library: presigned uploads, processing to readiness, downloads, quotas.

Flow: ``POST /api/upload/presigned-url`` checks the name and type, counts the monthly
quota and creates a ``pending_upload`` record; the client PUTs the bytes to the storage
URL (``receive`` on the local backend, the S3 store otherwise); ``intake`` notices them
and moves the file to ``processing``; ``processing`` probes them in a worker pool and
records ``ready`` or ``failed``. ``readiness.require_ready_file`` is the check every
publish makes.

Contracts:
- A file id is the only handle: keys are ``files/<fileId>`` (and ``incoming/<fileId>``
  on s3), never built from a filename.
- State changes are compare-and-swaps on ``status`` (``FileRepository.move``), so
  concurrent deletes, duplicate processing after a restart and racing PUTs end
  consistent.
- Bytes are removed only after the transaction that dropped their record commits
  (``runtime.after_commit``); what cannot be removed then is swept later. A listed file
  therefore always has its bytes.

Pitfalls: on SQLite a request's read session holds a snapshot, so work that writes on
behalf of a GET (noticing an s3 upload) runs in its own short transaction; a 409 from
``require_ready_file`` rolls its request back, so it notices after the transaction ends.
"""
