// @ts-check
// CSS colours as the browser resolves them, for drawing on a canvas: a custom property
// (`var(--name)`), its fallback, and light-dark() against the colour scheme in use, which a
// custom property's raw text would not say. Remembered by what was asked for, since
// resolving one costs a style recalculation; `clear()` when the page's colours change.

export class Colors {
  /** @param {HTMLElement} parent where the hidden probe element goes */
  constructor(parent) {
    /** @private */ this.probe = document.createElement('span');
    this.probe.className = 'ap-visually-hidden';
    this.probe.setAttribute('aria-hidden', 'true');
    parent.append(this.probe);
    /** @private */ this.style = getComputedStyle(this.probe);
    /** @private @type {Map<string, string>} */ this.known = new Map();
  }

  /** `color` as the canvas takes it. @param {string} color */
  resolve(color) {
    if (!color.includes('var(')) return color;
    const known = this.known.get(color);
    if (known) return known;
    this.probe.style.color = '';
    this.probe.style.color = color;
    const got = this.style.color || '#888';
    this.known.set(color, got);
    return got;
  }

  /** The page's colours changed: each is resolved again. */
  clear() {
    this.known.clear();
  }
}
