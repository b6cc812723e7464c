"""The README's Python example runs as written, and its quickstart commands are the CI's."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_readme_python_example_runs():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert 0 <= namespace["b"]["ml"].detected.mean() < 0.01  # about 1/N_T at T = 16
    assert namespace["Q"].ldp_epsilon() <= 1.0 + 1e-9
    assert len(namespace["res"].table.where(metric="detection")) == 4


def test_quickstart_has_exactly_two_commands_and_ci_runs_the_second():
    text = (ROOT / "README.md").read_text()
    quick = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", quick, re.S)
    assert [c.strip().count("\n") for c in commands] == [0, 0]
    assert "anonspread run compare-detection" in commands[0]
    marker = quick.split("<!-- ci:test-command -->", 1)[1]
    assert re.findall(r"```bash\n(.*?)```", marker, re.S)[0] == commands[1]
    assert "awk '/<!-- ci:test-command -->/" in (ROOT / ".ci" / "run").read_text()
