/* Draw every labcore panel on the page with the vendored Vega-Lite: the browser selects precomputed
   rows and draws them; it computes nothing. Redrawn in the theme's colours when the theme changes.
   Each panel also gets a live region that a screen reader announces when its readout changes, and, where the
   panel asks for it (usermeta.labcore_texts), text blocks under the chart (e.g. a launch command) that follow
   the controls, each with a copy button if asked. */
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

  // The precomputed row the controls select now (the same test as the chart's filter: numbers within 1e-9).
  function currentRow(entry) {
    const names = entry.spec.usermeta.controls;
    const state = {};
    for (const n of names) state[n] = entry.view.signal(n);
    return entry.spec.data.values.find(function (row) {
      return names.every(function (n) {
        const v = state[n];
        return (typeof row[n] === "number") ? Math.abs(row[n] - Number(v)) < 1e-9 : row[n] === v;
      });
    });
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    const area = document.createElement("textarea");  // no clipboard API (an http page): the old way
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function buildExtras(entry) {
    const live = document.createElement("div");
    live.className = "lc-panel-live";
    live.setAttribute("role", "status");
    live.setAttribute("aria-live", "polite");
    entry.div.appendChild(live);
    entry.live = live;
    entry.texts = [];
    for (const t of entry.spec.usermeta.labcore_texts || []) {
      const box = document.createElement("figure");
      box.className = "lc-panel-text";
      const caption = document.createElement("figcaption");
      caption.textContent = t.label;
      const pre = document.createElement("pre");
      pre.tabIndex = 0;
      box.appendChild(caption);
      box.appendChild(pre);
      if (t.copy) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "lc-panel-copy";
        button.textContent = "Copy";
        button.setAttribute("aria-label", "Copy: " + t.label);
        const done = document.createElement("span");
        done.className = "lc-panel-copied";
        done.setAttribute("role", "status");
        button.addEventListener("click", function () {
          copyText(pre.textContent).then(function () { done.textContent = "Copied."; },
                                         function () { done.textContent = "Select the text and copy it."; });
        });
        box.appendChild(button);
        box.appendChild(done);
      }
      entry.div.appendChild(box);
      entry.texts.push({ field: t.field, pre: pre });
    }
  }

  // Mirror the selected row: the readout into the live region (announced), each text field into its block.
  function follow(entry, announce) {
    const row = currentRow(entry);
    if (!row) return;
    const readout = String(row.readout || "").split("\n").join(". ");
    if (announce) entry.live.textContent = readout;
    entry.live.dataset.readout = row.readout || "";
    for (const t of entry.texts) t.pre.textContent = String(row[t.field] == null ? "" : row[t.field]);
  }

  // On a slide (a reveal.js deck) every text of the panel is set at 19 px (18 px on a 1280x720 screen), readable from the back row;
  // a legend label is never cut short (Vega's labelLimit, 160 px by default, cut "naive: layers x targets x 2 x r x d" at
  // 19 px; 0 is no limit: the longest label, about 370 px, and the legend's row fit in the slide's chart).
  const DECK_PX = 19;
  function forDeck(spec) {
    spec.config = Object.assign({}, spec.config, {
      axis: Object.assign({}, (spec.config || {}).axis, { labelFontSize: DECK_PX, titleFontSize: DECK_PX }),
      legend: Object.assign({}, (spec.config || {}).legend, { labelFontSize: DECK_PX, labelLimit: 0 }),
    });
    if (spec.title) spec.title = Object.assign({}, spec.title, { fontSize: DECK_PX + 2 });
    for (const part of spec.vconcat || []) {
      if (part.name === "readout" && part.mark) {
        const lines = Math.max(1, Math.round((part.height - 4) / (part.mark.lineHeight || 17)));
        part.mark = Object.assign({}, part.mark, { fontSize: DECK_PX, lineHeight: DECK_PX + 5 });
        part.height = lines * (DECK_PX + 5) + 4;
      }
    }
    return spec;
  }

  function embed(entry, values) {
    let spec = JSON.parse(JSON.stringify(entry.spec));
    if (values) {
      for (const p of spec.params) if (p.name in values) p.value = values[p.name];
    }
    if (document.querySelector(".reveal")) spec = forDeck(spec);
    const opts = { renderer: "svg", actions: false, tooltip: false };
    if (dark()) {
      opts.theme = "dark";
      spec.config = Object.assign({}, spec.config, { background: null, text: { color: "#e6e6e6" } });
    }
    entry.target.innerHTML = "";
    return vegaEmbed(entry.target, spec, opts).then(function (result) {
      entry.view = result.view;
      const svg = entry.target.querySelector("svg");  // its text alternative: the takeaway and the chapter's reading
      if (svg && entry.spec.description) {
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", entry.spec.description);
      }
      entry.theme = dark() ? "dark" : "light";
      for (const p of entry.spec.params) {
        result.view.addSignalListener(p.name, function () {
          entry.changed = performance.now();
          result.view.runAfter(function () {
            entry.timings.push(performance.now() - entry.changed);
            follow(entry, true);
          });
        });
      }
      follow(entry, false);
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
      buildExtras(entry);
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
