// @ts-check
// The heatmap's colour scale: the range its colours span (the caller's fixed range, or the
// values' own extent) and how its values are written (legend, readout, exported picture).

/** @param {string} s */
function minus(s) {
  return s.replace(/^-/, '−');
}

/**
 * The colour scale of the first `n` values: `min`, `max` its ends; `fixed`, whether it is
 * the caller's `range`, not the values' extent; `extent`, the values' finite extent.
 * @param {Float64Array} v
 * @param {number} n
 * @param {readonly [number, number] | null | undefined} range
 * @param {boolean} shares whether the values are shares from 0 to 1
 * @returns {{ min: number, max: number, fixed: boolean, extent: [number, number] | null }}
 */
export function scaleRange(v, n, range, shares) {
  let lo = range ? range[0] : NaN;
  let hi = range ? range[1] : NaN;
  // The values' finite extent.
  let dlo = Infinity;
  let dhi = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (x < dlo && x !== -Infinity) dlo = x;
    if (x > dhi && x !== Infinity) dhi = x;
  }
  /** @type {[number, number] | null} */
  const extent = dlo <= dhi ? [dlo, dhi] : null;
  const fixed = Number.isFinite(lo) && Number.isFinite(hi) && hi > lo;
  if (!fixed) {
    if (shares && !range) {
      lo = 0;
      hi = 1;
    } else {
      lo = dlo;
      hi = dhi;
      if (!(lo <= hi)) {
        lo = 0; // no finite value
        hi = 1;
      } else if (lo === hi) {
        const pad = Math.abs(lo) > 1 ? Math.abs(lo) * 0.05 : 0.5;
        lo -= pad;
        hi += pad;
      }
    }
  }
  return { min: lo, max: hi, fixed, extent };
}

/**
 * A value in words: shares as %, numbers with two decimals; a true minus sign.
 * @param {number} v
 * @param {boolean} shares whether the values are shares from 0 to 1
 */
export function formatValue(v, shares) {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+∞' : '−∞';
  if (shares) {
    const p = v * 100;
    const a = Math.abs(p);
    if (a === 0) return '0%';
    if (a < 0.01) return p > 0 ? '<0.01%' : '>−0.01%';
    return `${minus(p.toFixed(a < 1 ? 2 : 1).replace(/\.0+$/, ''))}%`;
  }
  return Math.abs(v) < 0.005 ? '0.00' : minus(v.toFixed(2));
}
