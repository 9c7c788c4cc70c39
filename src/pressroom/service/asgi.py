"""ASGI entry point for uvicorn workers: ``uvicorn pressroom.service.asgi:app``.

Each worker process imports this, so logging is set up here as well as in
``pressroom api`` (a worker starts with Python's defaults).
"""

from pressroom.service.app import create_app
from pressroom.service.ops.logs import configure_logging
from pressroom.settings import get_settings

configure_logging(get_settings().ops.log_level, get_settings().ops.log_format)
app = create_app(migrate=False)  # `pressroom api` migrates before starting workers
