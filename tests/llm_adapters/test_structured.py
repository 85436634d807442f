import pytest
from pydantic import BaseModel, ValidationError

from llm_adapters.structured import batch_matches, extract_json, json_instruction, parse_reply, schema_json


class Pair(BaseModel):
    a: int
    b: str


class TestExtractJson:
    def test_bare_json(self):
        assert extract_json('{"a": 1}') == {"a": 1}

    def test_json_in_a_code_fence_after_prose(self):
        assert extract_json('Sure, here you go:\n```json\n{"a": 1, "b": "x"}\n```\nAnything else?') == {
            "a": 1,
            "b": "x",
        }

    def test_unlabelled_fence(self):
        assert extract_json("```\n[1, 2]\n```") == [1, 2]

    def test_object_after_leading_prose_with_trailing_text(self):
        assert extract_json('The answer is {"a": 2} as requested.') == {"a": 2}

    def test_no_json_is_a_value_error(self):
        with pytest.raises(ValueError, match="no JSON"):
            extract_json("I cannot help with that.")


class TestParseReply:
    def test_returns_a_validated_instance(self):
        assert parse_reply('{"a": 1, "b": "x"}', Pair) == Pair(a=1, b="x")

    def test_skips_json_that_does_not_fit_and_takes_one_that_does(self):
        text = 'Scores [1, 2] below.\n{"a": 3, "b": "y"}'
        assert parse_reply(text, Pair) == Pair(a=3, b="y")

    def test_schema_violation_raises_the_validation_error(self):
        with pytest.raises(ValidationError):
            parse_reply('{"a": "not a number", "b": "x"}', Pair)

    def test_no_json_raises_value_error(self):
        with pytest.raises(ValueError, match="no JSON"):
            parse_reply("nothing here", Pair)


class TestJsonInstruction:
    def test_names_every_field_of_the_schema(self):
        text = json_instruction(schema_json(Pair))
        assert "JSON Schema" in text and '"a"' in text and '"b"' in text


class TestBatchMatches:
    @pytest.mark.parametrize(
        ("items", "expected", "ok"),
        [
            ([1, 2, 3], 3, True),
            ([1, 2], 3, False),
            ([1, 2, 3, 4], 3, False),
            ([], 0, True),
            ((1, 2), 2, True),
            (None, 0, False),
            ("ab", 2, False),
            ({"a": 1}, 1, False),
        ],
    )
    def test_only_a_list_with_one_entry_per_input_matches(self, items, expected, ok):
        assert batch_matches(items, expected) is ok
