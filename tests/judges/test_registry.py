"""The judge registry (design.md §10 ``judge.provider``, §13)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

import jev.judges as judges
from jev.base.domain import JudgeAnswer, JudgeInfo, JudgeInput, JudgeSettings, Numbering
from jev.base.errors import SettingsError, UsageError
from jev.judges import create_judge, judge_names, register_judge
from jev.judges.scripted import ScriptedJudge


@pytest.fixture(autouse=True)
def _restore_registry() -> Iterator[None]:
    from jev import registry

    saved = dict(judges._registry)
    discovered = registry._discovered  # restored with the table, or entry points are lost
    yield
    judges._registry.clear()
    judges._registry.update(saved)
    registry._discovered = discovered


class EchoJudge:
    """A minimal third-party judge for the registry tests."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.info = JudgeInfo(provider="echo", model=settings.model)
        self.closed = False

    def ask(self, judge_input: JudgeInput, numbering: Numbering) -> JudgeAnswer:
        return JudgeAnswer(text=judge_input.user, model=self.info.model)

    def close(self) -> None:
        self.closed = True


def test_builtin_names() -> None:
    assert {"rules", "openai", "anthropic", "scripted"} <= set(judge_names())
    assert judge_names() == sorted(judge_names())


def test_importing_the_registry_is_cheap() -> None:
    code = (
        "import sys, jev.judges as j; j.judge_names();"
        "heavy = [m for m in ('httpx', 'jinja2', 'jsonschema', 'pydantic',"
        " 'jev.judges.openai_compat', 'jev.judges.anthropic', 'jev.judges._http')"
        " if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_unknown_provider_lists_names() -> None:
    with pytest.raises(UsageError) as info:
        create_judge(JudgeSettings(provider="no-such-judge"))
    message = str(info.value)
    assert "'no-such-judge'" in message
    for name in ("anthropic", "openai", "rules"):
        assert name in message
    assert "judge.provider" in message


def test_register_callable() -> None:
    register_judge("echo", EchoJudge)
    assert "echo" in judge_names()
    judge = create_judge(JudgeSettings(provider="echo", model="e1"))
    assert isinstance(judge, judges.Judge)
    assert judge.info == JudgeInfo(provider="echo", model="e1")


def test_register_lazy_path_with_dotted_attr() -> None:
    register_judge("echo-lazy", "tests.judges.test_registry:EchoJudge")
    judge = create_judge(JudgeSettings(provider="echo-lazy", model="e2"))
    assert type(judge).__name__ == "EchoJudge"
    # resolved once, then cached as the callable
    assert callable(judges._registry["echo-lazy"])
    register_judge("scripted-lazy", "jev.judges.scripted:ScriptedJudge.from_settings")
    assert judges._registry["scripted-lazy"] == "jev.judges.scripted:ScriptedJudge.from_settings"


def test_register_replaces() -> None:
    register_judge("echo", EchoJudge)
    register_judge("echo", lambda s: ScriptedJudge(["x"], provider="echo2"))
    assert create_judge(JudgeSettings(provider="echo")).info.provider == "echo2"


@pytest.mark.parametrize(
    ("name", "factory"),
    [("", EchoJudge), ("two words", EchoJudge), ("x", "no-colon"), ("x", ":attr"), ("x", 42)],
)
def test_register_refuses_bad_input(name: str, factory: object) -> None:
    with pytest.raises(ValueError):
        register_judge(name, factory)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "path",
    ["jev.judges.no_such_module:Judge", "jev.judges.scripted:NoSuchJudge.from_settings"],
)
def test_broken_lazy_path_is_a_settings_error(path: str) -> None:
    register_judge("broken", path)
    with pytest.raises(SettingsError, match="'broken' cannot be loaded"):
        create_judge(JudgeSettings(provider="broken"))


def test_http_judges_refuse_empty_model_through_registry() -> None:
    for provider in ("openai", "anthropic"):
        with pytest.raises(SettingsError, match=r"judge\.model is empty"):
            create_judge(JudgeSettings(provider=provider, model=""))


@pytest.mark.parametrize(
    "module",
    [
        "jev.judges",
        "jev.judges._http",
        "jev.judges.openai_compat",
        "jev.judges.anthropic",
        "jev.judges.scripted",
    ],
)
def test_public_surface_exists(module: str) -> None:
    import importlib

    mod = importlib.import_module(module)
    assert len(set(mod.__all__)) == len(mod.__all__)
    for name in mod.__all__:
        assert hasattr(mod, name), f"{module}.{name} is in __all__ but missing"


def test_host_judges_register_through_entry_points_like_any_plugin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 20: the host judges are named in pyproject's ``jev.judges`` entry points,
    so nothing below the hosts layer names a host; each builds from settings."""
    from jev import registry
    from jev.judges.cli import CliJudge

    monkeypatch.setattr(registry, "_discovered", False)  # other tests reset the table

    for host in ("claude-code", "codex", "gemini", "qwen", "copilot"):
        assert host in judge_names()
        judge = create_judge(JudgeSettings(provider=host, model="m", timeout_s=7))
        assert isinstance(judge, CliJudge) and judge.info.provider == host
        assert judge.timeout_s == 7 and judge.model == "m"
