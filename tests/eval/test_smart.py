import pytest

from eval.smart import parse_smart


class TestParseSmart:
    def test_fields_and_repeated_fields_are_joined(self):
        records = parse_smart(".I 1\n.T\nTitle here\n.A\nAnn\n.A\nBob\n.W\nsome\ntext\n.I 2\n.W\nmore\n")
        assert [r.id for r in records] == ["1", "2"]
        assert records[0].fields == {"T": "Title here", "A": "Ann\nBob", "W": "some\ntext"}

    def test_terminal_field_swallows_stray_markers(self):
        text = ".I 240\n.T\nt\n.W\nbody one\n.A\nstill body\n.B\nmore body\n.W\nsecond w\n"
        [record] = parse_smart(text, terminal=frozenset("W"))
        assert record.fields["W"] == "body one\nstill body\nmore body\nsecond w"
        assert "A" not in record.fields

    def test_text_before_first_record_is_an_error(self):
        with pytest.raises(ValueError, match="before the first"):
            parse_smart("junk\n.I 1\n.W\nx\n")
