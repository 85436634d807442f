import base64
import re
import subprocess

import numpy as np
import pytest
from matplotlib.image import imread
from system_tools import require_tool

from eval.report import funnel_rows, render_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _images(page: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)]


class TestRenderReport:
    def test_page_is_self_contained_with_every_chart(self, sample_runs, tmp_path):
        page_path, png_path = render_report(list(sample_runs), tmp_path / "report.html")
        page = page_path.read_text()
        images = _images(page)
        assert len(images) == 6
        assert all(img.startswith(PNG_MAGIC) for img in images)
        assert "http://" not in page and "https://" not in page and "<script" not in page
        assert png_path == tmp_path / "report.png" and png_path.read_bytes() == images[0]
        assert "20261129-190500" in page and "customer analytics" in page
        assert "Paired comparison against 20261129-190000" in page and "ACCEPT" in page

    def test_missing_kinds_say_so_instead_of_drawing_empty_charts(self, sample_runs, tmp_path):
        run = sample_runs[0].model_copy(update={"datasets": {"cranfield": sample_runs[0].datasets["cranfield"]}})
        page = render_report([run], tmp_path / "r.html")[0].read_text()
        assert "No Ten Turns dataset in these runs." in page and "No judged pipeline dataset" in page

    def test_no_runs_is_an_error(self, tmp_path):
        with pytest.raises(ValueError):
            render_report([], tmp_path / "r.html")


class TestFunnelRows:
    def test_list_and_mapping_traces(self):
        assert funnel_rows([{"stage": "prefilter", "in": 10, "out": 4}]) == [("prefilter", 10, 4)]
        assert funnel_rows({"floor": {"n_in": 9, "n_out": 3}}) == [("floor", 9, 3)]


@pytest.mark.integration
def test_report_renders_in_headless_chromium(sample_runs, tmp_path):
    chromium = require_tool("chromium", "chromium-browser", package="chromium")
    page_path, _ = render_report(list(sample_runs), tmp_path / "report.html")
    shot = tmp_path / "shot.png"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,2000",
         page_path.resolve().as_uri()],
        check=True, capture_output=True, timeout=90,
    )
    pixels = imread(shot)[..., :3]
    # the verdict bars' green and red must be on screen: the charts were drawn, not just the tables
    green = np.all(np.abs(pixels - np.array([0x2E, 0x7D, 0x32]) / 255) < 0.06, axis=-1).sum()
    red = np.all(np.abs(pixels - np.array([0xC6, 0x28, 0x28]) / 255) < 0.06, axis=-1).sum()
    assert green > 500 and red > 500
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50


def test_product_datasets_get_a_by_kind_table(make_dataset, make_run, tmp_path):
    product = make_dataset("realdecks", [0.5, 0.4], mode="pipeline").model_copy(update={
        "primary": "product_ndcg@10",
        "summary": {"n": 2.0, "product_ndcg@10": 0.45, "precision": 0.75, "unjudged_total": 3.0},
        "per_group": {"paraphrase": {"n": 2.0, "product_ndcg@10": 0.45, "precision": 0.75, "unjudged_total": 3.0}},
    })
    page = render_report([make_run("20261201-100000", [product])], tmp_path / "r.html")[0].read_text()
    assert "Product measure by kind of brief" in page
    assert "<td>paraphrase</td><td>2</td><td>0.450</td><td>0.750</td><td>3</td>" in page
