"""pressroom: a self-hostable social publishing service and its content pipeline.

The top-level package stays import-light: ``pressroom.platforms``, ``pressroom.plans``
and ``pressroom.error_codes`` are plain tables that the service, the client and the
campaign validator all read, so none of them may pull in FastAPI, SQLAlchemy or boto3.
"""

__version__ = "0.1.0"
