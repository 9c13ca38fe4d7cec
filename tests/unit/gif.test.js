// @ts-check
// The GIF encoder's LZW code (www/record/gif.js) read back by a strict decoder written here:
// every code at the width the format says, the end code where it belongs and nothing after
// it; over generated inputs of every code size, with the table filled and cleared many
// times. (Whole files are decoded by Chromium in tests/e2e/record.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lzw, quantize } from '../../www/record/gif.js';
import { rng } from './link-cases.js';

/**
 * Decodes GIF LZW data (packed bytes, before sub-blocks) strictly: throws where a code is
 * out of the table, the end code is missing, or whole bytes follow it.
 * @param {Uint8Array} data @param {number} min the minimum code size
 */
function unlzw(data, min) {
  const clear = 1 << min;
  const end = clear + 1;
  /** @type {number[][]} */
  let table = [];
  let size = min + 1;
  let pos = 0; // bits read
  const read = () => {
    let v = 0;
    for (let i = 0; i < size; i++, pos++) {
      if (pos >> 3 >= data.length) throw new Error(`the data ends inside a code (bit ${pos})`);
      v |= ((data[pos >> 3] >> (pos & 7)) & 1) << i;
    }
    return v;
  };
  const reset = () => {
    table = Array.from({ length: clear + 2 }, (_, i) => [i]);
    size = min + 1;
  };
  reset();
  /** @type {number[]} */
  const out = [];
  /** @type {number[] | null} */
  let prev = null;
  for (;;) {
    const code = read();
    if (code === clear) {
      reset();
      prev = null;
      continue;
    }
    if (code === end) break;
    let entry;
    if (code < table.length) entry = table[code];
    else if (code === table.length && prev) entry = [...prev, prev[0]];
    else throw new Error(`code ${code} is not in the table of ${table.length}`);
    out.push(...entry);
    if (prev && table.length < 4096) table.push([...prev, entry[0]]);
    if (table.length === 1 << size && size < 12) size++;
    prev = entry;
  }
  if (Math.ceil(pos / 8) !== data.length) throw new Error(`${data.length - Math.ceil(pos / 8)} bytes follow the end code`);
  return out;
}

test('LZW: a strict decoder reads back every generated input, at every code size', () => {
  const r = rng(11);
  // The case whose end code once came out a bit narrow (the table full at its last entry).
  const cases = [{ min: 2, indices: [1, 1, 0, 3, 2, 3, 2, 3, 2, 0, 2, 2, 1] }, { min: 2, indices: [] }, { min: 8, indices: [7] }];
  for (let k = 0; k < 300; k++) {
    const min = 2 + Math.floor(r() * 7);
    const colours = Math.max(1, Math.floor(r() * (1 << min)) + 1);
    const n = Math.floor(r() ** 2 * 40_000);
    // Random, runs, or a repeated pattern: short and long codes alike.
    const kind = k % 3;
    const pattern = Array.from({ length: 1 + Math.floor(r() * 50) }, () => Math.floor(r() * colours));
    /** @type {number[]} */
    const indices = [];
    for (let i = 0; i < n; i++) {
      if (kind === 0) indices.push(Math.floor(r() * colours));
      else if (kind === 1) indices.push(r() < 0.9 && i ? indices[i - 1] : Math.floor(r() * colours));
      else indices.push(pattern[i % pattern.length]);
    }
    cases.push({ min, indices });
  }
  for (const { min, indices } of cases) {
    const got = unlzw(lzw(Uint8Array.from(indices), min), min);
    assert.equal(got.length, indices.length, `code size ${min}, ${indices.length} indices`);
    assert.deepEqual(got, indices, `code size ${min}, ${indices.length} indices`);
  }
});

test('quantize: a picture of at most 256 colours keeps them exactly; more, each pixel near its own', () => {
  const r = rng(4);
  for (const colours of [1, 2, 3, 17, 255, 256]) {
    const palette = Array.from({ length: colours }, () => [0, 0, 0].map(() => Math.floor(r() * 256)));
    const n = 997;
    const rgba = new Uint8Array(4 * n);
    for (let i = 0; i < n; i++) rgba.set([...palette[i % colours], 255], 4 * i);
    const q = quantize(rgba);
    assert.ok(q.palette.length / 3 <= colours);
    for (let i = 0; i < n; i++) {
      assert.deepEqual([...q.palette.subarray(3 * q.indices[i], 3 * q.indices[i] + 3)], [...rgba.subarray(4 * i, 4 * i + 3)]);
    }
  }
  // A smooth 2-D gradient of 16,384 colours into 255: within a few levels everywhere.
  const rgba = new Uint8Array(4 * 128 * 128);
  for (let y = 0; y < 128; y++) for (let x = 0; x < 128; x++) rgba.set([2 * x, 2 * y, 128, 255], 4 * (128 * y + x));
  const q = quantize(rgba, 255);
  assert.ok(q.palette.length / 3 <= 255);
  let worst = 0;
  for (let i = 0; i < 128 * 128; i++) {
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(q.palette[3 * q.indices[i] + c] - rgba[4 * i + c]));
  }
  assert.ok(worst <= 16, `worst channel error ${worst}`);
});
