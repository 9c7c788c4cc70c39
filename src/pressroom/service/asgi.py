"""ASGI entry point for uvicorn workers: ``uvicorn pressroom.service.asgi:app``."""

from pressroom.service.app import create_app

app = create_app(migrate=False)  # `pressroom api` migrates before starting workers
