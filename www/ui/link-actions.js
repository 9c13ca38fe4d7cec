// @ts-check
// The page's own link: Copy link (to the clipboard, or a box to copy from), Embed (the
// HTML of a frame of this run), the full page's link of an embedded one, and the address
// bar, which follows the store's state.

import { byId } from './dom.js';
import { showStatus } from './controls.js';
import { embedSnippet } from '../embed/embed.js';

/**
 * Wires the full-page link; returns the actions the controls call, and the switch that
 * makes the address bar follow the store's state.
 * @param {import('../state/store.js').Store} store
 * @returns {{ copyLink: () => Promise<void>, showEmbed: () => void, currentLink: () => string, followAddressBar: () => void }}
 */
export function linkActions(store) {
  /** The link of the state, as an absolute URL. */
  const currentLink = () => new URL(store.link(), location.href).href;

  byId('full-page').addEventListener('click', (e) => {
    const href = /** @type {HTMLAnchorElement} */ (e.currentTarget).href;
    e.preventDefault();
    const tab = window.open(href, '_blank');
    if (tab) {
      tab.opener = null;
      return;
    }
    // A frame that may not open a tab (a sandbox without allow-popups): the address to copy.
    const box = /** @type {HTMLInputElement} */ (byId('link-text'));
    box.value = href;
    byId('link-box').hidden = false;
    box.select();
    showStatus('This frame may not open a new tab: copy the full page’s address from the box below.', 'info');
  });

  let written = '';
  const follow = () => {
    const q = store.link();
    if (q === written) return;
    written = q;
    const full = new URLSearchParams(q);
    for (const k of ['embed', 'hide', 'autoplay']) full.delete(k);
    /** @type {HTMLAnchorElement} */ (byId('full-page')).href = `?${full}`;
    try {
      history.replaceState(history.state, '', q + location.hash);
    } catch {
      // An opaque-origin sandbox refuses it; the copy-link button still gives the link.
    }
  };
  return {
    currentLink,
    /** From now on the address bar follows the state (once the page's link has been read). */
    followAddressBar() {
      store.subscribe(follow);
      follow();
    },
    async copyLink() {
      const link = currentLink();
      const box = /** @type {HTMLInputElement} */ (byId('link-text'));
      box.value = link;
      byId('link-box').hidden = false;
      try {
        await navigator.clipboard.writeText(link);
        showStatus('Link copied: it opens this run, with these settings and this seed.', 'info');
      } catch {
        box.select();
        showStatus('Copy the link from the box below (this page may not use the clipboard here).', 'info');
      }
    },
    /** Shows the HTML that embeds the current run. */
    showEmbed() {
      const url = new URL(currentLink());
      url.searchParams.set('embed', '1');
      url.searchParams.set('autoplay', '1');
      const box = /** @type {HTMLTextAreaElement} */ (byId('embed-text'));
      box.value = embedSnippet(url.href);
      byId('embed-box').hidden = false;
      box.focus();
      box.select();
    },
  };
}
