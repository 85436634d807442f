"""The ``seek`` command line (Typer)."""

from typer.core import TyperOption

_typer_display_type_rich = TyperOption.display_type_rich


def _no_type_for_switches(self: TyperOption, ctx):  # type: ignore[no-untyped-def]
    # Typer 0.29 prints "<bool>" beside every switch (--json, --help): a switch takes no value, so its
    # help row should name none.
    if self.is_flag:
        return None
    return _typer_display_type_rich(self, ctx)


TyperOption.display_type_rich = _no_type_for_switches  # type: ignore[method-assign]
