"""The self-check quizzes (docs/javascripts/quiz.js) in headless chromium: choosing an option
says whether it is right and opens the answer, the choice survives a reload (localStorage, in
the browser only), the reset button forgets it, and without JavaScript the answer is still
there, folded away."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

LESSON = "lessons/w1-wireguard-peers/"
QUIZ = ".zfl-quiz"


def first_quiz(page):
    quiz = page.locator(QUIZ).first
    quiz.locator("input[type=radio]").first.wait_for()
    return quiz


def test_a_wrong_then_a_right_choice_gets_its_verdict_and_is_remembered(page, site):
    page.goto(site + LESSON)
    quiz = first_quiz(page)
    right = quiz.get_attribute("data-answer")
    wrong = next(letter for letter in "abc" if letter != right)
    feedback = quiz.locator(".zfl-quiz-feedback")

    quiz.locator(f"input[value={wrong}]").check()
    assert quiz.get_attribute("data-state") == "wrong"
    assert feedback.inner_text().startswith(f"{wrong.upper()} is not right")
    assert quiz.locator("details.answer").evaluate("d => d.open")

    quiz.locator(f"input[value={right}]").check()
    assert quiz.get_attribute("data-state") == "right"
    assert feedback.inner_text() == f"{right.upper()} is right."

    stored = page.evaluate("() => localStorage.getItem('zfl:quiz:' + location.pathname)")
    assert json.loads(stored) == {"1": right}

    page.reload()
    quiz = first_quiz(page)
    assert quiz.locator(f"input[value={right}]").is_checked()
    assert quiz.get_attribute("data-state") == "right"

    page.locator(".zfl-quiz-reset").click()
    assert not quiz.locator(f"input[value={right}]").is_checked()
    assert quiz.get_attribute("data-state") is None
    assert page.evaluate("() => localStorage.getItem('zfl:quiz:' + location.pathname)") is None


def test_without_javascript_the_answer_is_folded_away(browser, site):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(site + LESSON)
        quiz = page.locator(QUIZ).first
        assert quiz.locator("input").count() == 0
        assert quiz.locator("ol > li").count() >= 3
        answer = quiz.locator("details.answer")
        assert answer.count() == 1
        assert not answer.evaluate("d => d.open")
        assert "Answer" in answer.locator("summary").inner_text()
    finally:
        context.close()
