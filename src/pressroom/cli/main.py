"""The root typer app; sub-apps register themselves here."""

from __future__ import annotations

import typer

from pressroom.cli import admin, api, campaign, demo, serve

app = typer.Typer(
    name="pressroom",
    help="Self-hostable social publishing: the service, its admin, and campaign pipelines.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("api")(api.api)
app.command("demo")(demo.demo)
app.command("serve")(serve.serve)
app.command("prefect-env")(serve.prefect_env)
app.add_typer(admin.app, name="admin")
app.add_typer(campaign.app, name="campaign")


if __name__ == "__main__":
    app()
