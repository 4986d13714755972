/*
 * The Sluice browser SDK for a classic script tag: <script src="/sdk/sluice.js"></script>.
 *
 * The SDK is ES modules (sluice.mjs and what it imports). A classic script cannot import a
 * module synchronously, so this one starts the import and returns: `Sluice` is not defined
 * yet when the next script runs. It appears on globalThis once every module has loaded, and
 * `SluiceReady`, set at once, is a Promise of the same object:
 *
 *   <script src="/sdk/sluice.js"></script>
 *   <script>
 *     SluiceReady.then(async (Sluice) => {
 *       const session = await Sluice.connect(null, {appKey: 'defaultApp'});
 *     });
 *   </script>
 *
 * There is no half-loaded state to see: sluice.mjs sets globalThis.Sluice in its own body,
 * which runs only after every module it imports has run, so a page that finds `Sluice` (or
 * polls for it) has the whole SDK. A page that is a module itself imports sluice.mjs instead.
 */
(function () {
  'use strict';
  // Resolved against this script's own URL, so the SDK works wherever its folder is served.
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const base = script && script.src ? script.src : location.href;
  const ready = import(new URL('sluice.mjs', base).href).then((module) => module.default);
  // A failed load (a module missing, a syntax error) is said once here; whoever awaits
  // SluiceReady still gets the rejection.
  ready.catch((error) => console.error('Sluice: the SDK modules did not load:', error));
  globalThis.SluiceReady = ready;
})();
