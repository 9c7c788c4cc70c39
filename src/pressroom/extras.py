"""Which optional part of pressroom a missing module belongs to, and how to install it.

``pip install pressroom`` is the client, the campaign validator and planner, and the
CLI that runs them. The service, the pipeline and media probing are extras (see
``pyproject.toml``); a command that reaches for one of them without it installed stops
with the one line that says what to install, not an ``ImportError`` traceback.
"""

from __future__ import annotations

EXTRA_OF_MODULE: dict[str, str] = {
    **dict.fromkeys(("av", "PIL"), "media"),
    **dict.fromkeys(
        (
            "fastapi",
            "starlette",
            "sqlalchemy",
            "alembic",
            "uvicorn",
            "pydantic_settings",
            "boto3",
            "botocore",
            "psycopg",
            "pebble",
            "jinja2",
            "multipart",
            "pwdlib",
            "email_validator",
            "authlib",
            "cryptography",
            "prometheus_client",
        ),
        "server",
    ),
    **dict.fromkeys(("prefect", "platformdirs", "filelock", "watchfiles"), "pipeline"),
    **dict.fromkeys(("prefect_dask", "distributed", "dask"), "dask"),
}
"""Top-level module → the extra that installs it (``pydantic_settings`` is in both
``server`` and ``pipeline``; ``server`` is named)."""


def extra_for(missing: ModuleNotFoundError) -> str | None:
    """The extra that would have installed the missing module, if it is one of ours."""
    top = (missing.name or "").split(".")[0]
    return EXTRA_OF_MODULE.get(top)


def install_hint(extra: str, module: str) -> str:
    what = {
        "media": "probing images and videos",
        "server": "the service",
        "pipeline": "the Prefect pipeline",
        "dask": "running a campaign on a Dask cluster",
    }[extra]
    return (
        f"{what} needs pressroom's '{extra}' extra ({module} is not installed): "
        f"pip install 'pressroom[{extra}]'"
    )
