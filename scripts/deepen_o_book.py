"""Deepen the Qubic O book by proof: the command line of
:mod:`noughts.builders.o_book_deepen` (its docstring says what it does and gives the
command that writes the shipped book from the builder's).

    python scripts/deepen_o_book.py --help
"""

from __future__ import annotations

import sys

from noughts.builders.o_book_deepen import main

if __name__ == "__main__":
    sys.exit(main())
