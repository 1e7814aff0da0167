// The phone's app (docs/web.md, "An app on the phone"): every page links the web app manifest
// (base.html); a seat page also registers the service worker (/sw.js, scope /join/) that keeps
// its shell for a phone whose network is gone. Browsers offer both only on https (and on the
// server's own machine); elsewhere this does nothing.
if (document.body.classList.contains("page-seat") && "serviceWorker" in navigator && window.isSecureContext) {
  const stats = (window.gnStats ||= {});
  const firstLoad = !navigator.serviceWorker.controller;
  navigator.serviceWorker.register("/sw.js", { scope: "/join/" }).then(() => navigator.serviceWorker.ready).then((reg) => {
    stats.sw = "ready";
    // This load did not go through the worker: ask it to keep this page.
    if (firstLoad && reg.active) reg.active.postMessage({ type: "keep", path: location.pathname });
  }).catch((err) => { stats.sw = `not registered: ${err}`; });
}
