"""``python -m dudo_p2p`` is the same as the ``dudo-p2p`` command."""

from dudo_p2p.cli import main

raise SystemExit(main())
