// Says why the page cannot start where its modules do not load (a classic script, so that it
// runs where they do not): in a sandboxed frame without allow-same-origin the page's origin
// is opaque, and its modules then load only from a server that allows any origin (CORS).
// Without it the page would stay at "loading…" with no word.
// @ts-check
'use strict';
(() => {
  let said = false;
  addEventListener('error', (e) => {
    if (said || !(e.target instanceof HTMLScriptElement)) return;
    said = true;
    const sandboxed = self.origin === 'null';
    const text = sandboxed
      ? 'The page could not load its scripts: it is in a sandboxed frame without allow-same-origin, and the server of its '
        + 'files does not allow that. Embed it with sandbox="allow-scripts allow-same-origin" (as the Embed button’s snippet does).'
      : `The page could not load its script ${e.target.src}: check that the server serves the www/ folder as text/javascript.`;
    const say = () => {
      const el = document.getElementById('status');
      if (!el) return;
      el.textContent = text;
      el.dataset.kind = 'error';
      el.hidden = false;
      const variant = document.getElementById('variant');
      if (variant) variant.textContent = 'not loaded';
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', say);
    else say();
  }, true);
})();
