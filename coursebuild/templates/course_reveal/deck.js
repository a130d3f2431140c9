/* The deck's script (coursebuild.slides inlines it in every deck).
   - Figures fit their slide: a slide taller than the deck shrinks its figures (keeping their aspect) until it fits,
     never below half a figure's own width; done for the slide that comes into view and, when printing
     (?print-pdf), for every page.
   - Panels are redrawn on the slide that comes into view (a panel drawn while its slide was hidden measured a
     zero-width container; reveal dispatches its events on the page).
   - A focused panel control (a Vega range input or select) keeps only the keys that move it (arrows, Home, End,
     Tab); PageDown, PageUp, Space, N and P leave it and turn the slide, Escape leaves it, and a control moved with
     the pointer or left on a slide that is no longer shown lets go of the focus: a clicker always turns the slide. */
document.addEventListener("DOMContentLoaded", function () {
  var reveal = document.querySelector(".reveal");
  if (!reveal) return;
  var MIN_SCALE = 0.5;  // a figure is never shown at less than half its own width
  var CONTROL = ".lc-panel input, .lc-panel select";
  var FIGURE = ".jp-OutputArea-output img, .jp-OutputArea-output > svg";
  var deckHeight = function () { return window.Reveal && Reveal.getConfig ? Reveal.getConfig().height : 700; };
  var naturalWidth = function (figure) {
    if (figure.tagName.toLowerCase() === "svg") { return figure.width.baseVal.value || figure.getBoundingClientRect().width; }
    return Number(figure.getAttribute("width")) || figure.naturalWidth;
  };
  var fit = function (slide) {  // return whether a figure changed size
    var figures = Array.prototype.filter.call(slide.querySelectorAll(FIGURE), function (f) { return !f.closest(".lc-panel"); });
    if (!figures.length) return false;
    figures.forEach(function (f) { f.style.width = ""; });
    var scale = slide.getBoundingClientRect().width / slide.offsetWidth || 1;  // reveal scales the slides on screen
    var size = function (f, side) { return f.getBoundingClientRect()[side] / scale; };
    var changed = false;
    for (var round = 0; round < 3; round += 1) {
      var over = slide.scrollHeight - deckHeight();
      if (over <= 1) break;
      var tall = figures.reduce(function (sum, f) { return sum + size(f, "height"); }, 0);
      if (tall <= 0) break;
      var k = Math.max(0, (tall - over) / tall), narrowed = false;
      figures.forEach(function (f) {
        var width = size(f, "width"), target = Math.max(width * k, MIN_SCALE * naturalWidth(f));
        if (target < width - 0.5) { f.style.width = target + "px"; narrowed = true; }
      });
      if (!narrowed) break;
      changed = true;
    }
    return changed;
  };
  var resize = function () { window.dispatchEvent(new Event("resize")); };
  var shown = function () {
    var slide = window.Reveal && Reveal.getCurrentSlide && Reveal.getCurrentSlide();
    if (!slide) return;
    if (fit(slide)) Reveal.layout();  // centre the slide again at its new height
    var focused = document.activeElement;
    if (focused && focused.closest && focused.closest(CONTROL) && !slide.contains(focused)) focused.blur();
    if (slide.querySelector(".lc-panel")) resize();
  };
  reveal.addEventListener("ready", shown);
  reveal.addEventListener("slidechanged", shown);
  reveal.addEventListener("resize", function (event) { if (event.detail) resize(); });
  reveal.addEventListener("pdf-ready", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".reveal .slides section:not(.stack)"), fit);
  });
  var byPointer = null;
  document.addEventListener("pointerdown", function (event) {
    byPointer = event.target.closest && event.target.closest(CONTROL);
  }, true);
  document.addEventListener("change", function (event) {
    if (byPointer && event.target === byPointer) { byPointer.blur(); byPointer = null; }
  }, true);
  var KEPT = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Tab"];
  var TURN = {"PageDown": "next", "PageUp": "prev", " ": "next", "n": "next", "N": "next", "p": "prev", "P": "prev"};
  document.addEventListener("keydown", function (event) {
    var control = event.target.closest && event.target.closest(CONTROL);
    if (!control || !window.Reveal) return;
    if (KEPT.indexOf(event.key) !== -1) {  // the control's own keys: reveal does not see them (a select's would turn too)
      event.stopPropagation();
      return;
    }
    if (event.key === "Escape" || TURN[event.key]) {
      event.preventDefault();
      event.stopPropagation();
      control.blur();
      if (TURN[event.key] && !(event.key === " " && event.shiftKey)) { Reveal[TURN[event.key]](); }
      else if (event.key === " ") { Reveal.prev(); }
    }
  }, true);
});
