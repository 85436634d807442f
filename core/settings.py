"""One settings object read from the environment.

Every flag the project reads lives here. ``SEEK_HOME`` moves all state (indexes,
caches, runs, logs); tests point it at a temporary folder.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_REPO_ROOT = Path(__file__).resolve().parent.parent

EMBEDDER_CHOICES = ("minilm", "minilm-torch", "minilm-full", "fast", "mpnet", "minilm+mpnet")


def _default_home() -> Path:
    return Path(user_data_dir("seek", appauthor=False))


def _default_models_dir() -> Path:
    return Path(user_cache_dir("seek", appauthor=False)) / "models"


def _default_data_dir() -> Path:
    """The shared data lives beside the repository as ``../shared/data``."""
    return _REPO_ROOT.parent / "shared" / "data"


class Settings(BaseSettings):
    """Every setting and feature flag, read from ``SEEK_*`` variables (and the TechJam flag)."""

    model_config = SettingsConfigDict(env_prefix="SEEK_", extra="ignore", populate_by_name=True)

    home: Path = Field(default_factory=_default_home, description="All state: indexes, caches, runs, logs.")
    data_dir: Path = Field(default_factory=_default_data_dir, description="Where the shared datasets live.")
    llm: str = Field(default="offline", description="Model for SlideSearch LLM steps, e.g. anthropic:claude-haiku-4-5.")
    judge_llm: str = Field(default="offline", description="Model for the eval LLM judge.")
    embedder: str = Field(
        default="minilm+mpnet",
        description="Dense embedder: minilm+mpnet (the default: the mean of MiniLM's and mpnet's cosines, #17), minilm "
        "(int8 ONNX), mpnet (all-mpnet-base-v2 fp32), minilm-torch, minilm-full (both need the torch extra), fast.")
    models_dir: Path = Field(
        default_factory=_default_models_dir,
        description="Where model files unpacked from their wheels live (all-mpnet-base-v2, ~420 MB), shared by every "
        "SEEK_HOME of this user.")
    llm_cache: bool = Field(default=True, description="Cache LLM responses under SEEK_HOME/llm_cache.")
    usage_log: bool = Field(default=True, description="Record served searches in the library database.")
    api_token: str | None = Field(default=None, description="Bearer token required by the HTTP API when set.")
    store: str | None = Field(default=None, description="Where the library lives: unset (or 'local') for the files "
                                                         "under SEEK_HOME, or a postgresql://... URL (pgvector).")
    store_poll_seconds: float = Field(default=1.0, gt=0, description="How often a server over PostgreSQL checks "
                                                                     "for a newly published library generation.")
    techjam_phase6_mode: str | None = Field(
        default=None,
        validation_alias="TECHJAM_PHASE6_MODE",
        description="Turns on the Ten Turns LLM shortlist reranker; value is a model id or '1' for SEEK_LLM.",
    )

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        if value not in EMBEDDER_CHOICES:
            raise ValueError(f"unknown embedder {value!r}; choose one of {', '.join(EMBEDDER_CHOICES)}")
        return value

    @field_validator("store")
    @classmethod
    def _known_store(cls, value: str | None) -> str | None:
        if value is None or value.strip() in ("", "local"):
            return None
        if not value.startswith(("postgresql://", "postgres://")):
            raise ValueError(f"SEEK_STORE must be unset, 'local' or a postgresql:// URL, got {value.split('://')[0]!r}")
        return value.strip()

    @property
    def postgres_url(self) -> str | None:
        """The PostgreSQL library's URL when SEEK_STORE names one (None: the local files)."""
        return self.store

    @field_validator("llm", "judge_llm")
    @classmethod
    def _blank_is_offline(cls, value: str) -> str:
        return value.strip() or "offline"

    @property
    def phase6_enabled(self) -> bool:
        mode = self.techjam_phase6_mode
        return mode is not None and mode != "" and mode.strip().lower() not in {"0", "off", "false", "no"}

    @cached_property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    @cached_property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @cached_property
    def slides_dir(self) -> Path:
        return self.home / "slides"


def get_settings() -> Settings:
    """A fresh settings object from the current environment (cheap; no caching so tests can patch env)."""
    return Settings()
