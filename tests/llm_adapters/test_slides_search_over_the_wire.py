"""`seek slides search` with SEEK_LLM set makes real vendor requests (through each SDK) and uses the answers."""

import json

import pytest
from llm_stub import Scripted, StubServer, loopback_only
from test_anthropic_adapter import ANTHROPIC
from test_anthropic_adapter import _ok as anthropic_ok
from test_gemini_adapter import GEMINI
from test_gemini_adapter import _ok as gemini_ok
from test_nvidia_adapter import NVIDIA
from test_nvidia_adapter import _ok as nvidia_ok
from typer.testing import CliRunner

from cli.main import app
from slidesearch.library import Library
from slidesearch.model import Slide

pytestmark = pytest.mark.integration

SLIDES = [
    ("Acme case study: 12% cost cut in claims handling", "case_study"),
    ("Our approach to claims automation", "framework"),
    ("Claims data platform dashboard", "dashboard"),
    ("Team credentials for insurance analytics", "team"),
    ("Pricing and payment terms", "content"),
]


def _minimal(schema, defs):
    """The smallest instance of a JSON schema, so the stub can answer whatever the engine asks."""
    if "$ref" in schema:
        return _minimal(defs[schema["$ref"].split("/")[-1]], defs)
    if "anyOf" in schema:
        return _minimal(schema["anyOf"][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {k: _minimal(v, defs) for k, v in schema.get("properties", {}).items() if k in required}
    return {"string": "Case Studies", "number": 0.9, "integer": 1, "boolean": False, "array": [], "null": None}.get(kind)


class _SchemaAnswers:
    """A stub script that answers each request with a minimal valid instance of the schema it carried."""

    def __init__(self, stub, vendor, ok):
        self.stub, self.vendor, self.ok = stub, vendor, ok

    def __bool__(self):
        return True

    def popleft(self):
        schema = self.vendor.sent_schema(self.stub.requests[-1])
        text = json.dumps(_minimal(schema, schema.get("$defs", {}))) if schema else "ok"
        return Scripted(200, self.ok(text, 100, 20), {}, 0)


@pytest.mark.parametrize("vendor,ok", [(ANTHROPIC, anthropic_ok), (GEMINI, gemini_ok), (NVIDIA, nvidia_ok)],
                         ids=["anthropic", "gemini", "nvidia"])
def test_search_cli_makes_vendor_requests_and_reports_the_model(vendor, ok, tmp_path, monkeypatch):
    loopback_only(monkeypatch)
    slides = [Slide(slide_id=f"s{i}", deck_id=f"d{i % 3}", deck_name=f"Deck {i % 3}.pptx", title=title,
                    text=f"{title} details", content_type=kind, universe="DAAIS")
              for i, (title, kind) in enumerate(SLIDES)]
    index = tmp_path / "index"
    Library.from_slides(slides, embedder="fast").save(index)
    with StubServer() as stub:
        stub._script = _SchemaAnswers(stub, vendor, ok)
        monkeypatch.setenv(vendor.key_var, "test-key-not-real")
        monkeypatch.setenv(vendor.base_url_var, stub.url + vendor.url_suffix)
        monkeypatch.setenv("SEEK_LLM", vendor.model_id)
        monkeypatch.setenv("SEEK_EMBEDDER", "fast")
        result = CliRunner().invoke(app, ["slides", "search", "claims cost reduction case study", "--index",
                                          str(index), "--json"])
    assert result.exit_code == 0, result.output
    response = json.loads(result.output)
    assert response["llm"] == vendor.model_id
    assert stub.requests, "no request reached the vendor stub"
    assert {r.path for r in stub.requests} == {vendor.path}
    assert vendor.model_id in response["llm_steps"].values()
    assert response["groups"]
