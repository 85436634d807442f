import hashlib

from core.files import file_sha256


class TestFileSha256:
    def test_matches_hashlib_over_a_file_larger_than_one_block(self, tmp_path):
        data = bytes(range(256)) * 5000
        path = tmp_path / "blob.bin"
        path.write_bytes(data)
        assert file_sha256(path) == hashlib.sha256(data).hexdigest()

    def test_empty_file(self, tmp_path):
        path = tmp_path / "empty"
        path.write_bytes(b"")
        assert file_sha256(path) == hashlib.sha256(b"").hexdigest()
