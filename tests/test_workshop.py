"""The room's plan: the message to send names the check page at the site's address (and no address when none is
set), and the recorded first visit is a consistent measurement of the built site."""

from __future__ import annotations

import pytest

from coursebuild import workshop
from coursebuild.workshop import CHECK_PAGE, FirstVisit, first_visit, message_markdown


def test_the_message_points_at_the_check_page_at_the_sites_address() -> None:
    text = message_markdown("https://course.example.org/multi-lora/")
    assert f"https://course.example.org/multi-lora/{CHECK_PAGE}" in text and "the course site, https://" in text


def test_without_an_address_the_message_names_the_page_and_prints_no_placeholder() -> None:
    text = message_markdown("")
    assert "*Check your laptop*" in text and "http" not in text and "<" not in text


def test_the_recorded_first_visit_adds_up() -> None:
    visit = first_visit()
    assert 0 < visit.static_bytes < visit.live_bytes < visit.lite_bytes < visit.site_bytes
    assert visit.total_bytes == visit.static_bytes + visit.live_bytes and visit.room_bytes(30) == 30 * visit.total_bytes
    assert (workshop.ROOT / "book" / f"{visit.chapter}.ipynb").is_file()


def test_a_first_visit_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="live_bytes must be positive, got 0"):
        FirstVisit("01_why_multi_lora", 1, 0, 1, 1, 1, "2026-12-04")
