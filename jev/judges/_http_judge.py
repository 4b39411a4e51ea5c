"""The base of every HTTP judge (design.md §13): settings checks, the API key, the
poster, ``repr`` and ``close``. The transport and its error classification live in
:mod:`jev.judges._http`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Self

from jev.base.domain import JudgeInfo, JudgeSettings
from jev.base.errors import SettingsError
from jev.judges._http import JsonPoster, read_api_key

__all__ = ["HttpJudge"]


class HttpJudge:
    """What every HTTP judge shares: settings checks, the key, the poster, repr, close.

    Subclasses set :attr:`provider`, :attr:`default_base_url`, :attr:`default_key_env`,
    :attr:`model_example` and :attr:`key_required` (False when the provider's own
    service runs without a key, as a local Ollama does), may override :meth:`_base` to
    normalise the base URL, and implement ``ask`` (the :class:`jev.judges.Judge` protocol).

    Args:
        model: model name (required).
        base_url: API base ("" = :attr:`default_base_url`).
        api_key_env: environment variable holding the key ("" = :attr:`default_key_env`).
        timeout_s: seconds for the whole call (0 < timeout_s <= 600).
        max_reply_bytes: largest decoded reply body (bytes; 0 = 1 MiB).
        temperature: sampling temperature.
        environ: where to read the key (defaults to :data:`os.environ`).

    Raises:
        SettingsError: ``model`` is empty, or the key variable holds an unusable value.
    """

    provider = ""
    default_base_url = ""
    default_key_env = ""
    model_example = ""
    #: What an HTTP 404 most likely means for this provider ("" = the generic hint).
    not_found_hint = ""
    #: Whether the provider's own service (the default base URL) always needs a key:
    #: then a missing key is refused before any call.
    key_required = True

    def __init__(
        self,
        *,
        model: str,
        base_url: str = "",
        api_key_env: str = "",
        timeout_s: float = 60.0,
        temperature: float = 0.0,
        environ: Mapping[str, str] | None = None,
        max_reply_bytes: int = 0,
    ) -> None:
        if not model.strip():
            example, _, note = self.model_example.partition(" (")
            raise SettingsError(
                f"judge.model is empty; the {self.provider} judge needs a model name: pass "
                f"--model NAME, or run `jev settings set judge.model {example}`"
                + (f" ({note}" if note else "")
            )
        self.base_url = self._base(base_url or self.default_base_url)
        self.api_key_env = api_key_env or self.default_key_env
        self.temperature = float(temperature)
        self.info = JudgeInfo(provider=self.provider, model=model, heuristic=False)
        key = read_api_key(self.api_key_env, environ)
        if (
            key is None
            and self.key_required
            and self.default_base_url
            and (self.base_url == self._base(self.default_base_url))
        ):
            # The provider's own service always needs a key: say so before any call
            # (a local OpenAI-compatible server at another base URL may need none).
            raise SettingsError(
                f"the environment variable {self.api_key_env} is not set; the "
                f"{self.provider} judge at {self.base_url} needs an API key: export "
                f"{self.api_key_env}=… (or name another variable with "
                "`jev settings set judge.api_key_env NAME`)"
            )
        self._key = key
        self._poster = JsonPoster(
            label=f"the {self.provider} judge at {self.base_url}",
            timeout_s=timeout_s,
            key_env=self.api_key_env,
            key_present=key is not None,
            secrets=(key,) if key else (),
            max_reply_bytes=max_reply_bytes,
            not_found_hint=self.not_found_hint,
        )
        self.url = self.base_url + self.path
        self._configure()

    #: Appended to the base URL to form the endpoint.
    path = ""

    def _configure(self) -> None:
        """Per-provider state set up after the shared fields (override as needed)."""

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> Self:
        """Registry factory: build from a profile's ``[judge]`` table (design.md §10).

        Raises:
            SettingsError: ``judge.model`` is empty.
        """
        return cls(
            model=settings.model,
            base_url=settings.base_url,
            api_key_env=settings.api_key_env,
            timeout_s=settings.timeout_s,
            temperature=settings.temperature,
        )

    @staticmethod
    def _base(url: str) -> str:
        return url.rstrip("/")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self.info.model!r}, base_url={self.base_url!r}, "
            f"api_key_env={self.api_key_env!r}, key_set={self._key is not None})"
        )

    def close(self) -> None:
        """Close the connection pool (idempotent)."""
        self._poster.close()
