// @ts-check
// The page's drawing loop, written once: a view redraws at most once per animation frame,
// only when what it shows changed, and no sooner than its own interval after its last
// drawing (a panel beside training workers draws less often than the frame rate).

/**
 * Calls `draw(now)` on the animation frames where `dirty()` holds and at least `minMs()`
 * milliseconds have passed since the last call (0: any frame), for as long as the page lives.
 * @param {{ dirty: () => boolean, minMs: () => number, draw: (now: number) => void }} o
 */
export function redrawLoop({ dirty, minMs, draw }) {
  let drawnAt = -Infinity;
  const frame = (/** @type {number} */ now) => {
    requestAnimationFrame(frame);
    if (!dirty() || now - drawnAt < minMs()) return;
    drawnAt = now;
    draw(now);
  };
  requestAnimationFrame(frame);
}
