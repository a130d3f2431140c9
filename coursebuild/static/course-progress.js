// The reader's progress, kept in this browser only (labcore.progress writes it; coursebuild/progress.py adds this
// script to every page with window.COURSE_PROGRESS = {key, lab, quizzes, exercises}): one line at the top of the
// page ("lab: 5 of 7 modules green; quizzes: 11 of 16; exercises: 3 of 30") and one button that forgets it all.
(function () {
  "use strict";
  var config = window.COURSE_PROGRESS;
  if (!config) { return; }

  function stored() {
    try { return JSON.parse(window.localStorage.getItem(config.key) || "{}") || {}; } catch (e) { return {}; }
  }

  function counts(p) {
    var lab = p.lab || {}, quizzes = p.quizzes || {}, exercises = p.exercises || {};
    return {
      lab: config.lab.filter(function (m) { return lab[m] && lab[m].total > 0 && lab[m].passed === lab[m].total; }).length,
      quizzes: config.quizzes.filter(function (q) {
        return quizzes[q] && (quizzes[q].correct || []).length >= quizzes[q].total;
      }).length,
      exercises: config.exercises.filter(function (x) { return exercises[x] && exercises[x].ok; }).length,
    };
  }

  function sentence(c) {
    return "lab: " + c.lab + " of " + config.lab.length + " modules green; quizzes: " + c.quizzes + " of " +
      config.quizzes.length + " answered right; exercises: " + c.exercises + " of " + config.exercises.length +
      " checked right";
  }

  function render(box) {
    var c = counts(stored());
    box.querySelector(".course-progress-counts").textContent = sentence(c);
    box.setAttribute("data-lab", c.lab);
    box.setAttribute("data-quizzes", c.quizzes);
    box.setAttribute("data-exercises", c.exercises);
  }

  function build() {
    var article = document.querySelector("main article, #main-content article, article.bd-article");
    if (!article) { return null; }
    var box = document.createElement("section");
    box.className = "course-progress";
    box.setAttribute("aria-label", "Your progress in this course");
    box.innerHTML = '<p><span class="course-progress-title">Your progress</span> (kept in this browser only): ' +
      '<span class="course-progress-counts" aria-live="polite"></span>.</p>' +
      '<button type="button" class="course-progress-forget">Forget my progress</button>' +
      '<span class="course-progress-status" role="status"></span>';
    var heading = article.querySelector("h1");
    var section = heading && heading.closest("section");
    if (heading && section) {
      heading.insertAdjacentElement("afterend", box);
    } else {
      article.insertBefore(box, article.firstChild);
    }
    box.querySelector(".course-progress-forget").addEventListener("click", function () {
      if (!window.confirm("Forget your progress in this course (lab modules, quizzes, exercises) in this browser?")) {
        return;
      }
      try { window.localStorage.removeItem(config.key); } catch (e) { /* storage blocked: nothing kept anyway */ }
      render(box);
      box.querySelector(".course-progress-status").textContent = "Forgotten: your progress starts again from zero.";
    });
    render(box);
    return box;
  }

  function start() {
    var box = build();
    if (!box) { return; }
    window.addEventListener("course-progress", function () { render(box); });  // a quiz on this page was answered
    window.addEventListener("storage", function (e) { if (e.key === config.key || e.key === null) { render(box); } });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
