"""The settings page of ``jev ui`` (design.md §10): one profile's values, profiles, a judge test.

Validation is the command line's: every submitted text goes through
:func:`jev.settings.profiles.parse_raw` (with ``exact=True``: spaces around a number are refused,
so what is saved is what the field shows) and is saved with
:func:`jev.settings.profiles.save_settings`, which writes atomically under the profile's lock.

Rules of the page:

* Only fields whose text differs from the value in force are saved, all of them in one
  atomic write or none: one refused field (a message next to it) means nothing on disk
  changes. A profile file therefore keeps only what the user changed.
* ``enabled`` is its own control (:func:`switch`); the settings form never carries it,
  so saving the rounds never enables (or disables) the feature.
* A new profile starts switched off (its file holds ``enabled = false``); ``default``
  cannot be deleted.
* "Test the judge" runs one audit of a bundled turn with the profile's judge and shows
  verdict, focus, latency and tokens; nothing is recorded.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jev.base.domain import Material
from jev.base.errors import SettingsError, UsageError
from jev.judges import create_judge, judge_names
from jev.pipeline.audit import run_audit
from jev.settings import profiles as st

if TYPE_CHECKING:
    from jev.ui.app import Request, Response, UiApp

__all__ = [
    "FIELDS",
    "Field",
    "JudgeTest",
    "create_profile",
    "delete_profile",
    "page",
    "run_judge_test",
    "sample_material",
    "save",
    "save_form",
    "switch",
    "try_judge",
    "value_text",
]

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Field:
    """One input of the settings form.

    Attributes:
        key: the dotted settings key (:data:`jev.settings.profiles.KEYS`).
        label: what the page calls it.
        help: one line under the input (units, meaning).
        group: ``main`` or ``judge`` or ``more`` (the section it is shown in).
        choices: options of a ``<select>``; empty = a text input.
    """

    key: str
    label: str
    help: str
    group: str
    choices: tuple[str, ...] = ()


FIELDS: tuple[Field, ...] = (
    Field(
        "max_supplements",
        "Maximum automatic supplement rounds",
        "How many times per turn Jev may send the agent back to fix what the judge found "
        "(a whole number, 1 or more; default 3).",
        "main",
    ),
    Field(
        "evidence_chars",
        "Evidence budget (characters)",
        "Largest judge input, in characters, 1 … 1,000,000. Bigger turns are refused, never cut.",
        "main",
    ),
    Field(
        "language",
        "Language",
        "Language of prompts, supplements and notices; auto follows the request.",
        "main",
        ("auto", "en", "zh"),
    ),
    Field(
        "judge.provider",
        "Judge",
        "rules is offline and free; openai is any OpenAI-compatible endpoint.",
        "judge",
    ),
    Field("judge.model", "Model", "Model name; empty = the provider's default.", "judge"),
    Field(
        "judge.base_url",
        "Base URL",
        "An http(s) URL; empty = the provider's public endpoint.",
        "judge",
    ),
    Field(
        "judge.api_key_env",
        "API key variable",
        "The NAME of the environment variable holding the key (e.g. DEEPSEEK_API_KEY). "
        "Jev never stores the key itself.",
        "judge",
    ),
    Field("judge.timeout_s", "Timeout (seconds)", "Per judge call; a number > 0.", "more"),
    Field("judge.temperature", "Temperature", "0 … 2.", "more"),
    Field(
        "judge.technical_retries",
        "Technical retries",
        "Extra judge calls after a response error, 0 … 10.",
        "more",
    ),
    Field("records_days", "Keep records (days)", "1 … 3650.", "more"),
    Field(
        "evidence.transcript",
        "Evidence from the turn's runs",
        "Compare claims such as 'all tests pass' with the turn's own last test, build or "
        "lint run; a disagreement is a contradiction, decided without a judge call.",
        "more",
        ("true", "false"),
    ),
    Field(
        "evidence.checks",
        "Checks on request",
        'A JSON list of commands, e.g. ["python -m pytest -q"], run in the turn\'s folder '
        "when an audit would end complete; a failing one is an omission. [] = none.",
        "more",
    ),
    Field(
        "evidence.check_timeout_s",
        "Check timeout (seconds)",
        "Per check, > 0 and at most 3600; the check's process group is killed then.",
        "more",
    ),
)
_FIELD_KEYS = tuple(f.key for f in FIELDS)


def value_text(value: object) -> str:
    """The text a form field shows for a stored value (``true``, ``3``, ``0.5``, ``deepseek``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return json.dumps(list(value), ensure_ascii=False)
    return str(value)


def _flat(settings_json: dict[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in settings_json.items() if k not in st.TABLES}
    for table in st.TABLES:
        flat.update({f"{table}.{k}": v for k, v in (settings_json.get(table) or {}).items()})
    return flat


def _provider_choices(current: str) -> tuple[str, ...]:
    try:
        names = set(judge_names())
    except ImportError:  # pragma: no cover - jev.judges is part of Jev
        names = set()
    names |= {n for n in st.BUILTIN_JUDGES if n != "scripted"}
    names.discard("scripted")  # for tests and replay; still accepted when set elsewhere
    names.add(current)
    order = {"rules": 0, "openai": 1, "anthropic": 2}
    return tuple(sorted(names, key=lambda n: (order.get(n, 9), n)))


# ---------------------------------------------------------------------------- profile


def _profile(app: UiApp, req: Request) -> str:
    raw = req.form.get("profile") or req.query.get("profile") or ""
    if not raw:
        try:
            return st.active_profile(None)
        except UsageError:
            return "default"
    return st.check_profile_name(raw)


def page(app: UiApp, req: Request) -> Response:
    """GET ``/settings?profile=NAME``: the profile's values and the profile list."""
    try:
        name = _profile(app, req)
    except UsageError as exc:
        return _render(app, "default", status=400, page_error=str(exc))
    notice = ""
    saved = req.query.get("saved", "")
    if saved:
        notice = "Saved " + ", ".join(k for k in saved.split(",") if k in st.KEYS) + "."
    elif req.query.get("unchanged"):
        notice = "Nothing changed: every field already held that value."
    elif req.query.get("switched"):
        notice = f"Jev is now {'on' if req.query['switched'] == 'on' else 'off'} for {name}."
    elif req.query.get("created"):
        notice = f"Created profile {name}; it starts switched off."
    elif req.query.get("deleted"):
        notice = f"Deleted profile {req.query['deleted']}."
    return _render(app, name, notice=notice)


def _render(
    app: UiApp,
    name: str,
    *,
    status: int = 200,
    notice: str = "",
    page_error: str = "",
    errors: dict[str, str] | None = None,
    submitted: dict[str, str] | None = None,
    judge_test: JudgeTest | None = None,
    profile_error: str = "",
    new_name: str = "",
) -> Response:
    load_error = ""
    flat: dict[str, Any] = {}
    user: dict[str, Any] = {}
    try:
        flat = _flat(st.load_settings(name).to_json())
        user = st.user_values(name)
    except (SettingsError, UsageError) as exc:
        load_error = str(exc)
    rows = []
    for f in FIELDS:
        current = value_text(flat[f.key]) if f.key in flat else ""
        shown = (submitted or {}).get(f.key, current)
        choices = f.choices
        if f.key == "judge.provider":
            choices = _provider_choices(current)
        rows.append(
            {
                "field": f,
                "id": "f-" + f.key.replace(".", "-"),
                "value": shown,
                "current": current,
                "source": "profile file" if f.key in user else "default",
                "error": (errors or {}).get(f.key, ""),
                "choices": choices,
            }
        )
    key_env = str(flat.get("judge.api_key_env") or "")
    return app.render(
        "settings.html",
        status=status,
        active="settings",
        profile=name,
        profiles=st.list_profiles(),
        path=str(st.profile_path(name)),
        path_exists=st.profile_path(name).is_file(),
        enabled=bool(flat.get("enabled", False)),
        rows=rows,
        groups=(("main", "Audit"), ("judge", "Judge"), ("more", "More")),
        notice=notice,
        page_error=page_error or load_error,
        broken=bool(load_error),
        errors=errors or {},
        key_env=key_env,
        key_env_set=bool(key_env and os.environ.get(key_env)),
        judge_test=judge_test,
        profile_error=profile_error,
        new_name=new_name,
        sample=sample_material().to_json(),
    )


# ---------------------------------------------------------------------------- saving


def save_form(name: str, form: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """Validate the submitted settings form and save what changed, all or nothing.

    Args:
        name: the profile.
        form: submitted texts by dotted key (other names are ignored; ``enabled``
            is never read here).

    Returns:
        ``(saved_keys, errors)``: the keys written, or ``[]`` and ``{key: message}``
        when any field is refused (then nothing was written).

    Raises:
        SettingsError: the profile file is broken (nothing is written), a lock timeout
            or an OS error while writing (the old file stays).
        UsageError: invalid profile name.
    """
    current = _flat(st.load_settings(name).to_json())
    changes: dict[str, object] = {}
    errors: dict[str, str] = {}
    for key in _FIELD_KEYS:
        if key not in form:
            continue  # not on the submitted form: untouched
        raw = form[key]
        if raw == value_text(current[key]):
            continue
        try:
            changes[key] = st.parse_raw(key, raw, profile=name, exact=True)
        except SettingsError as exc:
            errors[key] = f"{exc} Nothing was saved; {key} is still {value_text(current[key])}."
    if errors:
        return [], errors
    if changes:
        st.save_settings(name, changes)
    return list(changes), {}


def save(app: UiApp, req: Request) -> Response:
    """POST ``/settings/save``: validate and save the settings form (never ``enabled``)."""
    try:
        name = _profile(app, req)
        saved, errors = save_form(name, dict(req.form))
    except (SettingsError, UsageError) as exc:
        return _render(app, "default", status=400, page_error=str(exc))
    if errors:
        submitted = {k: v for k, v in req.form.items() if k in _FIELD_KEYS}
        return _render(app, name, status=400, errors=errors, submitted=submitted)
    if not saved:
        return app.redirect("/settings", profile=name, unchanged="1")
    return app.redirect("/settings", profile=name, saved=",".join(saved))


def switch(app: UiApp, req: Request) -> Response:
    """POST ``/settings/enabled`` with ``enabled=true|false``: the feature switch alone."""
    try:
        name = _profile(app, req)
    except UsageError as exc:
        return _render(app, "default", status=400, page_error=str(exc))
    try:
        value = st.parse_raw("enabled", req.form.get("enabled", ""), profile=name, exact=True)
        st.save_settings(name, {"enabled": value})
    except SettingsError as exc:
        return _render(app, name, status=400, page_error=f"{exc} Nothing was changed.")
    return app.redirect("/settings", profile=name, switched="on" if value else "off")


def create_profile(app: UiApp, req: Request) -> Response:
    """POST ``/profiles/create`` with ``name``: a new profile file, switched off."""
    raw = req.form.get("name", "")
    current = req.form.get("profile") or "default"
    try:
        name = st.check_profile_name(raw)
    except UsageError as exc:
        return _render(app, current, status=400, profile_error=str(exc), new_name=raw)
    if st.profile_path(name).exists() or name == "default":
        return _render(
            app,
            current,
            status=400,
            profile_error=f"profile {name} already exists; pick it in the list to edit it.",
            new_name=raw,
        )
    try:
        st.save_settings(name, {"enabled": False})
    except SettingsError as exc:
        return _render(app, current, status=400, profile_error=str(exc), new_name=raw)
    return app.redirect("/settings", profile=name, created="1")


def delete_profile(app: UiApp, req: Request) -> Response:
    """POST ``/profiles/delete`` with ``name``: remove that profile's file (not ``default``)."""
    raw = req.form.get("name", "")
    try:
        name = st.check_profile_name(raw)
    except UsageError as exc:
        return _render(app, "default", status=400, profile_error=str(exc))
    if name == "default":
        return _render(
            app,
            "default",
            status=400,
            profile_error="the default profile cannot be deleted (its values can be changed).",
        )
    path = st.profile_path(name)
    try:
        path.unlink()
    except FileNotFoundError:
        return _render(app, "default", status=400, profile_error=f"no profile {name} to delete.")
    except OSError as exc:
        return _render(
            app, name, status=400, profile_error=f"cannot delete {path}: {exc.strerror or exc}."
        )
    return app.redirect("/settings", profile="default", deleted=name)


# ---------------------------------------------------------------------------- judge test


@dataclass(frozen=True, slots=True)
class JudgeTest:
    """What one test audit of the bundled turn gave.

    Attributes:
        ok: a verdict came back.
        judge: provider and model (``(heuristic)`` for the rules judge).
        assessment: the verdict's assessment ("" when none).
        focus_id: the focus position's id, ``quote`` its exact text.
        latency_ms: summed judge latency in milliseconds.
        input_tokens / output_tokens: as reported by the provider (``None`` if not).
        message: why no verdict came (judge error, missing key, …) or "".
        raw: the judge's last raw reply.
        expected: the bundled turn's expected assessment (``omission``).
    """

    ok: bool
    judge: str
    assessment: str = ""
    focus_id: str = ""
    quote: str = ""
    latency_ms: float = 0.0
    input_tokens: int | None = None
    output_tokens: int | None = None
    message: str = ""
    raw: str = ""
    expected: str = "omission"


def sample_material() -> Any:
    """The bundled test turn (``jev/ui/sample_turn.json``) as a :class:`~jev.base.domain.Material`.

    A turn whose Todo list still has one of three requested jobs pending while the
    answer is silent about it: a judge should answer ``omission``.
    """
    data = json.loads((_HERE / "sample_turn.json").read_text("utf-8"))
    return Material.from_json(data)


def run_judge_test(name: str) -> JudgeTest:
    """Run one audit of :func:`sample_material` with profile ``name``'s judge.

    Nothing is recorded and no supplement is decided. Never raises for judge trouble:
    a judge that cannot be built or answer gives ``ok=False`` and a message.

    Raises:
        SettingsError / UsageError: the profile cannot be loaded.
    """
    settings = st.load_settings(name)
    label = " ".join(x for x in (settings.judge.provider, settings.judge.model) if x)
    try:
        judge = create_judge(settings.judge)
    except (SettingsError, UsageError) as exc:
        return JudgeTest(ok=False, judge=label, message=str(exc))
    try:
        outcome = run_audit(sample_material(), settings, judge, sleep=lambda s: None)
    finally:
        judge.close()
    info = outcome.judge
    if info is not None:
        label = " ".join(x for x in (info.provider, info.model) if x)
        if info.heuristic:
            label += " (heuristic)"
    usage = outcome.usage
    verdict = outcome.verdict
    return JudgeTest(
        ok=verdict is not None,
        judge=label,
        assessment=verdict.assessment if verdict else "",
        focus_id=verdict.focus.id if verdict else "",
        quote=verdict.focus.text if verdict else "",
        latency_ms=outcome.latency_ms,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        message="" if verdict else (outcome.reason or "the judge gave no verdict"),
        raw=outcome.raw_replies[-1] if outcome.raw_replies else "",
    )


def try_judge(app: UiApp, req: Request) -> Response:
    """POST ``/settings/test-judge``: one audit of the bundled turn; the result on the page."""
    try:
        name = _profile(app, req)
        result = run_judge_test(name)
    except (SettingsError, UsageError) as exc:
        return _render(app, "default", status=400, page_error=str(exc))
    return _render(app, name, judge_test=result)
