"""Build the Qubic O book by games: the command line of :mod:`noughts.builders.o_book`
(its docstring says what it does and gives the command that builds the shipped book).

    python scripts/build_o_book.py --help
"""

from __future__ import annotations

import sys

from noughts.builders.o_book import main

if __name__ == "__main__":
    sys.exit(main())
