/* the deck's script: redraw the panels of the slide that comes into view (a panel drawn while its slide was hidden
   measured a zero-width container; reveal dispatches its events on the page), and give the keys back to the slides
   after the presenter moves a slider with the mouse: a clicker's PageDown/PageUp always turn the slide (a focused
   range input would take them), and arrow keys do again once a slider moved by pointer lets go of the focus (a
   slider reached with Tab keeps it, so the keyboard can still move it) */
document.addEventListener("DOMContentLoaded", function () {
  var reveal = document.querySelector(".reveal");
  if (!reveal) return;
  if (window.require) {  // the deck loads reveal.js as an AMD module: name the one instance for the keys below
    window.require(["reveal.js/dist/reveal.js"], function (instance) { window.Reveal = instance; });
  }
  var resize = function () { window.dispatchEvent(new Event("resize")); };
  ["ready", "slidechanged", "resize"].forEach(function (name) {
    reveal.addEventListener(name, function (event) { if (name !== "resize" || event.detail) resize(); });
  });
  var byPointer = null;
  document.addEventListener("pointerdown", function (event) {
    byPointer = event.target.closest && event.target.closest(".lc-panel input, .lc-panel select");
  }, true);
  document.addEventListener("change", function (event) {
    if (byPointer && event.target === byPointer) { byPointer.blur(); byPointer = null; }
  }, true);
  document.addEventListener("keydown", function (event) {
    var control = event.target.closest && event.target.closest(".lc-panel input, .lc-panel select");
    if (!control || !window.Reveal) return;
    if (event.key === "PageDown" || event.key === "PageUp") {
      event.preventDefault();
      event.stopPropagation();
      control.blur();
      if (event.key === "PageDown") { Reveal.next(); } else { Reveal.prev(); }
    }
  }, true);
});
