"""A griffe extension for the docs site: docstrings written for doctest and Sphinx, as Markdown.

The package's docstrings carry doctests (``>>> ...`` and the expected output) as plain
text, which Python's doctest reads; Markdown would read them as prose (``[x][:2]`` looks
like a link). This extension, loaded by mkdocstrings (see ``mkdocs.yml``), fences every
run of doctest lines (from a ``>>>`` line to the next blank line) as ``pycon`` code, and
shows Sphinx cross-references (``:class:`~noughts.results.Value```) as code (``Value``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

FENCE = "```"
_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([\w.]+)`")
_LITERAL_MARK = re.compile(r"(\S) ?::$", re.MULTILINE)


def plain_roles(text: str) -> str:
    """Sphinx cross-references as inline code (``~`` keeps only the last name), and the
    ``::`` that opens a literal block as a plain colon (the indented block stays code).

    >>> plain_roles("a :class:`~noughts.results.Value` or :func:`noughts.engine.choose_move`")
    'a `Value` or `noughts.engine.choose_move`'
    >>> plain_roles("numbered row-major::")
    'numbered row-major:'
    """
    text = _LITERAL_MARK.sub(r"\1:", text)
    return _ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)


def fence_doctests(text: str) -> str:
    """``text`` with each doctest run (``>>>`` up to a blank line) fenced as code.

    >>> fence_doctests("Intro.\\n\\n>>> 1 + 1\\n2\\n\\nAfter.").split("\\n")
    ['Intro.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'After.']
    """
    lines = text.split("\n")
    out: list[str] = []
    inside = False
    indent = ""
    for line in lines:
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            inside = True
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}{FENCE}pycon")
        elif inside and not stripped:
            out.append(f"{indent}{FENCE}")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}{FENCE}")
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctests and plain the cross-references of every docstring griffe loads."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **_: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(fence_doctests(obj.docstring.value))
