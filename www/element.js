// @ts-check
// <attention-playground>: the page in embed mode, for authors who host these files. Each
// element holds an iframe of index.html (so each has its own worker and runs on its own),
// sized to the page's height message, training only while in view (embed.js).
//
//   <script type="module" src="www/element.js"></script>
//   <attention-playground preset="hard-copy" seed="3" hide="metrics"></attention-playground>
//
// Every attribute becomes a key of the page's link (www/url.js): preset, any setting (seed,
// heads, learning_rate, …), speed, seq, head, colormap, theme, hide; `autoplay="0"` waits
// for Play. `title` names the frame for assistive technology.

const PAGE = new URL('../index.html', import.meta.url);
/** Attributes that are the element's own, not link keys. */
const OWN = new Set(['id', 'class', 'style', 'title', 'slot', 'hidden', 'tabindex']);

class AttentionPlaygroundElement extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = ':host { display: block; } iframe { display: block; width: 100%; height: 900px; border: 0; }';
    /** @readonly */ this.frame = document.createElement('iframe');
    this.frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
    this.frame.setAttribute('loading', 'lazy');
    root.append(style, this.frame);
    /** @param {MessageEvent} e */
    this.onMessage = (e) => {
      if (e.source !== this.frame.contentWindow) return;
      if (e.data?.source !== 'attention-playground' || e.data.type !== 'height') return;
      const h = Number(e.data.height);
      if (Number.isFinite(h) && h > 0) this.frame.style.height = `${Math.ceil(h)}px`;
    };
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
