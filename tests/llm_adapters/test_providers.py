import pytest

from llm_adapters import LLMUnavailable, OfflineModel, ResponseCache, get_model, provider_status
from llm_adapters.anthropic_adapter import AnthropicModel
from llm_adapters.gemini_adapter import GeminiModel
from llm_adapters.nvidia_adapter import NvidiaModel


class TestGetModel:
    def test_default_is_offline(self):
        model = get_model()
        assert isinstance(model, OfflineModel) and model.is_offline and model.id == "offline"

    def test_default_follows_seek_llm(self, monkeypatch):
        monkeypatch.setenv("SEEK_LLM", "gemini:gemini-2.5-flash")
        model = get_model()
        assert (
            isinstance(model, GeminiModel) and model.id == "gemini:gemini-2.5-flash" and not model.is_offline
        )

    @pytest.mark.parametrize(
        ("model_id", "cls", "model"),
        [
            ("anthropic:claude-haiku-4-5", AnthropicModel, "claude-haiku-4-5"),
            ("gemini:gemini-2.5-flash", GeminiModel, "gemini-2.5-flash"),
            ("nvidia:meta/llama-3.3-70b-instruct", NvidiaModel, "meta/llama-3.3-70b-instruct"),
        ],
    )
    def test_provider_prefix_chooses_the_adapter(self, model_id, cls, model):
        built = get_model(model_id)
        assert type(built) is cls and built.model == model and built.id == model_id

    @pytest.mark.parametrize("bad", ["openai:gpt-5", "anthropic:", "claude-haiku-4-5"])
    def test_unknown_id_lists_the_valid_forms(self, bad):
        with pytest.raises(ValueError, match="offline, anthropic:<model>, gemini:<model>, nvidia:<model>"):
            get_model(bad)

    def test_building_needs_no_key_but_calling_names_the_variable(self):
        model = get_model("nvidia:meta/llama-3.3-70b-instruct")
        with pytest.raises(LLMUnavailable, match="NVIDIA_API_KEY"):
            model.complete("hi")

    def test_cache_follows_settings(self, monkeypatch, tmp_path):
        assert isinstance(get_model("anthropic:claude-haiku-4-5").cache, ResponseCache)
        monkeypatch.setenv("SEEK_LLM_CACHE", "0")
        assert get_model("anthropic:claude-haiku-4-5").cache is None

    def test_cache_lives_under_seek_home(self, monkeypatch, tmp_path):
        monkeypatch.setenv("SEEK_HOME", str(tmp_path))
        cache = get_model("anthropic:claude-haiku-4-5").cache
        assert cache.path == tmp_path / "llm_cache" / "responses.sqlite3"


class TestProviderStatus:
    def test_no_keys_means_only_offline_is_usable(self):
        status = provider_status()
        assert set(status) == {"offline", "anthropic", "gemini", "nvidia"}
        assert status["offline"]["usable"] is True
        for provider, key_var in (
            ("anthropic", "ANTHROPIC_API_KEY"),
            ("gemini", "GEMINI_API_KEY"),
            ("nvidia", "NVIDIA_API_KEY"),
        ):
            assert status[provider]["usable"] is False
            assert status[provider]["key_var"] == key_var and "not set" in status[provider]["reason"]

    def test_a_set_key_makes_the_provider_usable_without_revealing_it(self, monkeypatch):
        monkeypatch.setenv("GOOGLE_API_KEY", "secret-value")
        monkeypatch.setenv("SEEK_GEMINI_BASE_URL", "http://127.0.0.1:9")
        gemini = provider_status()["gemini"]
        assert gemini["usable"] is True and gemini["key_var"] == "GOOGLE_API_KEY"
        assert "http://127.0.0.1:9" in gemini["reason"]
        assert "secret-value" not in str(provider_status())
