from core.lexical import analyse
from slidesearch.passage import matched_passage


def _stem(text):
    return analyse(text, stemmer="english")


class TestMatchedPassage:
    def test_starts_at_the_line_holding_most_query_words(self):
        doc = "Acme Telecom\nMarch 2025\nReduced churn 18% in six months\n$2.4M retained"
        text, marks = matched_passage(doc, ["churn reduction"], _stem)
        assert text.startswith("Reduced churn 18%") and marks == ["churn"]

    def test_a_card_found_by_meaning_alone_previews_the_opening(self):
        doc = "Acme Telecom\nMarch 2025"
        assert matched_passage(doc, ["customer attrition"], _stem) == ("Acme Telecom March 2025", [])

    def test_stemmed_forms_are_marked_as_written(self):
        _, marks = matched_passage("Pricing options\nWe price per seat", ["prices"], _stem)
        assert marks == ["Pricing", "price"]
