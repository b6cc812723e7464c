"""The examples users read are run: every docstring ``>>>`` example and the Python blocks of docs/*.md.

Docstring examples run in this process, one test per module (numpydoc ``Examples``
sections, checked with ELLIPSIS and NORMALIZE_WHITESPACE). The ```` ```python ````
blocks of each ``docs/*.md`` file run in order in one fresh interpreter per file, in a
temporary directory (so a block's ``register_experiment`` or ``out="results"`` touches
neither this process nor the repository); a block made of ``>>>`` lines is checked as a
doctest, any other block is executed as a script. A block that must not run (it needs
a user's own function, or a long computation) is preceded by the line
``<!-- docs-test: skip -->``, which the rendered page does not show.
"""

from __future__ import annotations

import doctest
import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _modules import all_modules

ROOT = Path(__file__).resolve().parents[1]
SKIP = "<!-- docs-test: skip -->"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _modules() -> list[str]:
    return all_modules()


def _doctests(module_name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, module_name) if t.examples]


def _modules_with_examples() -> list[str]:
    return [m for m in _modules() if _doctests(m)]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("module_name", _modules_with_examples())
def test_docstring_examples(module_name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in _doctests(module_name):
        runner.run(test, out=sys.stdout.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {module_name} failed (see stdout)"


def doc_blocks(text: str) -> list[tuple[int, str]]:
    """The (line number, code) of each ```python block not marked with :data:`SKIP`."""
    blocks = []
    for m in _FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        if before == SKIP:
            continue
        blocks.append((text.count("\n", 0, m.start()) + 2, m.group(1)))
    return blocks


def _script(path: Path, blocks: list[tuple[int, str]]) -> str:
    """A program that runs the blocks in order in one namespace, as doctests or scripts."""
    return textwrap.dedent(
        f"""
        import doctest, sys
        path, blocks = {str(path)!r}, {blocks!r}
        ns = {{"__name__": "__docs__"}}
        failed = 0
        for line, code in blocks:
            if code.lstrip().startswith(">>>"):
                test = doctest.DocTestParser().get_doctest(code, ns, path, path, line - 1)
                runner = doctest.DocTestRunner(optionflags={FLAGS})
                runner.run(test, clear_globs=False)
                failed += runner.failures
                ns.update(test.globs)
            else:
                exec(compile("\\n" * (line - 1) + code, path, "exec"), ns)
        sys.exit(1 if failed else 0)
        """
    )


DOC_FILES = sorted((ROOT / "docs").glob("*.md"))


def test_every_doc_block_is_run_or_marked():
    # The fence pattern must see every python block: a block it missed would silently not run.
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        assert len(_FENCE.findall(text)) == text.count("```python"), path.name


def test_skip_marker_is_honoured():
    text = f"a\n```python\nx = 1\n```\n\n{SKIP}\n```python\nraise SystemExit(3)\n```\n"
    assert doc_blocks(text) == [(3, "x = 1\n")]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", [p for p in DOC_FILES if doc_blocks(p.read_text(encoding="utf-8"))],
                         ids=lambda p: p.name)
def test_docs_python_blocks(path, tmp_path):
    blocks = doc_blocks(path.read_text(encoding="utf-8"))
    proc = subprocess.run([sys.executable, "-c", _script(path, blocks)], cwd=tmp_path,
                          capture_output=True, text=True, env=_env())
    assert proc.returncode == 0, f"{path.name}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"


def _env() -> dict[str, str]:
    # the installed package only: the repository root is not on the path, as for a user
    return {**os.environ, "MPLBACKEND": "Agg", "CI": "1"}
