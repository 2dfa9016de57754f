"""README.md's "From Python" section: its python block runs and prints what
the text block after it says (the docs test of tests/test_docs.c runs the
README's `routelab` lines; this one runs its Python)."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def test_the_readme_example_runs_and_prints_what_it_says(tmp_path):
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    sec = readme.split("\n## From Python\n", 1)
    assert len(sec) == 2, "README.md has no section \"From Python\""
    body = sec[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", body, re.S)
    out = re.search(r"```python\n.*?```.*?```text\n(.*?)```", body, re.S)
    assert code and out, "the section needs a python block and a text block with its output"
    script = tmp_path / "example.py"
    script.write_text(code.group(1))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "api", "python"), OMP_WAIT_POLICY="passive")
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout == out.group(1)
