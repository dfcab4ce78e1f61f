"""``python -m noughts`` runs the command line."""

from noughts.cli import main

raise SystemExit(main())
