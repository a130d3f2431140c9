/*
 * Let the embedded ipywidgets manager typeset with MathJax 3.
 *
 * @jupyter-widgets/base (html-manager 1.0.x) typesets every widget label with the
 * MathJax 2 API, `MathJax.Hub.Queue(["Typeset", MathJax.Hub, el])`, whenever
 * `window.MathJax` exists.  Sphinx loads MathJax 3, which has no `Hub`, so each
 * widget page would throw "Cannot read properties of undefined (reading 'Queue')".
 * This shim, loaded just before embed.js on pages with widgets, gives whichever
 * object is `window.MathJax` (the config object first, then MathJax 3 itself, which
 * replaces it) a non-enumerable `Hub` whose `Queue` forwards to `typesetPromise`.
 * Served from the site by scripts/fetch_widget_js.py; named in _config.yml.
 */
(function () {
  "use strict";
  var hub = {
    Queue: function (job) {
      var mj = window.MathJax;
      var el = job && job[2];
      if (!mj || !el) { return; }
      var ready = mj.startup && mj.startup.promise ? mj.startup.promise : Promise.resolve();
      ready.then(function () {
        if (typeof mj.typesetPromise === "function") { return mj.typesetPromise([el]); }
        return undefined;
      }).catch(function (err) { console.warn("MathJax typeset of a widget label failed", err); });
    }
  };
  function addHub(obj) {
    if (obj && typeof obj === "object" && !obj.Hub) {
      try {
        Object.defineProperty(obj, "Hub", { value: hub, configurable: true, writable: true });
      } catch (e) { /* frozen object: nothing to do */ }
    }
    return obj;
  }
  var current = addHub(window.MathJax);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true,
      enumerable: true,
      get: function () { return current; },
      set: function (value) { current = addHub(value); }
    });
  } catch (e) { /* window.MathJax not redefinable: leave it */ }
})();
