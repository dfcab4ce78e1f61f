"""Sweep the Qubic O book for visible blunders: the command line of
:mod:`noughts.builders.o_book_sweep` (its docstring says what it does).

    python scripts/sweep_o_book.py --help
"""

from __future__ import annotations

import sys

from noughts.builders.o_book_sweep import main

if __name__ == "__main__":
    sys.exit(main())
