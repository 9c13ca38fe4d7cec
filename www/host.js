// @ts-check
// The script of the embed snippet (embed.js writes it): sizes each of the host page's
// iframes of the page to the height it reports. An external module, so that a host page
// under a strict CSP (no inline script, no style attribute) can load it.

import { sizeFrame } from './frame.js';

addEventListener('message', (e) => {
  for (const f of document.querySelectorAll('iframe')) if (sizeFrame(f, e)) break;
});
