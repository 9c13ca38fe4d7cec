// @ts-check
// <attention-playground>: the page in embed mode, for authors who host these files. Each
// element holds an iframe of index.html (so each has its own worker and runs on its own),
// sized to the page's height message, training only while in view (embed.js).
//
//   <script type="module" src="www/element.js"></script>
//   <attention-playground preset="hard-copy" seed="3" hide="metrics"></attention-playground>
//
// Every attribute becomes a key of the page's link (www/state/url.js): preset, any setting (seed,
// heads, learning_rate, …), speed, seq, head, colormap, theme, hide; `autoplay="0"` waits
// for Play. `title` names the frame for assistive technology.
//
// From another origin: the host page loads this module across origins, so the server of
// these files must send `Access-Control-Allow-Origin` (scripts/serve.py does); under a
// strict CSP the host allows that origin in script-src and frame-src
// (docs/link-and-embed.md).

import { SANDBOX, sizeFrame } from './embed/frame.js';

const PAGE = new URL('../index.html', import.meta.url);
/** @type {CSSStyleSheet | null} */
let shared = null;
/** The elements' one style sheet. */
function sheet() {
  if (!shared) {
    shared = new CSSStyleSheet();
    shared.replaceSync(':host { display: block; }');
  }
  return shared;
}
/** Attributes that are the element's own, not link keys. */
const OWN = new Set(['id', 'class', 'style', 'title', 'slot', 'hidden', 'tabindex']);

class AttentionPlaygroundElement extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    // A constructed style sheet and CSSOM properties: a host page's strict CSP (style-src
    // without 'unsafe-inline') blocks a <style> element in the shadow root, not these.
    root.adoptedStyleSheets = [sheet()];
    /** @readonly */ this.frame = document.createElement('iframe');
    Object.assign(this.frame.style, { display: 'block', width: '100%', height: '900px', border: '0' });
    this.frame.setAttribute('sandbox', SANDBOX);
    this.frame.setAttribute('loading', 'lazy');
    root.append(this.frame);
    /** @param {MessageEvent} e */
    this.onMessage = (e) => void sizeFrame(this.frame, e);
  }

  connectedCallback() {
    window.addEventListener('message', this.onMessage);
    this.load();
    // Attribute changes load the new link.
    this.observer = new MutationObserver(() => this.load());
    this.observer.observe(this, { attributes: true });
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.onMessage);
    this.observer?.disconnect();
  }

  /** The page's link for the current attributes. */
  src() {
    const url = new URL(PAGE);
    url.searchParams.set('embed', '1');
    url.searchParams.set('autoplay', '1');
    for (const { name, value } of Array.from(this.attributes)) {
      if (!OWN.has(name)) url.searchParams.set(name, value);
    }
    return url.href;
  }

  load() {
    this.frame.title = this.getAttribute('title') ?? 'Attention Playground: attention learning live';
    const src = this.src();
    if (this.frame.src !== src) this.frame.src = src;
  }
}

if (!customElements.get('attention-playground')) {
  customElements.define('attention-playground', AttentionPlaygroundElement);
}
