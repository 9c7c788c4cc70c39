"""The root typer app; sub-apps register themselves here."""

from __future__ import annotations

import gc
from typing import Annotated

import typer

from pressroom.cli import admin, api, campaign, demo, drivers, errors, serve, worker

app = typer.Typer(
    name="pressroom",
    help="Self-hostable social publishing: the service, its admin, and campaign pipelines.",
    no_args_is_help=True,
    add_completion=False,
)


def _version(shown: bool) -> None:
    if shown:
        from pressroom import __version__

        typer.echo(f"pressroom {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", envvar="PRESSROOM_DEBUG", help="Show the traceback of an expected error."
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Self-hostable social publishing: the service, its admin, and campaign pipelines.

    Exit status: 0 when the work is done, 1 when it failed (an invalid campaign, a
    refused request, a post not published), 2 when the command line is wrong.
    """
    collect_again()
    errors.set_debug(debug)


def collect_again() -> None:
    """The collector back once the command's own code is about to run, the heap its start
    built frozen out of later collections (``pressroom.cli.entry`` started it held off).
    Where nothing held it off (a test invoking the app) this does nothing."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


app.command("api")(api.api)
app.command("demo")(demo.demo)
app.command("worker")(worker.worker)
app.command("serve")(serve.serve)
app.command("prefect-env")(serve.prefect_env)
app.command("prefect-stop")(serve.prefect_stop)
app.add_typer(drivers.app, name="drivers")
app.add_typer(admin.app, name="admin")
app.add_typer(campaign.app, name="campaign")


def run() -> None:
    """The ``pressroom`` command: the app, with a missing extra said in one line (exit 2).

    Its work done, the command leaves its heap to the collector's permanent generation
    (``gc.freeze``). Tearing the interpreter down, Python collects the whole heap again
    and again; after a command that imported Prefect that took 0.47-0.65 s between the
    last line printed and the exit (``benchmarks/README.md``, "seventh round"), 0.02-0.05
    s frozen. Nothing a command relies on is skipped: threads are still joined, exit
    handlers (a temporary Prefect server's stop, logging's flush) still run, and objects
    freed by reference counting are still finalized; only garbage in reference cycles is
    left to the operating system, as Python never promised to finalize it at exit.
    """
    from pressroom.extras import extra_for, install_hint

    try:
        app()
    except ModuleNotFoundError as exc:
        extra = extra_for(exc)
        if extra is None or errors.debugging():
            raise
        typer.secho(f"error: {install_hint(extra, exc.name or '?')}", err=True, fg="red")
        raise SystemExit(2) from None
    finally:
        gc.freeze()


if __name__ == "__main__":
    run()
