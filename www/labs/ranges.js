// @ts-check
// What a lab's saved values may be: the first value of a list outside its range (or not a
// number: NaN, a JSON null), said with the field's name and the range, for the labs' checks of a run file's snapshot
// (Lab.checkSnapshot). Pure.

/** Slack for float32 rounding at a range's ends (a softmax's sum may pass 1 by an ulp). */
const SLACK = 1e-4;

/**
 * The refusal of the first value of `values` that is not a number from `lo` to `hi` (within
 * float32 rounding; NaN never is), naming it as `name[i]`; null when every value is.
 * @param {string} name @param {ArrayLike<number>} values @param {number} lo @param {number} hi
 * @returns {string | null}
 */
export function outsideRange(name, values, lo, hi) {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (!(x >= lo - SLACK && x <= hi + SLACK)) {
      const range = Number.isFinite(lo) || Number.isFinite(hi) ? `a number from ${lo} to ${hi}` : 'a number';
      // A float32 said with the digits it has.
      return `${name}[${i}] must be ${range}, got ${Number(x.toPrecision(7))}`;
    }
  }
  return null;
}
