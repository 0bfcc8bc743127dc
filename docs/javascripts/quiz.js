// Self-check quizzes at the end of each lesson. A quiz question is written in the lesson's
// Markdown as
//
//   <div class="zfl-quiz" data-answer="b" markdown>
//   **1. The question?**
//
//   1. first option
//   2. second option
//
//   ??? answer "Answer"
//       **B.** Why.
//   </div>
//
// Without JavaScript that is a question, lettered options (CSS) and a collapsed answer. With
// it, each option becomes a radio button; choosing one says whether it is right and opens the
// answer. Choices are kept in this browser only (localStorage, one entry per page), and a
// button under the last question forgets them. Everything is (re)applied from
// mkdocs-material's document$, which emits on the first load and after every instant
// navigation.

const PREFIX = "zfl:quiz:";
const LETTERS = "abcdefghij";

function storageKey() {
  return PREFIX + location.pathname;
}

function loadChoices() {
  try { return JSON.parse(localStorage.getItem(storageKey()) || "{}") || {}; } catch { return {}; }
}

function saveChoices(choices) {
  try {
    if (Object.keys(choices).length) localStorage.setItem(storageKey(), JSON.stringify(choices));
    else localStorage.removeItem(storageKey());
  } catch { /* private mode or storage full: the quiz still works, it just forgets */ }
}

function showVerdict(quiz, letter) {
  const right = letter === quiz.dataset.answer;
  quiz.dataset.state = right ? "right" : "wrong";
  const feedback = quiz.querySelector(".zfl-quiz-feedback");
  feedback.textContent = right
    ? `${letter.toUpperCase()} is right.`
    : `${letter.toUpperCase()} is not right: the answer below says why.`;
  const answer = quiz.querySelector("details");
  if (answer) answer.open = true;
}

function enhance(quiz, index, choices) {
  if (quiz.dataset.enhanced) return;
  const options = quiz.querySelector("ol");
  const answer = (quiz.dataset.answer || "").toLowerCase();
  if (!options || !answer) return;
  quiz.dataset.enhanced = "true";
  quiz.dataset.answer = answer;
  const id = String(index + 1);
  const name = `zfl-quiz-${id}`;
  const question = quiz.querySelector("p");
  if (question) {
    question.id ||= `${name}-question`;
    options.setAttribute("role", "radiogroup");
    options.setAttribute("aria-labelledby", question.id);
  }
  Array.from(options.children).forEach((item, n) => {
    const letter = LETTERS[n];
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = name;
    input.value = letter;
    label.append(input, ...Array.from(item.childNodes));
    item.replaceChildren(label);
    // The list is a radiogroup now: its items are no list items (axe: listitem, serious).
    if (options.getAttribute("role") === "radiogroup") item.setAttribute("role", "none");
    input.addEventListener("change", () => {
      const stored = loadChoices();
      stored[id] = letter;
      saveChoices(stored);
      showVerdict(quiz, letter);
    });
  });
  const feedback = document.createElement("p");
  feedback.className = "zfl-quiz-feedback";
  feedback.setAttribute("role", "status");
  options.after(feedback);
  const chosen = choices[id];
  if (chosen && LETTERS.includes(chosen)) {
    const input = options.querySelector(`input[value="${chosen}"]`);
    if (input) {
      input.checked = true;
      showVerdict(quiz, chosen);
    }
  }
}

function addReset(quizzes) {
  const last = quizzes[quizzes.length - 1];
  if (!last || last.parentElement.querySelector(".zfl-quiz-reset")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "md-button zfl-quiz-reset";
  button.textContent = "Forget my answers on this page";
  button.addEventListener("click", () => {
    saveChoices({});
    for (const quiz of quizzes) {
      quiz.querySelectorAll("input[type=radio]").forEach((input) => { input.checked = false; });
      quiz.querySelector(".zfl-quiz-feedback").textContent = "";
      delete quiz.dataset.state;
      const answer = quiz.querySelector("details");
      if (answer) answer.open = false;
    }
  });
  last.after(button);
}

export function setupQuizzes(root = document) {
  const quizzes = Array.from(root.querySelectorAll(".zfl-quiz"));
  if (!quizzes.length) return;
  const choices = loadChoices();
  quizzes.forEach((quiz, index) => enhance(quiz, index, choices));
  addReset(quizzes.filter((quiz) => quiz.dataset.enhanced));
}

if (window.document$) {
  window.document$.subscribe(() => setupQuizzes());
} else {
  setupQuizzes();
}
