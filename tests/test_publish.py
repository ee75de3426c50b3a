"""The GitHub Pages workflow builds the book with the README's command and deploys it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def readme_command(heading: str) -> str:
    """The command of the README's code block that follows the bold heading."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split(f"**{heading}**", 1)[1]
    return re.search(r"```bash\n(.+?)\n```", section, re.S).group(1).strip()


def readme_build_command() -> str:
    """The command of the README's "Build the book" code block."""
    return readme_command("Build the book")


def test_readme_commands_run_in_a_virtual_environment_in_the_clone() -> None:
    """Both commands create (or reuse) ``.venv`` in the clone and activate it, as a newcomer does,
    and ``.ci/run`` runs them as the README writes them (it reads them from the README)."""
    for heading in ("Build the book", "Run the whole test suite"):
        command = readme_command(heading)
        assert command.startswith("python3 -m venv .venv && source .venv/bin/activate && "), command
    ci = (ROOT / ".ci" / "run").read_text()
    for heading in ("Build the book", "PDF edition", "Run the whole test suite"):
        assert f'readme_command "{heading}"' in ci, heading


def steps_using(job: dict, action: str) -> list[dict]:
    return [step for step in job["steps"] if step.get("uses", "").split("@")[0] == action]


def test_pages_workflow_builds_with_the_readme_command_and_deploys() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
    assert "push" in triggers and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert set(workflow["jobs"]) == {"build", "deploy"}

    build = workflow["jobs"]["build"]
    assert steps_using(build, "actions/checkout")
    assert steps_using(build, "actions/setup-python")[0]["with"]["python-version"] == "3.11"
    commands = [step["run"].strip() for step in build["steps"] if "run" in step]
    assert readme_build_command() in commands, (readme_build_command(), commands)
    upload = steps_using(build, "actions/upload-pages-artifact")
    assert upload and upload[0]["with"]["path"] == "_build/html"

    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert steps_using(deploy, "actions/deploy-pages")


def test_repository_url_is_set_once() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url)
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    tracked = [ROOT / name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]
    elsewhere = [
        str(p.relative_to(ROOT))
        for p in tracked
        if p.suffix in {".md", ".yml", ".py", ".toml", ".txt"}
        and p.name != "_config.yml"
        and url in p.read_text(errors="ignore")
    ]
    assert not elsewhere, f"the repository URL is repeated in {elsewhere}; set it only in _config.yml"
