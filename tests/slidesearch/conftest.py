"""A small real library for the pipeline stage tests, and a way to build a tiny one with chosen vectors.

``small_library`` holds 40 slides in 16 decks over the three universes: three versions of one
deck ("Fraud Analytics v1 / vFinal / draft", one canonical deck) with an exact copy and a near
copy of one slide, folders of every kind the 08 folder table names, content types of every
section, deck dates from 2020-01-01 to 2024-01-01 (and one deck with none), and a master sheet
of three verified rows (one scoped to DAAIS, one to EdTech, one company-wide). Tests look slides up by id
(``small_library.id_to_row["blackrock"]``) so adding a slide changes no expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

import numpy as np
import pytest
from numpy.typing import NDArray

from slidesearch.library import Library, LibraryView
from slidesearch.model import Slide, VerifiedCaseStudy

_DECKS: dict[str, tuple[str, str, date | None]] = {  # deck id: (file name, folder, date)
    "fraud-v1": ("Fraud Analytics v1.pptx", "/DAAIS/Sales/Collateral", date(2021, 1, 1)),
    "fraud-final": ("Fraud Analytics vFinal.pptx", "/DAAIS/Sales/Collateral", date(2023, 1, 1)),
    "fraud-draft": ("Fraud Analytics draft.pptx", "/DAAIS/Sales/Collateral", date(2022, 1, 1)),
    "customer": ("Customer Analytics.pptx", "/DAAIS/Sales/Collateral", date(2024, 1, 1)),
    "acme": ("Acme Bank Case Study.pptx", "/DAAIS/Clients/Acme", date(2022, 1, 1)),
    "blackrock": ("BlackRock Partnership.pptx", "/DAAIS/Sales", date(2022, 1, 1)),
    "compendium": ("Case Studies Compendium.pptx", "/DAAIS/Sales/Collateral/Case Studies", date(2023, 1, 1)),
    "team": ("Leadership Team.pptx", "/DAAIS/Sales/Team", date(2020, 1, 1)),
    "delivery": ("Delivery Approach.pptx", "/DAAIS/Delivery/Methodology", date(2021, 1, 1)),
    "awards": ("Awards.pptx", "/DAAIS/Marketing", date(2024, 1, 1)),
    "pricing": ("Pricing Proposal.pptx", "/DAAIS/Proposals", date(2023, 1, 1)),
    "cloud": ("Cloud Migration.pptx", "/DAAIS/Sales", None),
    "demo": ("Demo Walkthrough.pptx", "/DAAIS/Demos", date(2024, 1, 1)),
    "capital": ("Capital Markets.pptx", "/S&R/Sales", date(2022, 1, 1)),
    "learning": ("Learning Analytics.pptx", "/EdTech/Sales", date(2021, 1, 1)),
    "campus": ("Campus Case Studies.pptx", "/EdTech/Clients", date(2023, 1, 1)),
}

_SLIDES: tuple[tuple[str, str, str, str, str], ...] = (  # slide id, deck id, content type, title, text
    ("fraud-v1-overview", "fraud-v1", "content", "Fraud detection overview",
     "Real-time fraud detection for card payments using graph analytics and anomaly scoring."),
    ("fraud-v1-rules", "fraud-v1", "framework", "Fraud rules engine",
     "A rules engine framework that combines analyst rules with machine learning risk scores."),
    ("fraud-v1-alerts", "fraud-v1", "dashboard", "Fraud alerts dashboard",
     "Dashboard of fraud alerts by channel, merchant and hour with investigator queues."),
    ("fraud-final-overview", "fraud-final", "content", "Fraud Detection Overview",
     "Real-time fraud detection for card payments  using graph analytics and anomaly scoring."),
    ("fraud-final-alerts", "fraud-final", "dashboard", "Fraud alerts dashboard",
     "Dashboard of fraud alerts by channel, merchant and hour with investigator work queues."),
    ("fraud-draft-overview", "fraud-draft", "content", "Fraud detection overview draft",
     "Draft: real-time fraud detection for card payments using graph analytics."),
    ("customer-dashboard", "customer", "dashboard", "Customer analytics dashboard",
     "NPS, churn risk and revenue per account in one customer analytics dashboard."),
    ("customer-churn", "customer", "chart", "Churn by segment",
     "Monthly churn by customer segment and tenure band, with the drivers of attrition."),
    ("customer-agenda", "customer", "agenda", "Agenda", "Agenda"),
    ("customer-title", "customer", "title", "Customer Analytics", "Customer Analytics"),
    ("acme-case", "acme", "case_study", "Fraud detection for a bank",
     "Acme Bank cut card fraud losses by 23% with real-time anomaly scoring."),
    ("acme-quote", "acme", "testimonial", "What Acme Bank says",
     "The fraud team now reviews half the alerts it used to, says the head of risk at Acme Bank."),
    ("blackrock", "blackrock", "content", "BlackRock partnership",
     "Data engineering and portfolio analytics delivered for BlackRock."),
    ("cs-emissions", "compendium", "case_study", "Cloud migration for a manufacturer",
     "1.6ktCO2 emissions reduction by cloud migration of the plant systems."),
    ("cs-claims", "compendium", "case_study", "Claims automation for an insurer",
     "Claims triage automated end to end: saved $2M and 30 FTEs a year."),
    ("cs-retail", "compendium", "case_study", "Demand forecasting for a retailer",
     "Store-level demand forecasting lifted availability: sales up 12% in the pilot region."),
    ("team-anand", "team", "team", "Leadership team",
     "Anand S, chief data scientist, leads the analytics practice and its research."),
    ("team-naveen", "team", "team", "Naveen Gattu",
     "Naveen Gattu, co-founder, leads client delivery for banking and insurance."),
    ("delivery-framework", "delivery", "framework", "Our delivery framework",
     "Discovery, design, build and scale: the four phases of an analytics engagement."),
    ("delivery-process", "delivery", "process", "Agile delivery process",
     "Two-week sprints with a demo to the business owner at the end of every sprint."),
    ("delivery-timeline", "delivery", "timeline", "Twelve-week plan",
     "Week one discovery workshops, week four first model, week twelve production rollout."),
    ("awards-gartner", "awards", "award", "Named a leader by Gartner",
     "Named a leader in the Gartner Magic Quadrant for data science and machine learning platforms."),
    ("awards-why", "awards", "content", "Why choose us",
     "Why choose us: ten years of analytics delivery and an award-winning design team."),
    ("pricing-terms", "pricing", "commercial", "Payment terms",
     "Payment terms: invoiced monthly, net 30 days, fixed-fee milestones for each phase."),
    ("pricing-rates", "pricing", "content", "Rate card",
     "Rate card for data engineers, data scientists and engagement managers."),
    ("cloud-workloads", "cloud", "content", "Cloud migration",
     "Moved 300 workloads to the cloud and retired two data centres."),
    ("cloud-costs", "cloud", "chart", "Cloud cost trend",
     "Monthly cloud spend after migration, by service and environment."),
    ("demo-walkthrough", "demo", "image", "Demo walkthrough",
     "Screens of the fraud investigation demo."),
    ("demo-dashboard", "demo", "dashboard", "Demo dashboard",
     "Live demo of the fraud alerts dashboard with sample data."),
    ("capital-call", "capital", "content", "Capital call notice automation",
     "Automated capital call notices for private equity fund administrators."),
    ("capital-reporting", "capital", "content", "Fund reporting",
     "Quarterly investor reporting for private markets funds with NAV reconciliation."),
    ("capital-case", "capital", "case_study", "Fund administrator case study",
     "A fund administrator cut quarterly reporting time by 40% with automated reconciliation."),
    ("capital-kyc", "capital", "process", "Investor onboarding",
     "Investor onboarding and KYC checks in one workflow for fund administrators."),
    ("learning-analytics", "learning", "content", "Learning analytics",
     "Student engagement analytics for universities: attendance, submissions and forum activity."),
    ("learning-dashboard", "learning", "dashboard", "Student engagement dashboard",
     "Dashboard of student engagement by course and cohort for academic advisers."),
    ("learning-team", "learning", "team", "EdTech team",
     "Our EdTech team of learning scientists and data engineers."),
    ("campus-retention", "campus", "case_study", "University retention case study",
     "A university raised first-year retention up 8% with early-warning analytics."),
    ("campus-admissions", "campus", "case_study", "Admissions forecasting case study",
     "Admissions yield forecasting for a state university system."),
    ("campus-quote", "campus", "testimonial", "What the provost says",
     "The early-warning dashboard changed how our advisers spend their week, says the provost."),
    ("campus-closing", "campus", "closing", "Thank you", "Thank you"),
)

_MASTER: tuple[VerifiedCaseStudy, ...] = (
    VerifiedCaseStudy(row_id="M1", client="Acme Bank", use_case="card fraud detection", title="Acme Bank fraud",
                      summary="Real-time card fraud detection cut fraud losses by 23% ($4M a year).",
                      universe="DAAIS"),
    VerifiedCaseStudy(row_id="M2", client="Globex Insurance", use_case="claims automation",
                      title="Globex claims triage", summary="Automated claims triage saved 30 FTEs."),
    VerifiedCaseStudy(row_id="M3", client="State University", use_case="student retention",
                      title="Early-warning analytics", summary="First-year retention up 8% with early-warning analytics.",
                      universe="EdTech"),
)


def _small_slides() -> list[Slide]:
    out = []
    for number, (slide_id, deck, ctype, title, text) in enumerate(_SLIDES, start=1):
        name, folder, day = _DECKS[deck]
        out.append(Slide(slide_id=slide_id, deck_id=deck, deck_name=name, folder=folder, slide_number=number,
                         title=title, text=text, content_type=ctype, deck_date=day))
    return out


@pytest.fixture(scope="session")
def small_slides() -> list[Slide]:
    return _small_slides()


@pytest.fixture(scope="session")
def small_library(small_slides) -> Library:
    return Library.from_slides(small_slides, master=_MASTER, embedder="fast")


@pytest.fixture(scope="session")
def small_view(small_library) -> LibraryView:
    return LibraryView(small_library)


@pytest.fixture(scope="session")
def rows(small_library) -> Callable[..., list[int]]:
    """The rows of the given slide ids, in the order given."""
    def lookup(*ids: str) -> list[int]:
        return [small_library.id_to_row[i] for i in ids]
    return lookup


class TableEmbedder:
    """An embedder that looks each text up in a table: a real library with vectors a test chose.

    A text not in the table (a taxonomy term the library mines) gets the zero vector, which
    matches nothing.
    """

    name = "table"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {text: np.asarray(vec, dtype=np.float32) for text, vec in table.items()}
        self.dim = len(next(iter(self.table.values())))

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        zero = np.zeros(self.dim, dtype=np.float32)
        return np.stack([self.table.get(t, zero) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


@pytest.fixture(scope="session")
def vector_library() -> Callable[..., Library]:
    """Build a real library whose slide (and master-row) vectors are the ones given, row for row."""
    def build(slides: Sequence[Slide], vectors: Sequence[Sequence[float]],
              master: Sequence[VerifiedCaseStudy] = (), master_vectors: Sequence[Sequence[float]] = ()) -> Library:
        table = {s.snippet: v for s, v in zip(slides, vectors, strict=True)}
        table.update({m.document: v for m, v in zip(master, master_vectors, strict=True)})
        if len(table) != len(slides) + len(master):
            raise ValueError("every slide and master row needs a text of its own to carry its vector")
        return Library.from_slides(slides, master=master, embedder=TableEmbedder(table))
    return build
