"""The small slide library every serving test runs on (service, HTTP, MCP, browser, CLI): one corpus."""

from pathlib import Path

from slidesearch.library import Library
from slidesearch.model import Slide, VerifiedCaseStudy


def _slide(slide_id, folder, deck, number, title, text, content_type="content"):
    return Slide(slide_id=slide_id, deck_id=deck.rsplit(".", 1)[0], deck_name=deck, folder=folder,
                 slide_number=number, title=title, text=text, content_type=content_type)


SERVE_SLIDES = [
    _slide("d1", "/DAAIS/Collateral/Analytics", "Retail Analytics v2.pptx", 1, "Customer analytics for retail banks",
           "Segment customers by lifetime value and next best action. Customer analytics programme in 12 weeks."),
    _slide("d2", "/DAAIS/Collateral/Analytics", "Retail Analytics v2.pptx", 2, "Churn prediction dashboard",
           "Weekly churn risk by segment, revenue at risk, retention campaign uplift.", "dashboard"),
    _slide("d3", "/DAAIS/Clients/Banking", "Bank Fraud Case Study.pptx", 4, "Case study: fraud detection for a tier-1 bank",
           "Real-time fraud detection models reduced false positives by 35% and saved $4.2M a year.", "case_study"),
    _slide("d4", "/DAAIS/Collateral/Compliance", "Compliance Automation.pptx", 2,
           "Our approach to regulatory compliance automation",
           "Four-step framework: map obligations, automate controls, monitor, report to regulators.", "framework"),
    _slide("d5", "/DAAIS/Collateral/Capabilities", "Data Engineering Overview.pptx", 3, "Data engineering capabilities",
           "Cloud data platforms, pipelines, data quality and governance for analytics teams."),
    _slide("d6", "/DAAIS/Team", "Leadership Profiles.pptx", 1, "Anand S, co-founder",
           "Profile: Anand S leads data science and analytics strategy; 20 years in consulting.", "team"),
    _slide("d7", "/DAAIS/Collateral/Awards", "Recognition 2025.pptx", 1, "Analyst recognition",
           "Named a leader in the Everest Group PEAK Matrix for analytics services."),
    _slide("d8", "/DAAIS/Proposals", "Proposal Template.pptx", 9, "Scope of work and payment terms",
           "Fixed-fee engagement, payment terms net 30 days, milestones and acceptance."),
    _slide("d9", "/DAAIS/Collateral/Analytics", "Retail Analytics v1.pptx", 1, "Customer analytics for retail banks",
           "Segment customers by lifetime value and next best action. Customer analytics programme in 10 weeks."),
    _slide("s1", "/S&R/Clients/Asset Management", "BlackRock Case Study.pptx", 2,
           "Case study: BlackRock capital call automation",
           "Automated capital call notices and investor reporting; cut processing time by 60%.", "case_study"),
    _slide("s2", "/S&R/Collateral", "Fund Analytics.pptx", 1, "Fund administration analytics",
           "Dashboards for NAV, fees and investor flows across funds.", "dashboard"),
    _slide("s3", "/S&R/Collateral", "Fund Analytics.pptx", 2, "Customer analytics for asset managers",
           "Investor segmentation and customer analytics for distribution teams."),
    _slide("s4", "/S&R/Collateral", "Reporting Framework.pptx", 1, "Investor reporting framework",
           "Quarterly reporting process, data controls and sign-off workflow.", "framework"),
    _slide("e1", "/EdTech/Collateral", "Learning Analytics.pptx", 1, "Learning analytics dashboards",
           "Cohort dashboards, engagement and completion tracking for online courses.", "dashboard"),
    _slide("e2", "/EdTech/Clients", "University Case Study.pptx", 3, "Case study: adaptive learning for a university",
           "Adaptive learning paths raised course completion by 18% across 40,000 students.", "case_study"),
    _slide("e3", "/EdTech/Collateral", "Learning Analytics.pptx", 2, "Customer analytics for EdTech platforms",
           "Learner segmentation, customer analytics and retention for EdTech subscriptions."),
    _slide("e4", "/EdTech/Collateral", "Curriculum Design.pptx", 1, "Curriculum design approach",
           "Outcome-based curriculum design in five steps with faculty workshops.", "framework"),
]

SERVE_MASTER = [
    VerifiedCaseStudy(row_id="m1", client="Tier-1 bank", use_case="Fraud detection",
                      title="Fraud detection at a tier-1 bank", summary="Cut false positives by 35%, saving $4.2M."),
]


def build_library() -> Library:
    return Library.from_slides(SERVE_SLIDES, SERVE_MASTER, embedder="fast")


def build_index(home: Path) -> Path:
    """Save the serving corpus as ``home/slides/index`` (the default index) and return its path."""
    index = home / "slides" / "index"
    index.parent.mkdir(parents=True, exist_ok=True)
    build_library().save(index)
    return index
