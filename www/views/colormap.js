// @ts-check
// Colormaps of the views: viridis, cividis and an even-lightness grey, each a small table of
// anchor colours read with linear interpolation, plus lookup tables and CSS gradients for legends.

/** @typedef {[number, number, number]} RGB red, green, blue bytes, 0–255 */
/** @typedef {(t: number) => RGB} ColormapFn t in [0, 1] (clamped; NaN reads as 0) → colour */

/**
 * Anchors at the matplotlib table indices 0, 16, 32, …, 240, 255 (positions index / 255).
 * @param {string} hex six-hex-digit colours separated by spaces
 * @returns {{ pos: number[], rgb: RGB[] }}
 */
function sixteenths(hex) {
  const rgb = hex.split(' ').map(parseHex);
  const pos = rgb.map((_, i) => (i === rgb.length - 1 ? 1 : (16 * i) / 255));
  return { pos, rgb };
}

/**
 * @param {string} h e.g. "440154"
 * @returns {RGB}
 */
function parseHex(h) {
  const n = parseInt(h, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * Evenly spaced anchors.
 * @param {RGB[]} rgb
 * @returns {{ pos: number[], rgb: RGB[] }}
 */
function even(rgb) {
  return { pos: rgb.map((_, i) => i / (rgb.length - 1)), rgb };
}

/** @type {Record<string, { pos: number[], rgb: RGB[] }>} */
const TABLES = {
  // van der Walt & Smith (2015), matplotlib's default.
  viridis: sixteenths(
    '440154 48186a 472d7b 424086 3b528b 33638d 2c728e 26828e 21918c ' +
      '1fa088 28ae80 3fbc73 5ec962 84d44b addc30 d8e219 fde725',
  ),
  // Nuñez, Anderton & Renslow (2018): optimised for red–green colour-vision deficiency.
  cividis: sixteenths(
    '00224e 002e6a 1a386f 32436d 434e6c 535a6d 61656f 6f7073 7d7c78 ' +
      '8c8878 9b9476 aba072 bcae6c cdbb63 dec958 f0d846 fee838',
  ),
  // Black to white in equal steps of CIE L* (0, 12.5, …, 100), so lightness grows evenly.
  grey: even([0, 33, 59, 88, 119, 151, 185, 219, 255].map((v) => /** @type {RGB} */ ([v, v, v]))),
};

/** Names accepted by {@link colormap}, in the order a picker should list them. */
export const colormapNames = Object.freeze(Object.keys(TABLES));

/**
 * @param {string} name
 * @returns {{ pos: number[], rgb: RGB[] }}
 */
function table(name) {
  const t = Object.prototype.hasOwnProperty.call(TABLES, name) ? TABLES[name] : undefined;
  if (!t) throw new RangeError(`unknown colormap "${name}" (known: ${colormapNames.join(', ')})`);
  return t;
}

/**
 * The colormap `name` as a function of t ∈ [0, 1] (clamped; NaN reads as 0) to byte RGB.
 * @param {string} name one of {@link colormapNames}
 * @returns {ColormapFn}
 * @throws {RangeError} for an unknown name
 */
export function colormap(name) {
  const { pos, rgb } = table(name);
  const last = pos.length - 1;
  return (t) => {
    const x = t > 0 ? (t < 1 ? t : 1) : 0; // also maps NaN to 0
    let i = 0;
    while (i < last - 1 && x > pos[i + 1]) i++;
    const f = (x - pos[i]) / (pos[i + 1] - pos[i]);
    const a = rgb[i];
    const b = rgb[i + 1];
    return [
      Math.round(a[0] + (b[0] - a[0]) * f),
      Math.round(a[1] + (b[1] - a[1]) * f),
      Math.round(a[2] + (b[2] - a[2]) * f),
    ];
  };
}

/**
 * A lookup table of `size` colours, RGBA bytes, entry i = colormap(i / (size - 1)), alpha 255.
 * Index it with `Math.round(t * (size - 1)) * 4` for fast per-pixel fills.
 * @param {string} name one of {@link colormapNames}
 * @param {number} [size=256] at least 2
 * @returns {Uint8ClampedArray}
 */
export function colormapTable(name, size = 256) {
  const n = Math.max(2, Math.floor(size));
  const fn = colormap(name);
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    const [r, g, b] = fn(i / (n - 1));
    out[i * 4] = r;
    out[i * 4 + 1] = g;
    out[i * 4 + 2] = b;
    out[i * 4 + 3] = 255;
  }
  return out;
}

/**
 * A CSS `linear-gradient(...)` through the anchors of `name`, low values at the start.
 * @param {string} name one of {@link colormapNames}
 * @param {string} [direction='to right'] any CSS gradient direction, e.g. 'to top'
 * @returns {string}
 */
export function cssGradient(name, direction = 'to right') {
  const { pos, rgb } = table(name);
  const stops = rgb.map(
    (c, i) => `rgb(${c[0]} ${c[1]} ${c[2]}) ${(pos[i] * 100).toFixed(2).replace(/\.?0+$/, '')}%`,
  );
  return `linear-gradient(${direction}, ${stops.join(', ')})`;
}
