"""``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served whole by the service.

FastAPI's own pages load their scripts from a CDN, and ReDoc its fonts from Google: on an
install with no way out to the internet they are blank. These are FastAPI's pages with
the scripts and styles of ``static/apidocs`` (versions and licences in the README there)
and ReDoc's fonts left to the browser's own.

They carry the dashboard's headers: no framing (``X-Frame-Options: DENY`` and
``frame-ancestors 'none'``), ``nosniff``, no referrer to other sites, and a
Content-Security-Policy that lets them load nothing from anywhere but the service.
Swagger UI starts from an inline script, allowed by its hash (computed from the page, so
it follows FastAPI's template); ReDoc and Swagger UI write styles at run time, so
``style-src`` allows inline styles, and ReDoc's search runs in a worker it makes from a
``blob:``.
"""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse

from pressroom.service.web.security import SECURITY_HEADERS

ASSETS = "/static/apidocs"
SWAGGER_JS = f"{ASSETS}/swagger-ui-bundle.js"
SWAGGER_CSS = f"{ASSETS}/swagger-ui.css"
REDOC_JS = f"{ASSETS}/redoc.standalone.js"
FAVICON = f"{ASSETS}/favicon-32x32.png"

CSP = (
    "default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'"
)
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def install_api_docs(app: FastAPI) -> None:
    """Serve the two pages (create the app with ``docs_url=None, redoc_url=None``)."""
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return secured(
            get_swagger_ui_html(
                openapi_url=openapi_url,
                title=f"{app.title} - API docs",
                swagger_js_url=SWAGGER_JS,
                swagger_css_url=SWAGGER_CSS,
                swagger_favicon_url=FAVICON,
                oauth2_redirect_url=None,
                # Swagger UI would send the document's address to its maker's validator
                swagger_ui_parameters={"validatorUrl": None},
            )
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return secured(
            get_redoc_html(
                openapi_url=openapi_url,
                title=f"{app.title} - API reference",
                redoc_js_url=REDOC_JS,
                redoc_favicon_url=FAVICON,
                with_google_fonts=False,
            )
        )


def secured(page: HTMLResponse) -> HTMLResponse:
    """The page with the dashboard's headers and a policy that allows its inline scripts
    by their hashes, and nothing from another origin."""
    hashes = "".join(f" '{digest}'" for digest in inline_script_hashes(bytes(page.body)))
    page.headers.update(SECURITY_HEADERS)
    page.headers["Content-Security-Policy"] = CSP.format(scripts=hashes)
    return page


def inline_script_hashes(html: bytes) -> list[str]:
    """CSP hash sources (``sha256-…``) of each ``<script>`` element with a body."""
    found = []
    for body in _INLINE_SCRIPT.findall(html.decode("utf-8")):
        digest = hashlib.sha256(body.encode("utf-8")).digest()
        found.append("sha256-" + base64.b64encode(digest).decode("ascii"))
    return found
