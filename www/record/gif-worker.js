// @ts-check
// The worker that encodes a recording's GIF (gif.js) off the page's thread: frames come in
// with the time they were drawn; each is written once the next one says how long it stays.
// Messages: { type: 'start', width, height, fps }, { type: 'frame', pixels, time },
// { type: 'end' } → { type: 'encoded' } once a frame is taken in (the page sends no more
// than two ahead), { type: 'done', parts } (the file's bytes) or { type: 'error', message }.

import { GifEncoder } from './gif.js';

/** @typedef {{ type: 'start', width: number, height: number, fps: number }
 *   | { type: 'frame', pixels: ArrayBuffer, time: number } | { type: 'end' }} ToGifWorker */

/** @type {{ postMessage(msg: unknown, transfer?: Transferable[]): void,
 *   addEventListener(type: 'message', f: (e: MessageEvent<ToGifWorker>) => void): void }} */
const scope = /** @type {any} */ (self);

/** @type {GifEncoder | null} */
let gif = null;
let fps = 10;
/** The frame waiting for its delay, and when it was drawn (ms since the first). @type {{ pixels: Uint8Array, time: number } | null} */
let pending = null;

/** Writes the waiting frame, up to `until` (ms); delays are rounded on the running total,
 * so that the animation's clock does not drift. @param {number} until */
function flush(until) {
  if (!gif || !pending) return;
  const from = Math.round(pending.time / 10);
  // Browsers show delays under 2 hundredths as 10: never write one.
  gif.frame(pending.pixels, Math.max(2, Math.round(until / 10) - from));
  pending = null;
}

scope.addEventListener('message', (e) => {
  const msg = e.data;
  try {
    switch (msg.type) {
      case 'start':
        gif = new GifEncoder(msg.width, msg.height);
        fps = msg.fps;
        pending = null;
        break;
      case 'frame':
        flush(msg.time);
        pending = { pixels: new Uint8Array(msg.pixels), time: msg.time };
        scope.postMessage({ type: 'encoded' });
        break;
      case 'end': {
        if (!gif) throw new Error('no recording was started');
        if (pending) flush(pending.time + 1000 / fps);
        const parts = gif.end();
        gif = null;
        scope.postMessage({ type: 'done', parts }, parts.map((p) => /** @type {ArrayBuffer} */ (p.buffer)));
        break;
      }
    }
  } catch (err) {
    gif = null;
    pending = null;
    scope.postMessage({ type: 'error', message: String(/** @type {Error} */ (err).message ?? err) });
  }
});
