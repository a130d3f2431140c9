/* Draw every labcore panel on the page with the vendored Vega-Lite: the browser selects precomputed
   rows and draws them; it computes nothing. Redrawn in the theme's colours when the theme changes. */
(function () {
  "use strict";
  const panels = [];
  window.lcPanels = panels; // the browser tests and the benchmark read views and timings here

  function dark() {
    const mode = document.documentElement.dataset.theme;
    if (mode === "dark") return true;
    if (mode === "light") return false;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function embed(entry, values) {
    const spec = JSON.parse(JSON.stringify(entry.spec));
    if (values) {
      for (const p of spec.params) if (p.name in values) p.value = values[p.name];
    }
    const opts = { renderer: "svg", actions: false, tooltip: false };
    if (dark()) {
      opts.theme = "dark";
      spec.config = Object.assign({}, spec.config, { background: null, text: { color: "#e6e6e6" } });
    }
    entry.target.innerHTML = "";
    return vegaEmbed(entry.target, spec, opts).then(function (result) {
      entry.view = result.view;
      entry.theme = dark() ? "dark" : "light";
      for (const p of entry.spec.params) {
        result.view.addSignalListener(p.name, function () {
          entry.changed = performance.now();
          result.view.runAfter(function () { entry.timings.push(performance.now() - entry.changed); });
        });
      }
      entry.target.dataset.ready = "1";
    }).catch(function (err) {
      entry.target.textContent = "This panel could not be drawn: " + err;
      console.error(err);
    });
  }

  function start() {
    for (const div of document.querySelectorAll("div.lc-panel")) {
      const json = div.querySelector("script.lc-panel-spec");
      if (!json) continue;
      const target = document.createElement("div");
      target.className = "lc-panel-view";
      div.appendChild(target);
      const entry = { name: div.dataset.panel, div: div, target: target, spec: JSON.parse(json.textContent),
                      view: null, timings: [] };
      panels.push(entry);
      embed(entry);
    }
    new MutationObserver(function () {
      for (const entry of panels) {
        const want = dark() ? "dark" : "light";
        if (!entry.view || entry.theme === want) continue;
        const values = {};
        for (const p of entry.spec.params) values[p.name] = entry.view.signal(p.name);
        entry.target.dataset.ready = "";
        embed(entry, values);
      }
    }).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
