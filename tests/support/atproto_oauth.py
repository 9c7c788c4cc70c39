"""The person's part of AT Protocol OAuth on the local PDS: sign in and allow.

The PDS's authorization page (``@atproto/oauth-provider``) is a script-driven page
over a small JSON API under ``/@atproto/oauth-provider/~api``. This does over HTTP what
the page's script does in a browser: load the page (its cookies: the device's session
and the CSRF token), sign in with the account's password, and consent; the consent's
answer is the address the browser would go to next, which carries the code, state and
issuer back to pressroom's callback. Each request carries the headers a browser sends
on that page (``Sec-Fetch-*``, ``Origin``, ``Referer``), which the server checks.

The cookies are kept here by hand: the server marks them ``Secure``, which a cookie jar
would not send back over the local network's plain http, as browsers do for localhost.
"""

from __future__ import annotations

from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlsplit

import httpx

API = "/@atproto/oauth-provider/~api"


def allow(authorize_url: str, identifier: str, password: str) -> dict[str, str]:
    """Sign in as the account and allow the client; answers the query the browser would
    bring back to the client's callback (``code``, ``state``, ``iss``)."""
    parts = urlsplit(authorize_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    cookies: dict[str, str] = {}

    def keep(response: httpx.Response) -> None:
        for header in response.headers.get_list("set-cookie"):
            jar: SimpleCookie = SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                cookies[name] = morsel.value

    def cookie_header() -> str:
        return "; ".join(f"{k}={v}" for k, v in cookies.items() if v)

    with httpx.Client(timeout=30) as http:
        page = http.get(
            authorize_url,
            headers={
                "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Dest": "document",
                "Sec-Fetch-Site": "cross-site",
                "Accept": "text/html",
            },
        )
        assert page.status_code == 200, page.text[:2000]
        keep(page)

        def api(endpoint: str, body: dict[str, object], bearer: str | None = None) -> object:
            headers = {
                "Origin": origin,
                "Referer": authorize_url,
                "Sec-Fetch-Mode": "same-origin",
                "Sec-Fetch-Site": "same-origin",
                "Sec-Fetch-Dest": "empty",
                "x-csrf-token": cookies.get("csrf-token", ""),
                "Cookie": cookie_header(),
            }
            if bearer:
                headers["Authorization"] = f"Bearer {bearer}"
            answer = http.post(f"{origin}{API}{endpoint}", json=body, headers=headers)
            keep(answer)
            assert answer.status_code == 200, f"{endpoint}: {answer.status_code} {answer.text}"
            return answer.json()

        signed_in = api("/sign-in", {"locale": "en", "username": identifier, "password": password})
        assert isinstance(signed_in, dict)
        did = signed_in["account"]["did"]
        consented = api("/consent", {"did": did}, bearer=signed_in.get("ephemeralToken"))
        assert isinstance(consented, dict) and "url" in consented, consented
    return dict(parse_qsl(urlsplit(str(consented["url"])).query))
