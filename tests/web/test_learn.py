"""The Learn view in a real browser: the trace drawn, played back and walked by keyboard."""

from __future__ import annotations

import importlib.util
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from noughts.service.explain import DEADLINE_S, MAX_KEPT_NODES

DRAW_BOUND = 2000  # learn.js asks for this many nodes and says so on the page
ROOT = Path(__file__).resolve().parents[2]


def explain(server_url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server_url}/api/v1/explain",
        data=json.dumps({"max_nodes": DRAW_BOUND, **body}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        return dict(json.loads(answer.read()))


def open_learn(game: Any, **params: str) -> Any:
    game.open(**params)
    page = game.page
    page.click("#learn-open")
    page.wait_for_selector("#learn-tree [role=treeitem]")
    page.wait_for_function("!document.getElementById('learn-view').hasAttribute('aria-busy')")
    return page


def axe_violations(page: Any, context: str) -> list[Any]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context)
    return [(v["id"], [n["target"] for n in v["nodes"]]) for v in results.response["violations"]]


def table_counts(page: Any) -> dict[str, str]:
    """The positions column of the page's table, by algorithm."""
    rows = page.eval_on_selector_all(
        "#learn-table tbody tr",
        "rows => rows.map(r => [r.dataset.algorithm, r.children[3].textContent])",
    )
    return {str(algorithm): str(count) for algorithm, count in rows}


def step_text(page: Any) -> str:
    return str(page.inner_text("#learn-step-text"))


def test_learn_shows_the_apis_counts_and_steps_through(game: Any, server_url: str) -> None:
    requests: list[str] = []
    game.page.on("request", lambda request: requests.append(request.url))
    page = open_learn(game, board="X../.O./...", first="you", you="X")
    data = explain(server_url, {"board": "X../.O./...", "to_move": "X"})
    summary = page.inner_text("#learn-summary")
    assert f"It counted {data['counted']:,} positions" in summary
    assert f"{data['cutoffs']:,} cut-offs" in summary and data["value_text"] in summary
    expected = {row["algorithm"]: f"{row['counted']:,}" for row in data["compare"]}
    assert table_counts(page) == expected
    assert page.locator("#learn-table tr.current").get_attribute("data-algorithm") == "alphabeta"
    steps = 2 * len(data["stored"])
    assert step_text(page) == f"Step 1 of {steps}"
    assert page.inner_text("#learn-event").startswith("Enters the position on the board")
    for _ in range(3):
        page.click("#learn-step")
    assert step_text(page) == f"Step 4 of {steps}"
    first = data["stored"][1]
    assert page.get_attribute(f"[role=treeitem][data-id='{first['id']}']", "aria-expanded")
    page.click("#learn-back")
    assert step_text(page) == f"Step 3 of {steps}"
    current = page.locator("#learn-tree [aria-current=step]")
    assert current.count() == 1 and current.get_attribute("data-id") == "2"
    page.fill("#learn-speed", "20")
    page.click("#learn-play")
    assert page.get_attribute("#learn-play", "aria-pressed") == "true"
    page.wait_for_function("!document.getElementById('learn-step-text').textContent"
                           ".startsWith('Step 3 ')")
    page.click("#learn-play")
    assert page.get_attribute("#learn-play", "aria-pressed") == "false"
    label = page.get_attribute("#learn-window", "aria-label") or ""
    assert label.startswith("Window from ")
    assert not axe_violations(page, "#learn-view")
    assert requests and all(url.startswith(f"{server_url}/") for url in requests)


def test_the_tree_is_walked_by_keyboard(game: Any) -> None:
    page = open_learn(game, board="X../.O./...", first="you", you="X")
    root = page.locator("#learn-tree > [role=treeitem]")
    assert root.get_attribute("tabindex") == "0" and root.get_attribute("aria-expanded") == "true"
    root.focus()

    def focused(attribute: str) -> str | None:
        return page.evaluate(f"document.activeElement.getAttribute('{attribute}')")

    name = focused("aria-label") or ""
    assert name.startswith("Root, value 0, window (−∞, +∞)") and "principal variation" in name
    page.keyboard.press("ArrowDown")
    assert focused("aria-level") == "2" and focused("aria-posinset") == "1"
    assert (focused("aria-label") or "").startswith("X b3, value")
    page.keyboard.press("End")
    last = focused("aria-label") or ""
    assert "window" in last and focused("aria-level") != "1"
    page.keyboard.press("Home")
    assert focused("aria-level") == "1"
    page.keyboard.press("ArrowLeft")  # collapse the root
    assert root.get_attribute("aria-expanded") == "false"
    assert page.locator("#learn-tree [role=treeitem]:visible").count() == 1
    page.keyboard.press("ArrowRight")  # expand it again
    assert root.get_attribute("aria-expanded") == "true"
    page.keyboard.press("ArrowRight")  # into its first child
    assert focused("aria-level") == "2"
    assert focused("aria-expanded") == "true"  # the principal variation starts open
    page.keyboard.press("ArrowLeft")  # an open node closes first
    assert focused("aria-expanded") == "false" and focused("aria-level") == "2"
    page.keyboard.press("ArrowLeft")  # then Left goes to the parent
    assert focused("aria-level") == "1"
    # focusing a node moves the playback there
    page.keyboard.press("ArrowDown")
    node_id = int(focused("data-id") or -1)
    assert page.locator("#learn-tree [aria-current=step]").get_attribute("data-id") == str(node_id)
    # the game's shortcuts stay out of the tree: "n" starts no new game
    board = game.board()
    page.keyboard.press("n")
    assert game.board() == board


def test_cut_branches_are_greyed_with_their_reason(game: Any) -> None:
    page = open_learn(game, board="XOX/OO./X..", first="you", you="X")
    cut = page.locator("#learn-tree [role=treeitem]:has(> .row .cut)").first
    cut.locator(":scope > .row").click()
    if cut.get_attribute("aria-expanded") == "false":
        page.keyboard.press("ArrowRight")
    pruned = page.locator("#learn-tree .pruned").first
    label = pruned.get_attribute("aria-label") or ""
    assert "pruned: alpha -8 >= beta -8" in label
    assert "Never searched" in (pruned.get_attribute("title") or "")
    pruned.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    assert "never searched" in page.inner_text("#learn-cut")
    assert not axe_violations(page, "#learn-view")
    # the colours change with a 0.15 s transition: checked once they have, not midway
    page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    assert not axe_violations(page, "#learn-view")


def test_a_large_trace_states_its_bound(game: Any, server_url: str) -> None:
    page = open_learn(game, board=".../.../...", first="you", you="X")
    data = explain(server_url, {"board": ".../.../...", "to_move": "X", "compare": False})
    assert data["truncated"] and len(data["stored"]) == DRAW_BOUND <= MAX_KEPT_NODES
    bound = page.inner_text("#learn-bound")
    assert f"first {DRAW_BOUND:,} of {data['nodes']:,} positions" in bound
    assert f"at most {DRAW_BOUND:,}" in bound
    rows = table_counts(page)
    assert rows["minimax"] == "549,946"
    assert page.locator("#learn-tree .more").count() >= 1


def test_the_tutorial_counts_on_the_page(game: Any) -> None:
    page = open_learn(game, board=".../.X./...", first="ai", you="O")
    page.check("#learn-tutorial")
    page.click("#learn-run")
    page.wait_for_function("document.getElementById('learn-summary').textContent.includes('8,465')")
    rows = table_counts(page)
    assert rows["minimax"] == "55,505" and rows["alphabeta"] == "8,465"
    page.select_option("#learn-algorithm", "depth-limited")
    assert page.is_enabled("#learn-depth")
    page.fill("#learn-depth", "3")
    page.click("#learn-run")
    page.wait_for_function("document.getElementById('learn-summary').textContent"
                           ".startsWith('Depth-limited')")
    assert page.locator("#learn-tree .why", has_text="horizon").count() >= 1
    page.click("#learn-close")
    assert page.locator("#learn-view").is_hidden()


def test_the_learn_screenshots_script_and_the_docs(
    browser: Any, server_url: str, tmp_path: Path
) -> None:
    spec = importlib.util.spec_from_file_location(
        "learn_screenshots", ROOT / "scripts" / "learn_screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    saved = script.capture(browser, server_url, tmp_path)
    assert [path.stem for path in saved] == list(script.SCENES)
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in saved)
    docs = (ROOT / "docs" / "learn.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]*\]\((img/[^)]+\.png)\)", docs)
    assert shown == [f"img/{name}.png" for name in script.SCENES]
    assert all((ROOT / "docs" / path).is_file() for path in shown)


def test_a_search_past_the_servers_bound_says_so_and_fits_a_phone(browser: Any,
                                                                 server_url: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{server_url}/?variant=4x4&first=you&you=X")
    page.wait_for_selector("html[data-ready]")
    page.click("#learn-open")
    answered = "!document.getElementById('learn-view').hasAttribute('aria-busy')"
    # the server gives an explanation DEADLINE_S (60 s); wait past it, so that a slow
    # answer fails with the server's own message rather than a browser timeout
    wait_ms = int((DEADLINE_S + 30) * 1000)
    page.wait_for_function(answered, timeout=wait_ms)
    summary = page.inner_text("#learn-summary")
    assert "more positions than the server traces at once" in summary
    assert page.locator("#learn-body").is_hidden()
    page.select_option("#learn-algorithm", "depth-limited")
    page.click("#learn-run")
    page.wait_for_function(  # answered again: the 413's message gone
        f"{answered} && !document.getElementById('learn-summary').textContent"
        ".includes('more positions than the server traces')",
        timeout=wait_ms,
    )
    summary = page.inner_text("#learn-summary")
    assert summary.startswith("Depth-limited"), summary
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    assert not axe_violations(page, "#learn-view")
    context.close()


def test_plain_words_say_what_the_window_means_and_why_a_branch_was_cut(game: Any) -> None:
    page = open_learn(game, board="XOX/OO./X..", first="you", you="X")
    assert page.is_checked("#learn-plain-words")  # on by default
    start = page.inner_text("#learn-plain")
    assert start.startswith("The search starts from the position on the board, X to move")
    assert "X has nothing sure yet (α = −∞)" in start and "O has nothing sure yet" in start
    texts = page.evaluate(
        """() => { const out = [];
            const step = document.getElementById('learn-step');
            while (!step.disabled) { step.click();
                out.push(document.getElementById('learn-plain').textContent); }
            return out; }"""
    )
    cuts = [text for text in texts if text.startswith("A cut:")]
    assert cuts and all("never searched" in text for text in cuts), cuts
    assert any("will never let the game come here" in text for text in cuts)
    assert any("O can already hold X to a loss for X" in text for text in texts)
    finals = [text for text in texts if text.startswith("The game is over here")]
    assert finals and all("exact" in text for text in finals)
    page.uncheck("#learn-plain-words")
    assert page.is_hidden("#learn-plain")
    assert page.inner_text("#learn-event")  # the technical line stays


def test_final_positions_show_exact_values_in_the_tree(game: Any) -> None:
    page = open_learn(game, board="XOX/OO./X..", first="you", you="X")
    labels = page.evaluate(
        """() => { const out = [];
            const step = document.getElementById('learn-step');
            while (!step.disabled) { step.click(); }
            return [...document.querySelectorAll('#learn-tree [role=treeitem][data-id]')]
                .map(li => li.getAttribute('aria-label')); }"""
    )
    finals = [label for label in labels if "the game is over" in label or "a draw" in label]
    assert finals
    assert not [label for label in finals if "at most" in label or "at least" in label], finals


def test_the_alpha_and_beta_labels_never_overlap(game: Any) -> None:
    for board in ("XOX/OO./X..", "X../.O./..."):
        page = open_learn(game, board=board, first="you", you="X")
        overlaps = page.evaluate(
            """() => { const out = [];
                const step = document.getElementById('learn-step');
                for (let i = 0; i < 400; i++) {
                    const [a, b] = [...document.querySelectorAll('#learn-window .edge')]
                        .map(t => t.getBoundingClientRect());
                    const view = document.getElementById('learn-window').getBoundingClientRect();
                    if (a.right > b.left && b.right > a.left) out.push([i, a.right, b.left]);
                    if (a.left < view.left - 1 || b.right > view.right + 1) {
                        out.push([i, 'outside']);
                    }
                    if (step.disabled) break;
                    step.click();
                }
                return out; }"""
        )
        assert overlaps == [], (board, overlaps[:5])
