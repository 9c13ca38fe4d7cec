// @ts-check
// What a host page needs of the page in its frame, shared by the custom element
// (element.js) and the page (embed.js): the frame's sandbox and the height message (the
// embed snippet's script, host.js, reads the same message). Small on purpose: a host loads
// it from another origin.
//
// The height message, sent by the page to its parent whenever its height changes:
//   { source: 'attention-playground', type: 'height', height: <CSS px> }
// A host matches it to its iframe by `event.source === iframe.contentWindow`.

/** What the frame may do: run its scripts with its own origin (its workers and wasm), and
 * open the full page in a new tab, outside the sandbox ("Open full page ↗"). */
export const SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

/** The height a message gives, if it is the page's height message. @param {unknown} data
 * @returns {number | null} */
export function heightOf(data) {
  const d = /** @type {{ source?: unknown, type?: unknown, height?: unknown } | null} */ (data);
  if (d?.source !== 'attention-playground' || d.type !== 'height') return null;
  const h = Number(d.height);
  return Number.isFinite(h) && h > 0 && h < 100_000 ? Math.ceil(h) : null;
}

/** Sizes `frame` to a height message from it (through CSSOM, which a strict CSP allows).
 * @param {HTMLIFrameElement} frame @param {MessageEvent} e @returns {boolean} whether it was one */
export function sizeFrame(frame, e) {
  if (e.source !== frame.contentWindow) return false;
  const h = heightOf(e.data);
  if (h === null) return false;
  frame.style.height = `${h}px`;
  return true;
}
