"""What the networks report of published posts: snapshots, rounds that fetch them, and
the totals per campaign (``POST /api/posts/metrics/refresh`` and the reads beside it)."""
