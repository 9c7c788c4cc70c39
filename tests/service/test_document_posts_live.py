"""A document post from upload to published: a PDF presigned, PUT and read by the media
library, then posted through the API, on the sandbox and on LinkedIn's real driver
(respx plays LinkedIn, every request held to its documented contract,
``tests/drivers/contracts/linkedin.py``): the document's upload initialized on
/rest/documents, the PDF's bytes PUT where LinkedIn said, then the post naming the
document and its title."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast
from urllib.parse import parse_qs, urlsplit

import pytest
import respx

from pressroom.platforms import Platform
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.professional_network import LinkedInDriver
from pressroom.service.oauth.vault import Vault
from pressroom.settings import NetworkSettings
from tests.drivers.contract import held_to
from tests.drivers.contracts import linkedin as documented
from tests.support.documents import make_pdf
from tests.support.publish import deliveries, publish

if TYPE_CHECKING:
    from fastapi import FastAPI

    from tests.conftest import AccountHandle
    from tests.support.library import Library

pytest_plugins = ("tests.support.library",)

LINKEDIN = Platform.PROFESSIONAL_NETWORK
NETWORKS = NetworkSettings(
    professional_network_client_id="linkedin-app",
    professional_network_client_secret="linkedin-secret",
)
MEMBER = "782bbtaQ"
DOCUMENT = "urn:li:document:D5F10AQH4p3GpiIwq7Q"
UPLOAD = "https://www.linkedin.com/dms-uploads/sp/D5F10AQH4p3GpiIwq7Q/uploadedDocument/0"
SHARE = "urn:li:share:6844785523593134080"


def uploaded_pdf(library: Library, account: AccountHandle, pages: int) -> tuple[str, bytes]:
    """A PDF through the library as a client sends one; its id once ready, and its bytes."""
    body = make_pdf(pages)
    file_id = library.upload(account, body, filename="q3.pdf", content_type="application/pdf")
    status = library.wait(account, file_id)
    assert (status["status"], status["kind"], status["pages"]) == ("ready", "document", pages)
    return file_id, body


def document_body(connection_id: str, file_id: str) -> dict[str, object]:
    return {
        "connectionId": connection_id,
        "text": "Our quarter (in 5 pages)",
        "fileId": file_id,
        "format": "document",
        "documentTitle": "Q3 report",
    }


@pytest.mark.parametrize(
    ("backend", "database_url"),
    [("local", "sqlite"), pytest.param("local", "postgres", marks=pytest.mark.postgres)],
    indirect=True,
)
def test_a_pdf_uploaded_is_posted_as_a_document_on_the_sandbox(library: Library) -> None:
    account = library.account()
    file_id, _ = uploaded_pdf(library, account, 5)
    connection_id = account.connect(LINKEDIN.value, "Ada Lovelace")
    response = publish(account, LINKEDIN, document_body(connection_id, file_id), key="q3")
    assert response.status_code == 200, response.text
    assert response.json()["format"] == "document"
    [post] = deliveries(library.service)
    assert post.payload["media"]["fileId"] == file_id
    assert post.payload["fields"]["documentTitle"] == "Q3 report"
    posts = library.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert [(p["format"], p["status"]) for p in posts] == [("document", "published")]


def consented(library: Library) -> frozenset[str]:
    """The scopes the app's LinkedIn driver asks for at consent: all a connection is
    ever granted."""
    driver = drivers_of(cast("FastAPI", library.client.app))[LINKEDIN]
    assert isinstance(driver, LinkedInDriver)
    url = driver.authorization_url(redirect_uri="https://x/cb", state="s", code_verifier="v")
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split(" "))


@pytest.mark.parametrize(
    ("backend", "database_url"),
    [("local", "sqlite"), pytest.param("local", "postgres", marks=pytest.mark.postgres)],
    indirect=True,
)
def test_a_pdf_uploaded_is_posted_as_a_document_on_linkedin(
    library_factory: Callable[..., Library],
) -> None:
    library = library_factory(networks=NETWORKS)
    account = library.account()
    file_id, pdf = uploaded_pdf(library, account, 5)
    connection_id = account.connect(LINKEDIN.value, "Ada Lovelace")
    with transaction(library.service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(library.settings).encrypt("AQV")
    today = datetime.now(UTC).date()
    with (
        respx.mock(assert_all_mocked=True, assert_all_called=True) as linkedin,
        held_to(linkedin, documented.contract(today, consented(library))),
    ):
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json={"sub": MEMBER})
        initialized = linkedin.post("https://api.linkedin.com/rest/documents").respond(
            200,
            json={
                "value": {
                    "uploadUrlExpiresAt": 1650567510704,
                    "uploadUrl": f"{UPLOAD}?ca=vector_feedshare&cn=uploads&m=AQ9",
                    "document": DOCUMENT,
                }
            },
        )
        put = linkedin.put(UPLOAD).respond(201)
        linkedin.get(f"https://api.linkedin.com/rest/documents/{DOCUMENT}").respond(
            200, json={"id": DOCUMENT, "owner": f"urn:li:person:{MEMBER}", "status": "AVAILABLE"}
        )
        posted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
            201, headers={"x-restli-id": SHARE}
        )
        response = publish(account, LINKEDIN, document_body(connection_id, file_id), key="q3")
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["postId"], answer["format"]) == (SHARE, "document")
    assert answer["url"] == f"https://www.linkedin.com/feed/update/{SHARE}/"
    assert json.loads(initialized.calls.last.request.content) == {
        "initializeUploadRequest": {"owner": f"urn:li:person:{MEMBER}"}
    }
    sent = put.calls.last.request
    assert (sent.content, sent.headers["Content-Type"]) == (pdf, "application/pdf")
    post = json.loads(posted.calls.last.request.content)
    assert post["content"] == {"media": {"id": DOCUMENT, "title": "Q3 report"}}
    assert post["commentary"] == "Our quarter \\(in 5 pages\\)"
    posts = library.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert [(p["format"], p["status"], p["platformPostId"]) for p in posts] == [
        ("document", "published", SHARE)
    ]
