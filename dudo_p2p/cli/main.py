"""Entry point of the ``dudo-p2p`` command.

Subcommands live in their own modules, each with ``add_parser(subparsers)`` that adds a
parser named as in :data:`COMMANDS` and sets ``handler`` to a ``run(args) -> int``. Only the
module of the command being run is imported, so ``dudo-p2p verify`` never loads pygame or
ZeroMQ; ``dudo-p2p --help`` lists every command from this table alone.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from dudo_p2p import __version__

# name -> (module that implements it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("dudo_p2p.cli.play", "open the table window (lobby, bots, hot-seat)"),
    "host": ("dudo_p2p.cli.host", "open a table on the LAN and play it"),
    "bot": ("dudo_p2p.cli.bot", "a headless bot peer that joins a table and plays to the end"),
    "tables": ("dudo_p2p.cli.tables", "list the tables seen on the LAN"),
    "sim": ("dudo_p2p.cli.sim", "N headless bot peers, each its own process, on loopback"),
    "watch": ("dudo_p2p.cli.watch", "watch a table without a seat, verifying every entry"),
    "verify": ("dudo_p2p.cli.verify", "re-check a game record offline"),
    "replay": ("dudo_p2p.cli.replay", "step through a game record on the table"),
    "tournament": ("dudo_p2p.bots.tournament_cli", "bot levels against each other, in-process"),
    "bench": ("dudo_p2p.bench.main", "measure what players feel (see README)"),
}


def build_parser(selected: str | None = None) -> argparse.ArgumentParser:
    """The parser; the ``selected`` command's module is imported to define its options."""
    parser = argparse.ArgumentParser(prog="dudo-p2p", description="Dudo over a LAN with no server.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if name == selected:
            importlib.import_module(module).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (default: the process's arguments); its exit code.
    A reader that closed our output early (``dudo-p2p replay --text FILE | head``) ends the
    command quietly with :attr:`Exit.BROKEN_PIPE`, as any Unix tool ends on SIGPIPE: the
    command's own ``finally`` blocks still close its sockets and files."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the rest of our output has nowhere to go: send it to /dev/null, so the flush at
        # exit does not raise again ("Exception ignored ... BrokenPipeError")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        from dudo_p2p.cli.exits import Exit

        return int(Exit.BROKEN_PIPE)


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    selected = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(selected if selected in COMMANDS else None)
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.error(f"{args.command}: not available in this build")
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
