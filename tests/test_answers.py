from answers import differences


def test_last_bit_float_noise_is_the_same_answer():
    assert differences({"score": 0.8835717644983688, "id": "a"}, {"score": 0.8835717706247737, "id": "a"}) == []


def test_another_order_or_id_or_a_real_score_change_is_a_difference():
    assert differences([{"id": "a"}, {"id": "b"}], [{"id": "b"}, {"id": "a"}])
    assert differences({"score": 0.88, "id": "a"}, {"score": 0.89, "id": "a"})
    assert differences({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert differences({"ok": True}, {"ok": 1})
