// The script of the embed snippet (embed.js writes it): sizes each of the host page's
// iframes of the page to the height it reports (the message is described in frame.js). A
// classic script with nothing to import, so that any static host can serve it to any site
// (no CORS needed) and a host page under a strict CSP (no inline script, no style
// attribute) can load it.
// @ts-check
'use strict';
addEventListener('message', (e) => {
  const d = e.data;
  if (d?.source !== 'attention-playground' || d.type !== 'height') return;
  const h = Number(d.height);
  if (!(h > 0 && h < 100000)) return;
  for (const f of document.querySelectorAll('iframe')) {
    if (f.contentWindow === e.source) {
      f.style.height = `${Math.ceil(h)}px`;
      return;
    }
  }
});
