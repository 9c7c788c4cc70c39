"""The webhook events, from their one catalogue (``pressroom.service.events.catalog``)."""

from __future__ import annotations

from pressroom.docs.markdown import cell, generated_header, table


def page() -> str:
    from pressroom.service.events.catalog import (
        DESCRIPTIONS,
        OFF_BY_DEFAULT,
        SUBSCRIBABLE,
        EventType,
    )

    lines = generated_header(
        "Webhook events",
        ["`src/pressroom/service/events/catalog.py`"],
        "What an endpoint can subscribe to, and what each event's `data` holds. Every "
        'request is a POST of `{"id", "type", "timestamp", "accountId", "data"}`, '
        "signed as [Webhooks](webhooks.md) says; the OpenAPI document lists the same "
        "events in its `webhooks` section.",
    )
    rows = [
        [
            f"`{kind}`",
            "yes, when named in `events`" if kind in OFF_BY_DEFAULT else "yes",
            cell(DESCRIPTIONS[EventType(kind)]),
        ]
        for kind in SUBSCRIBABLE
    ]
    test = EventType.WEBHOOK_TEST
    rows.append([f"`{test.value}`", "no: sent to the endpoint tested", cell(DESCRIPTIONS[test])])
    lines += [*table(["event", "subscribable", "when, and its `data`"], rows), ""]
    return "\n".join(lines)


def event_types() -> list[str]:
    from pressroom.service.events.catalog import EventType

    return [kind.value for kind in EventType]
