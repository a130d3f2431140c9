// Glossary cards on a touch screen (coursebuild/a11y.py): a tap on a term link shows its definition first, as
// hovering does with a mouse; a second tap follows the link to the glossary. Keyboard focus opens the card already.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    const link = event.target.closest && event.target.closest("a.reference.internal");
    const card = link && link._tippy;
    if (!card || !window.matchMedia("(hover: none)").matches || card.state.isShown) return;
    event.preventDefault();
    card.show();
  }, true);
})();
