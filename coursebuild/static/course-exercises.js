// Answer an exercise on the static page (coursebuild/exercises_site.py writes each form with its rule as JSON, made
// by labcore when the site was built: labcore/checks/rules.py). The verdict is labcore's own: the same rule, the same
// texts, Python's formatting of numbers ("{:,g}") and of names (repr); it is recorded in the reader's progress under
// the exercise's key, as the check does in the live site, and the page's progress line is told ("course-progress").
(function () {
  "use strict";

  // ---- Python's formatting, as labcore's messages use it ----
  function pyG(x) {  // format(x, ",g"): six significant digits, trailing zeros dropped, thousands separated
    if (x === 0) { return Object.is(x, -0) ? "-0" : "0"; }
    var sign = x < 0 ? "-" : "", a = Math.abs(x), parts = a.toExponential(5).split("e"), exp = Number(parts[1]);
    if (exp < -4 || exp >= 6) {
      var mantissa = parts[0].replace(/\.?0+$/, "");
      return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }
    var fixed = a.toFixed(5 - exp);
    if (fixed.indexOf(".") >= 0) { fixed = fixed.replace(/0+$/, "").replace(/\.$/, ""); }
    var whole = fixed.split(".");
    whole[0] = whole[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return sign + whole.join(".");
  }

  function pyStr(s) {  // repr(s) of a str
    var quote = s.indexOf("'") >= 0 && s.indexOf('"') < 0 ? '"' : "'";
    var body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    if (quote === "'") { body = body.replace(/'/g, "\\'"); }
    return quote + body + quote;
  }

  function pyList(items) { return "[" + items.map(pyStr).join(", ") + "]"; }

  function fill(template, values) {  // labcore.checks.rules._fill: one pass, values never re-read
    return template.replace(/\{(\w+)\}/g, function (_, name) { return String(values[name]); });
  }

  function isClose(a, b, relTol) {  // math.isclose(a, b, rel_tol=relTol, abs_tol=1e-9)
    return a === b || Math.abs(a - b) <= Math.max(relTol * Math.max(Math.abs(a), Math.abs(b)), 1e-9);
  }

  // ---- the three rules (NumberRule.verdict, ChoiceRule.verdict, ListRule.verdict) ----
  function numberVerdict(rule, answer) {  // answer: a number, or the text typed when it is not one
    var t = rule.texts, v = {unit: rule.unit, what: rule.what}, said;
    if (typeof answer !== "number" || isNaN(answer)) {
      said = [false, fill(t.not_a_number, Object.assign({answer: pyStr(String(answer))}, v))];
    } else {
      var shown = pyG(answer);
      if (isClose(answer, rule.expected, rule.rel_tol)) {
        said = rule.integer && !Number.isInteger(answer) ?
          [false, fill(t.not_whole, Object.assign({shown: shown}, v))] :
          [true, fill(t.correct, Object.assign({expected: pyG(rule.expected)}, v))];
      } else {
        var hit = rule.mistakes.filter(function (m) { return isClose(answer, m[0], rule.rel_tol); })[0];
        said = hit ? [false, fill(t.mistake, Object.assign({shown: shown, hint: hit[1]}, v))] :
          [false, fill(t.other, Object.assign({shown: shown, fallback: rule.fallback}, v))];
      }
    }
    if (rule.singular) { said[1] = said[1].replace(new RegExp(rule.singular, "g"), "1 $1"); }
    return {ok: said[0], message: said[1]};
  }

  function normal(text, cut) {  // labcore.checks.rules._normal
    return (cut ? text.split(cut)[0] : text).trim().replace(/^['"]+|['"]+$/g, "").toLowerCase();
  }

  function choiceVerdict(rule, answer) {
    var got = normal(answer, rule.cut);
    var said = Object.keys(rule.words).filter(function (c) { return rule.words[c].indexOf(got) >= 0; })[0];
    if (said === undefined) { return {ok: false, message: fill(rule.unknown, {answer: pyStr(answer)})}; }
    return {ok: said === rule.right, message: rule.messages[said]};
  }

  function same(a, b) { return a.length === b.length && a.every(function (x, i) { return x === b[i]; }); }

  function listVerdict(rule, answer) {  // answer: the list of names typed
    var got = answer.map(function (n) { return rule.cut ? n.split(rule.cut)[0] : n; });
    if (same(got, rule.expected)) { return {ok: true, message: rule.correct}; }
    var known = rule.known.filter(function (k) { return same(got, k[0]); })[0];
    if (known) { return {ok: false, message: known[1]}; }
    if (same(got.slice().sort(), rule.expected.slice().sort())) { return {ok: false, message: rule.reordered}; }
    if (got.length !== rule.expected.length) {
      return {ok: false, message: fill(rule.miscounted, {got: pyList(got), count: got.length})};
    }
    return {ok: false, message: fill(rule.other, {got: pyList(got)})};
  }

  // ---- what the reader typed, read as the Python value a check cell would get ----
  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i, GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/;

  function readNumber(text, unit) {
    var t = text.trim();
    if (unit && t.slice(-unit.length).toLowerCase() === unit.toLowerCase()) { t = t.slice(0, -unit.length).trim(); }
    if (GROUPED.test(t)) { t = t.replace(/,/g, ""); }
    return NUMBER.test(t) ? Number(t) : text.trim();
  }

  function readNames(text) {
    var t = text.trim().replace(/^[[(]|[\])]$/g, "");
    return t.split(t.indexOf(",") >= 0 ? "," : /\s+/).map(function (n) {
      return n.trim().replace(/^['"]+|['"]+$/g, "");
    }).filter(function (n) { return n !== ""; });
  }

  function unanswered(rule) {
    if (rule.kind === "number") { return "✗ Not answered yet: type your answer, " + rule.what + " (" + rule.unit + ")."; }
    if (rule.kind === "list") { return "✗ Not answered yet: type the names in order, separated by commas."; }
    return "✗ Not answered yet: choose one of " + rule.options.join(", ") + ".";
  }

  function judgeText(rule, text) {  // the verdict on an answer as given (typed, or a choice's value); null if none
    if (rule.kind === "choice") { return text === null ? null : choiceVerdict(rule, text); }
    if (text.trim() === "") { return null; }
    return rule.kind === "list" ? listVerdict(rule, readNames(text)) : numberVerdict(rule, readNumber(text, rule.unit));
  }

  function judge(form, rule) {  // the verdict on the form's answer, or null when nothing was given
    if (rule.kind === "choice") {
      var checked = form.querySelector("input[type=radio]:checked");
      return judgeText(rule, checked ? checked.value : null);
    }
    return judgeText(rule, form.querySelector("input[type=text]").value);
  }

  // what the tests call to judge many answers at once by the same code (tests/browser/test_exercises.py)
  window.courseExercises = {judgeText: judgeText};

  function record(data, ok) {  // labcore.progress's entry for an exercise: {ok, at}, the newer entry wins
    var stored = {};
    try { stored = JSON.parse(window.localStorage.getItem(data.storage) || "{}") || {}; } catch (e) { stored = {}; }
    stored.exercises = stored.exercises || {};
    stored.exercises[data.key] = {ok: ok, at: Date.now()};
    try { window.localStorage.setItem(data.storage, JSON.stringify(stored)); } catch (e) { return; }
    window.dispatchEvent(new CustomEvent("course-progress"));
  }

  function start(form) {
    var data = JSON.parse(form.querySelector(".course-exercise-data").textContent);
    var out = form.querySelector(".course-exercise-verdict");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var verdict = judge(form, data.rule);
      out.classList.remove("course-exercise-right", "course-exercise-wrong");
      if (verdict === null) {
        out.textContent = unanswered(data.rule);
        return;
      }
      out.textContent = verdict.message;
      out.classList.add(verdict.ok ? "course-exercise-right" : "course-exercise-wrong");
      record(data, verdict.ok);
    });
    form.querySelectorAll("input[type=radio]").forEach(function (radio) {  // Enter on a choice checks it too
      radio.addEventListener("keydown", function (event) {
        if (event.key === "Enter") { event.preventDefault(); form.requestSubmit(); }
      });
    });
  }

  function startAll() { document.querySelectorAll("form.course-exercise").forEach(start); }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", startAll); } else { startAll(); }
})();
