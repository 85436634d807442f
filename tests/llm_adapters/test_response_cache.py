import threading

import pytest

from llm_adapters.response_cache import CacheError, ResponseCache, cache_key


class TestCacheKey:
    def test_each_part_changes_the_key(self):
        base = cache_key("anthropic:m", "sys", "prompt", {"type": "object"})
        assert (
            len(
                {
                    base,
                    cache_key("gemini:m", "sys", "prompt", {"type": "object"}),
                    cache_key("anthropic:m", None, "prompt", {"type": "object"}),
                    cache_key("anthropic:m", "sys", "prompt!", {"type": "object"}),
                    cache_key("anthropic:m", "sys", "prompt", None),
                }
            )
            == 5
        )

    def test_schema_key_order_does_not_matter(self):
        assert cache_key("m", None, "p", {"a": 1, "b": 2}) == cache_key("m", None, "p", {"b": 2, "a": 1})


class TestResponseCache:
    def test_missing_file_is_an_empty_cache_and_is_not_created_by_reads(self, tmp_path):
        cache = ResponseCache.under(tmp_path)
        assert cache.get("k") is None and len(cache) == 0
        assert not (tmp_path / "llm_cache").exists()

    def test_put_then_get_round_trips_across_instances(self, tmp_path):
        ResponseCache.under(tmp_path).put("k", "anthropic:m", '{"a": "ü"}')
        assert ResponseCache.under(tmp_path).get("k") == '{"a": "ü"}'
        assert (tmp_path / "llm_cache" / "responses.sqlite3").exists()

    def test_put_replaces(self, tmp_path):
        cache = ResponseCache.under(tmp_path)
        cache.put("k", "m", "one")
        cache.put("k", "m", "two")
        assert cache.get("k") == "two" and len(cache) == 1

    def test_concurrent_writers_lose_nothing(self, tmp_path):
        cache = ResponseCache.under(tmp_path)

        def write(start):
            for i in range(start, start + 20):
                cache.put(f"k{i}", "m", str(i))

        threads = [threading.Thread(target=write, args=(n * 20,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(cache) == 80 and cache.get("k79") == "79"

    def test_damaged_file_is_one_clear_error_naming_the_file(self, tmp_path):
        cache = ResponseCache.under(tmp_path)
        cache.path.parent.mkdir(parents=True)
        cache.path.write_bytes(b"this is not a database" * 100)
        with pytest.raises(CacheError, match="responses.sqlite3 is unreadable.*SEEK_LLM_CACHE=0"):
            cache.get("k")
