"""The README and the docs site: short, true to their set-up, their examples run.

The site itself is built by ``scripts/test.sh`` with ``mkdocs build --strict`` (a broken
link, anchor or page left out of the nav fails it); these checks cover what that build
does not see: the README, which lives outside the site, and the doctest wiring.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_keeps_the_two_set_up_commands() -> None:
    assert len(README.splitlines()) < 200
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.DOTALL)
    assert commands[:2] == ["pip install . && noughts serve", "bash scripts/test.sh"]


def test_the_readme_says_what_a_new_user_needs_before_the_commands() -> None:
    """Python 3.11, a virtual environment (Debian refuses a system-wide pip install), what
    the test command installs and how long it takes, and extras named from a clone."""
    section = README.split("<!-- section: setup -->")[1].split("## A one-minute")[0]
    setup = " ".join(section.split())
    for needed in ("Python 3.11 or newer", "virtual environment", "externally-managed-environment",
                   "python3 -m venv", "apt-get", "as root", "10 to 40 minutes",
                   "pip install '.[rl]'"):  # fmt: skip
        assert needed in setup, needed
    assert "'noughts[rl]'" not in README


def test_the_readmes_links_and_images_exist() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if "://" not in t]
    assert any(t.startswith("docs/img/") for t in local)
    assert any(t.endswith(".md") for t in local)
    for target in local:
        assert (ROOT / target).exists(), target


def test_every_docs_page_with_examples_runs_them_as_doctests() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    options = config["tool"]["pytest"]["ini_options"]
    assert "--doctest-glob=*.md" in options["addopts"]
    collected = set(options["testpaths"])
    with_examples = {
        f"docs/{page.name}"
        for page in (ROOT / "docs").glob("*.md")
        if re.search(r"^```python\n>>> ", page.read_text(encoding="utf-8"), re.MULTILINE)
    }
    missing = sorted(with_examples - collected)
    assert with_examples and not missing, (
        f"{missing}: a docs page whose ```python examples start with >>> runs them as "
        "doctests: add it to testpaths in pyproject.toml (or fence an example that cannot "
        "run here as ```pycon)"
    )
    assert "README.md" in collected


def test_the_api_references_docstrings_read_as_markdown() -> None:
    import doctest
    import importlib.util

    import pytest

    pytest.importorskip("griffe")  # the docs extra
    spec = importlib.util.spec_from_file_location(
        "docs_doctest_blocks", ROOT / "scripts" / "docs_doctest_blocks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert doctest.testmod(module).failed == 0
    from noughts import engine

    text = module.plain_roles(module.fence_doctests(engine.choose_move.__doc__ or ""))
    assert ":class:" not in text and "`BudgetExhausted`" in text
    fenced = module.fence_doctests(engine.__doc__ or "")
    assert fenced.count("```pycon") == 1 and fenced.count("```") == 2


def test_the_readme_lists_every_docs_page() -> None:
    section = README[README.index("## Where to read more"):]
    missing = [f"docs/{page.name}" for page in sorted((ROOT / "docs").glob("*.md"))
               if page.name != "index.md" and f"(docs/{page.name})" not in section]
    assert not missing, f"the README's list of docs leaves out {missing}"


README_NAMES = {"chromium": "Chromium", "nodejs": "Node.js", "redis-server": "redis-server"}
"""How the README's set-up names each system package the test command installs."""


def test_the_readme_says_what_the_test_command_installs() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    packages = re.findall(r"missing\+=\(([\w.-]+)\)", script)
    assert packages, "scripts/test.sh no longer lists its system packages as it did"
    setup = README[README.index("## Set-up"):README.index("## A one-minute tour")]
    for package in packages:
        assert package in README_NAMES, f"name {package} in README_NAMES and in the README"
        assert README_NAMES[package] in setup, f"the README's set-up does not name {package}"
    assert "scripts/check_package.py" in script and "fresh virtual environment" in setup


def test_no_text_file_keeps_a_merge_conflict() -> None:
    """A merge left half-resolved shows in no rendered page or test (it did once, in a
    docs page), so look for the markers themselves."""
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)
    files = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "src").rglob("*.py"),
             *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    conflicted = [str(path.relative_to(ROOT)) for path in files
                  if marker.search(path.read_text(encoding="utf-8"))]
    assert conflicted == []
