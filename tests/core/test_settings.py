import pytest
from pydantic import ValidationError

from core.embed import make_embedder
from core.settings import EMBEDDER_CHOICES, Settings


class TestEmbedderSetting:
    def test_a_name_make_embedder_cannot_build_is_rejected_when_settings_load(self):
        with pytest.raises(ValueError, match="unknown embedder"):
            make_embedder("gemini:text-embedding-004")
        with pytest.raises(ValidationError, match="unknown embedder 'gemini:text-embedding-004'"):
            Settings(embedder="gemini:text-embedding-004")

    @pytest.mark.parametrize("name", EMBEDDER_CHOICES)
    def test_every_choice_is_accepted(self, name):
        assert Settings(embedder=name).embedder == name
