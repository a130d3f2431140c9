// Record which JupyterLite version registered this site's service worker, as soon as it is active.
//
// JupyterLite 0.8.6 writes "<worker script URL>-version" to localStorage only when a page finds a worker
// already in control; the page that registers the first one never does. So the next page (a second tab,
// or a reload) reads no version, unregisters every worker as if the site had changed, and registers one
// again, while its kernel may already be created: without a worker the kernel is not given the site's
// files (/drive). Writing the key for the worker this page registers (and only then: a page that found one
// in control leaves the check to JupyterLite) keeps the next page's check for what it is for, a new version.
// The version comes from the site's jupyter-lite.json (appVersion), written into data-version at build time.
(function () {
  const workers = navigator.serviceWorker;
  const version = document.currentScript && document.currentScript.dataset.version;
  if (!workers || workers.controller || !version) return;
  workers.ready.then((registration) => {
    const worker = registration.active;
    if (!worker) return;
    const key = `${worker.scriptURL}-version`;
    if (localStorage.getItem(key) === null) localStorage.setItem(key, version);
  }).catch(() => {});
})();
