// @ts-check
// Builds DOM elements from plain data: `h('p', { class: 'hint' }, 'text', child)`. Text is
// always set as text, never parsed as HTML.

/**
 * An element with attributes (`hidden: true` sets the property; `false`, null and
 * undefined leave an attribute out) and children (strings become text nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, string | number | boolean | null | undefined>} [attrs]
 * @param {(Node | string)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'hidden') el.hidden = Boolean(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children);
  return el;
}

/**
 * A new element of class `className` (if any), appended to `parent` (if any).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {string} [className] @param {HTMLElement} [parent]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, parent) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (parent) parent.appendChild(e);
  return e;
}

/** The element of id `id` (the page's markup has it). @param {string} id */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

/** Sets an element's text where it differs (a write of the same text is still a change
 * of the DOM, which costs a layout). @param {HTMLElement} el @param {string} text */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * A paragraph of prose with two inline marks, `**strong**` and `*em*`, as a <p> of text
 * nodes and <strong>/<em> elements (never parsed as HTML).
 * @param {string} text
 * @returns {HTMLParagraphElement}
 */
export function prose(text) {
  const parts = text.split(/(\*\*[^*]+\*\*|\*[^*]+\*)/).filter(Boolean);
  return h('p', {}, ...parts.map((p) => (p.startsWith('**') ? h('strong', {}, p.slice(2, -2))
    : p.startsWith('*') && p.length > 2 ? h('em', {}, p.slice(1, -1)) : p)));
}
