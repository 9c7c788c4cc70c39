"""The metrics budgets, from their one table (``pressroom.service.metrics.budgets``)."""

from __future__ import annotations

from pressroom.docs.markdown import cell, generated_header, table


def page() -> str:
    from pressroom.service.metrics.budgets import BUDGETS, limit_words

    lines = generated_header(
        "Metrics budgets",
        ["`src/pressroom/service/metrics/budgets.py`"],
        "How many posts one metrics round (`POST /api/posts/metrics/refresh`, and the "
        "hourly `collect-metrics` flow that calls it) asks each network about, one read "
        "per post (and one per reply of a thread, each a post on the network), and the "
        "network's own limit it stays under. Posts past the budget wait for the next "
        "round, the longest unasked first.",
    )
    rows = [
        [
            f"`{platform.value}`",
            str(b.posts_per_round),
            cell(limit_words(platform)),
            f"<{b.doc_url}>",
        ]
        for platform, b in BUDGETS.items()
    ]
    lines += [*table(["network", "posts per round", "the network's limit", "source"], rows), ""]
    return "\n".join(lines)
