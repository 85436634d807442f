from tenturns.agents.dialogue import Kind, ShelfMatcher, read_opening, read_reply

MATCHER = ShelfMatcher(["Shirts", "Men Shirts", "Women Shirts", "Socks"])


class TestShelfMatcher:
    def test_longest_label_after_the_opening_prefix_wins(self):
        assert MATCHER.match("I'm looking for Men Shirts. A key requirement is: cotton.")[0] == "Men Shirts"

    def test_a_label_inside_a_longer_one_does_not_steal_the_match(self):
        assert MATCHER.match("I'm looking for Women Shirts, but I'm still exploring.")[0] == "Women Shirts"

    def test_free_text_falls_back_to_a_case_insensitive_substring(self):
        assert MATCHER.match("do you have any men shirts in blue")[0] == "Men Shirts"

    def test_no_label_means_no_shelf(self):
        assert MATCHER.match("I'm looking for Hats.")[0] is None


class TestReadOpening:
    def test_buying_opening_discloses_the_key_requirement(self):
        reading = read_opening("I'm looking for Socks. A key requirement is: color: black.", MATCHER)
        assert (reading.shelf, reading.phrases, reading.counted) == ("Socks", ("color: black",), 1)

    def test_exploring_opening_discloses_nothing(self):
        reading = read_opening("I'm looking for Socks, but I'm still exploring.", MATCHER)
        assert reading.exploring and reading.phrases == () and reading.shelf == "Socks"

    def test_override_opening_states_the_old_preference(self):
        reading = read_opening("I'm looking for Men Shirts. Machine Wash", MATCHER)
        assert reading.phrases == ("Machine Wash",)

    def test_unknown_shelf_keeps_the_whole_message_as_a_requirement(self):
        reading = read_opening("red wool scarf", MATCHER)
        assert reading.shelf is None and reading.phrases == ("red wool scarf",)


class TestReadReply:
    def test_disclosure_splits_two_phrases(self):
        reading = read_reply("For that, what matters is: cotton; Machine Wash.")
        assert reading.kind == Kind.DISCLOSURE and reading.phrases == ("cotton", "Machine Wash") and reading.counted == 2

    def test_a_phrase_holding_the_separator_never_counts_as_more_than_two(self):
        reading = read_reply("For that, what matters is: a; Package Dimensions: 1 x 2 inches; 8 Ounces.")
        assert reading.counted == 2 and len(reading.phrases) == 3

    def test_boundary_no_preference_reveals_nothing(self):
        reading = read_reply("I don't have a preference for other; please use your judgment.")
        assert reading.kind == Kind.NO_PREFERENCE and reading.attribute == "other" and not reading.phrases

    def test_nothing_left_names_the_attribute(self):
        reading = read_reply("I don't have an additional preference for other.")
        assert reading.kind == Kind.NOTHING_LEFT and reading.attribute == "other"

    def test_override_retracts_the_opening_and_states_the_new_need(self):
        reading = read_reply("Actually, ignore my earlier preference. What I need is: Pull On closure.")
        assert reading.kind == Kind.OVERRIDE and reading.retract_opening and reading.phrases == ("Pull On closure",)

    def test_override_without_a_new_need_only_retracts(self):
        reading = read_reply("Actually, please ignore my earlier preference.")
        assert reading.kind == Kind.OVERRIDE and reading.phrases == ()

    def test_ask_specific_reply_reveals_nothing(self):
        reading = read_reply("Those options are not quite right yet. Ask me about one specific attribute.")
        assert reading.kind == Kind.ASK_SPECIFIC and not reading.phrases

    def test_anything_else_is_one_free_text_requirement(self):
        assert read_reply("something in navy please").phrases == ("something in navy please",)
