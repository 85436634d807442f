"""The ``seek`` command line: one Typer app with a group per engine plus doctor and demo."""

from __future__ import annotations

import typer

# slides_assemble, slides_search, slides_serve and turns_play add commands to the slides and turns
# groups when imported; they are imported here for that side effect.
from cli import (  # noqa: F401
    bench_cmd,
    demo,
    doctor,
    eval_cmd,
    slides,
    slides_assemble,
    slides_search,
    slides_serve,
    turns,
    turns_play,
)

app = typer.Typer(
    name="seek",
    help="seek: SlideSearch (grouped slide search) and Ten Turns (conversational product search).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(slides.app, name="slides", help="SlideSearch: ingest, index, search and serve a slide library.")
app.add_typer(turns.app, name="turns", help="Ten Turns: catalogs, sessions, agents and the shopper simulator.")
app.add_typer(eval_cmd.app, name="eval", help="The evaluation harness for both engines.")
app.add_typer(bench_cmd.app, name="bench", help="Speed, memory and scaling benchmarks.")
app.command("doctor")(doctor.doctor)
app.command("demo")(demo.demo)


if __name__ == "__main__":
    app()
