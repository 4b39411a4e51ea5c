"""Small parts of one Stop hook run (:mod:`jev.hosts.hook`; issue 23): the stop's
identity, the watchdog's notice, and the answer to a stdin whose text cannot be
trusted. Stdlib only.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from jev.hosts.base import HookAnswer
from jev.settings.profiles import load_settings

if TYPE_CHECKING:
    from jev.hosts.base import HookInput, HostAdapter

__all__ = ["refuse", "stop_identity", "timeout_notice"]


def stop_identity(stdin_text: str, transcript_path: str | None) -> str:
    """The identity of one host stop (issue 23): a digest of the hook's stdin and the
    transcript's size and modification time (``""`` parts when there is none).

    Two invocations of the same stop (a hook registered twice, at user and project
    scope) see the same stdin and the same transcript, so they share it; a re-stop
    after a block does not (the host adds its feedback to the transcript, sets
    ``stop_hook_active`` or a loop count). Never raises.
    """
    import hashlib  # lazy: only a stop that is audited needs it

    size = ""
    if transcript_path:
        with contextlib.suppress(OSError, ValueError):
            st = os.stat(transcript_path)
            size = f"{st.st_size}:{st.st_mtime_ns}"
    data = f"{size}\n{stdin_text}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


def timeout_notice() -> str:
    """The notice the watchdog (:mod:`jev.cli.hook_cmd`) gives when a stop passes its
    deadline before an answer was decided."""
    return (
        "Jev: the completion audit did not finish within the hook's time (a judge, the "
        "store or the telemetry collector did not answer in time); the turn stops as "
        "usual. Details in hook-errors.jsonl under the Jev home folder."
    )


def refuse(
    hook: HookInput, adapter: HostAdapter, profile: str | None, why: str
) -> tuple[str, str, str]:
    """A stop whose stdin text cannot be trusted (``why``): ``(stdout, stderr, skipped)``
    — a notice for a root stop of an enabled profile, nothing otherwise; no audit
    either way.

    Raises:
        jev.base.errors.SettingsError: the profile is invalid (the runner fails open).
    """
    if not hook.is_stop or hook.is_subagent:
        return "", "", "not a root-agent stop"
    settings = load_settings(profile)
    if not settings.enabled:
        return "", "", f"profile {settings.profile} is disabled"
    notice = f"Jev: {why}; the completion audit did not run."
    stdout, stderr = adapter.render(HookAnswer(notice=notice), hook)
    return stdout, stderr, "stdin not UTF-8"
