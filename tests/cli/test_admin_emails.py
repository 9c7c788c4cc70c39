"""``admin create-account`` checks the email as sign-up does and prints the form kept."""

from __future__ import annotations

from sqlalchemy import func, select

from pressroom.service.db.models import Account
from pressroom.service.db.session import transaction
from tests.cli.test_admin import admin, admin_json
from tests.conftest import Service


def _count(service: Service) -> int:
    with transaction(service.sessions, write=False) as db:
        return int(db.scalar(select(func.count()).select_from(Account)) or 0)


def test_create_account_refuses_what_is_not_an_address(service: Service) -> None:
    done = admin(
        service, "create-account", "--email", "<script>alert(1)</script>@x.co", "--plan", "agency"
    )
    assert done.returncode == 1
    assert "email must be an address such as name@example.com:" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert _count(service) == 0


def test_create_account_keeps_the_normalised_email(service: Service) -> None:
    created = admin_json(
        service, "create-account", "--email", "Ops@Example.COM", "--plan", "agency"
    )
    assert created["email"] == "ops@example.com"
    link = admin(service, "sign-in-link", "--email", "OPS@example.com")
    assert link.returncode == 0, link.stderr
    connected = admin_json(
        service,
        "connect",
        "--account",
        "Ops@Example.COM",
        "--platform",
        "microblog",
        "--name",
        "@ops",
    )
    assert connected["platform"] == "microblog"


def test_a_demo_account_made_before_keeps_its_data(service: Service) -> None:
    """Data dirs made before emails were checked hold the demo account under a ``.local``
    address, now refused: seeding renames it rather than making a second one."""
    from pressroom.service.accounts import keys
    from pressroom.service.admin import DEMO_EMAIL, FORMER_DEMO_EMAIL, seed_demo
    from pressroom.service.db.base import new_id, utcnow

    with transaction(service.sessions) as db:
        key = keys.generate_key()
        db.add(
            Account(
                id=new_id("acc"),
                email=FORMER_DEMO_EMAIL,
                plan="agency",
                api_key_hash=keys.hash_key(key),
                api_key_created_at=utcnow(),
                created_at=utcnow(),
            )
        )
    with transaction(service.sessions) as db:
        first_id, _ = seed_demo(db)
    with transaction(service.sessions, write=False) as db:
        assert list(db.scalars(select(Account.email))) == [DEMO_EMAIL]
        assert db.scalar(select(Account.id)) == first_id
