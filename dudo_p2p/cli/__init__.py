"""The ``dudo-p2p`` command line: one subcommand per use (see ``dudo-p2p --help``)."""

from dudo_p2p.cli.main import main

__all__ = ["main"]
