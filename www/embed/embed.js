// @ts-check
// Embedding: which parts of the page a link shows (`embed=1`, `hide=`), the height message
// an embedded page sends its host (frame.js), whether it is in view, and the snippet that
// embeds it. main.js wires these in; nothing here knows the trainer or a lab.

import { quote } from '../state/url.js';
import { SANDBOX } from './frame.js';

/** The shell's parts a `hide=` list can name (each element with `data-part="name"`); a lab
 * adds its own views' parts. */
const SHELL_PARTS = ['title', 'story-panel', 'step-count', 'stats', 'play', 'step', 'reset', 'more', 'new-seed', 'copy-link', 'embed',
  'export', 'record', 'record-panel', 'open', 'speed', 'lab', 'preset', 'workers', 'seeds', 'compare', 'seq', 'head', 'marks', 'colormap', 'theme', 'story', 'help', 'full-page',
  'settings', 'explain', 'sweep', 'experiment', 'experiment-button'];
/** What embed mode shows of the shell: play / step / reset, the step count, a way out (and
 * the lab's figures). */
const SHELL_EMBED_PARTS = ['story-panel', 'step-count', 'play', 'step', 'reset', 'full-page', 'sweep'];

/**
 * The parts to hide for a link's `embed` and `hide` values, and the names it got wrong.
 * @param {boolean} embed @param {string | null} hide comma-separated part names
 * @param {{ parts: string[], embedParts: string[], partAliases?: Record<string, string> }} lab the
 *   lab's views' parts, those embed mode shows, and older names of parts a link may use
 * @returns {{ hidden: string[], problems: string[] }}
 */
export function hiddenParts(embed, hide, lab) {
  const parts = [...SHELL_PARTS, ...lab.parts];
  const shown = [...SHELL_EMBED_PARTS, ...lab.embedParts];
  const hidden = new Set(embed ? parts.filter((p) => !shown.includes(p)) : ['full-page']);
  /** @type {string[]} */
  const problems = [];
  /** @type {string[]} */
  const unknown = [];
  for (const given of (hide ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const name = lab.partAliases && Object.hasOwn(lab.partAliases, given) ? lab.partAliases[given] : given;
    if (parts.includes(name)) hidden.add(name);
    else unknown.push(`“${quote(given)}”`);
  }
  if (unknown.length) {
    const got = unknown.length <= 3 ? unknown.join(', ') : `${unknown.slice(0, 3).join(', ')} and ${unknown.length - 3} more`;
    problems.push(`Hidden parts (hide): must be names of parts (${parts.join(', ')}), got ${got}`);
  }
  return { hidden: [...hidden], problems };
}

/** Hides the named parts (a class, so that the page's own `hidden` toggles keep working).
 * @param {string[]} hidden */
export function hideParts(hidden) {
  for (const el of document.querySelectorAll('[data-part]')) {
    const hide = hidden.includes(/** @type {HTMLElement} */ (el).dataset.part ?? '');
    // The page's one level-one heading stays for screen readers when it is not shown.
    if (el.tagName === 'H1') el.classList.toggle('ap-visually-hidden', hide);
    else el.classList.toggle('ap-part-hidden', hide);
  }
}

/** Whether this page runs inside a frame. */
export function framed() {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
}

/** Tells the parent frame the page's height whenever it changes. */
export function reportHeight() {
  let last = -1;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ source: 'attention-playground', type: 'height', height }, '*');
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

/**
 * Calls `onChange(visible)` when the page becomes visible or not: the tab shown or hidden,
 * and, when `watchScroll`, `target` scrolled into or out of the top-level viewport (an
 * IntersectionObserver in a frame measures against the top page's viewport).
 * @param {Element} target @param {boolean} watchScroll @param {(visible: boolean) => void} onChange
 */
export function watchVisibility(target, watchScroll, onChange) {
  let inView = true;
  let shown = !document.hidden;
  let last = inView && shown;
  const update = () => {
    const now = inView && shown;
    if (now !== last) onChange(now);
    last = now;
  };
  document.addEventListener('visibilitychange', () => {
    shown = !document.hidden;
    update();
  });
  if (watchScroll) {
    new IntersectionObserver((entries) => {
      inView = entries[entries.length - 1].isIntersecting;
      update();
    }).observe(target);
  }
}

/** The HTML that embeds the page at `url` (an absolute link to the run, in embed mode): the
 * iframe, and the script that sizes it from its height messages (an external one, with no
 * style attribute, so that it works on a host page under a strict CSP).
 * @param {string} url @param {number} [height] the frame’s height until the page reports its own */
export function embedSnippet(url, height = 900) {
  const attr = (/** @type {string} */ s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const host = new URL('../host.js', import.meta.url).href;
  return `<iframe src="${attr(url)}" title="Attention Playground: attention learning live"
  width="100%" height="${Math.ceil(height)}" frameborder="0" loading="lazy"
  sandbox="${SANDBOX}"></iframe>
<script src="${attr(host)}" async></script>`;
}
