// @ts-check
// An animated GIF encoder: of each frame, the rectangle that changed, its unchanged pixels
// transparent, the others quantized to at most 255 colours (exactly when they have no more,
// else by median cut over 5-bit-per-channel bins) into its own colour table; LZW-coded,
// with its delay; the animation loops. Pure, no DOM: the recorder's worker runs it, and so
// do Node's tests.

/** Quantization bins: 5 bits per channel. */
const BINS = 1 << 15;
/** GIF's largest LZW code. */
const MAX_CODE = 4096;

/**
 * A picture's colours: `palette` (n × 3 bytes, RGB, n ≤ 256) and each pixel's index into
 * it. Exact when the picture has at most 256 colours; else the bins (5 bits a channel) are
 * cut at their weighted medians into up to 256 boxes, and each pixel gets its box's mean.
 * @param {Uint8Array | Uint8ClampedArray} rgba the pixels, 4 bytes each (alpha ignored)
 * @param {number} [most] the most colours, 1 to 256
 * @returns {{ palette: Uint8Array, indices: Uint8Array }}
 */
export function quantize(rgba, most = 256) {
  return exactColours(rgba, most) ?? medianCut(rgba, most);
}

/** The palette of a picture of at most `most` colours, else null.
 * @param {Uint8Array | Uint8ClampedArray} rgba @param {number} most */
function exactColours(rgba, most) {
  const n = rgba.length >> 2;
  /** @type {Map<number, number>} */
  const seen = new Map();
  const indices = new Uint8Array(n); // (n)
  let last = -1;
  let lastIndex = 0;
  for (let i = 0; i < n; i++) {
    const c = (rgba[4 * i] << 16) | (rgba[4 * i + 1] << 8) | rgba[4 * i + 2];
    if (c !== last) {
      let k = seen.get(c);
      if (k === undefined) {
        if (seen.size === most) return null;
        k = seen.size;
        seen.set(c, k);
      }
      last = c;
      lastIndex = k;
    }
    indices[i] = lastIndex;
  }
  const palette = new Uint8Array(3 * seen.size); // (colours, 3)
  for (const [c, k] of seen) palette.set([c >> 16, (c >> 8) & 255, c & 255], 3 * k);
  return { palette, indices };
}

/** @param {Uint8Array | Uint8ClampedArray} rgba @param {number} most */
function medianCut(rgba, most) {
  const n = rgba.length >> 2;
  const bin = new Uint16Array(n); // (n) each pixel's bin
  const count = new Uint32Array(BINS); // (BINS)
  const sum = new Float64Array(3 * BINS); // (BINS, 3) the sum of each bin's pixels' channels
  for (let i = 0; i < n; i++) {
    const r = rgba[4 * i];
    const g = rgba[4 * i + 1];
    const b = rgba[4 * i + 2];
    const k = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    bin[i] = k;
    count[k]++;
    sum[3 * k] += r;
    sum[3 * k + 1] += g;
    sum[3 * k + 2] += b;
  }
  let used = 0;
  for (let k = 0; k < BINS; k++) if (count[k]) used++;
  const order = new Int32Array(used); // (used bins) grouped by box
  for (let k = 0, j = 0; k < BINS; k++) if (count[k]) order[j++] = k;
  const means = new Float32Array(3 * BINS); // (BINS, 3) each bin's mean colour
  for (let j = 0; j < used; j++) for (let c = 0; c < 3; c++) means[3 * order[j] + c] = sum[3 * order[j] + c] / count[order[j]];
  const mean = (/** @type {number} */ k, /** @type {number} */ c) => means[3 * k + c];
  /** @typedef {{ start: number, end: number, pixels: number, channel: number, range: number }} Box */
  /** @param {number} start @param {number} end @returns {Box} */
  const box = (start, end) => {
    const lo = [255, 255, 255];
    const hi = [0, 0, 0];
    let pixels = 0;
    for (let j = start; j < end; j++) {
      const k = order[j];
      pixels += count[k];
      for (let c = 0; c < 3; c++) {
        const v = mean(k, c);
        if (v < lo[c]) lo[c] = v;
        if (v > hi[c]) hi[c] = v;
      }
    }
    const ranges = hi.map((v, c) => v - lo[c]);
    const channel = ranges.indexOf(Math.max(...ranges));
    return { start, end, pixels, channel, range: ranges[channel] };
  };
  const boxes = used ? [box(0, used)] : [];
  while (boxes.length < most) {
    // The box to split: the most pixels times the widest spread, of those with two bins.
    let best = -1;
    let score = 0;
    boxes.forEach((b, i) => {
      const s = b.end - b.start > 1 ? b.pixels * b.range : 0;
      if (s > score) {
        score = s;
        best = i;
      }
    });
    if (best < 0) break;
    const b = boxes[best];
    // Sorted by the channel's mean (to 1/16), as integer keys above the bin's 15 bits.
    const slice = order.subarray(b.start, b.end);
    for (let j = 0; j < slice.length; j++) slice[j] = (Math.round(16 * mean(slice[j], b.channel)) << 15) | slice[j];
    slice.sort();
    for (let j = 0; j < slice.length; j++) slice[j] &= BINS - 1;
    // Split at the weighted median, leaving at least one bin on each side.
    let half = 0;
    let cut = b.start + 1;
    for (let j = b.start; j < b.end - 1; j++) {
      half += count[order[j]];
      cut = j + 1;
      if (2 * half >= b.pixels) break;
    }
    boxes.splice(best, 1, box(b.start, cut), box(cut, b.end));
  }
  const palette = new Uint8Array(3 * boxes.length); // (colours, 3)
  boxes.forEach((b, i) => {
    const s = [0, 0, 0];
    for (let j = b.start; j < b.end; j++) for (let c = 0; c < 3; c++) s[c] += sum[3 * order[j] + c];
    for (let c = 0; c < 3; c++) palette[3 * i + c] = Math.round(s[c] / b.pixels);
  });
  // Each bin to its box's colour.
  const lookup = new Uint8Array(BINS); // (BINS)
  boxes.forEach((b, i) => {
    for (let j = b.start; j < b.end; j++) lookup[order[j]] = i;
  });
  const indices = new Uint8Array(n); // (n)
  for (let i = 0; i < n; i++) indices[i] = lookup[bin[i]];
  return { palette, indices };
}

/** The LZW code table: the code of (prefix code, next index) at `prefix * 256 + index`, 0 if
 * none. Shared by every call (module state, reset before each use). (MAX_CODE · 256) */
const table = new Int16Array(MAX_CODE * 256);
/** The entries of `table` set since its last reset. (MAX_CODE) */
const setKeys = new Int32Array(MAX_CODE);

/**
 * GIF's variable-length LZW code of a frame's colour indices, as packed bytes (before
 * they are cut into sub-blocks).
 * @param {Uint8Array} indices each pixel's colour index, below 2 ** minCodeSize
 * @param {number} minCodeSize 2 to 8
 * @returns {Uint8Array}
 */
export function lzw(indices, minCodeSize) {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const out = new Bytes(Math.max(64, indices.length >> 1));
  let acc = 0;
  let bits = 0;
  let size = minCodeSize + 1;
  const emit = (/** @type {number} */ code) => {
    acc |= code << bits;
    bits += size;
    while (bits >= 8) {
      out.byte(acc & 255);
      acc >>>= 8;
      bits -= 8;
    }
  };
  let used = 0;
  const reset = () => {
    for (let j = 0; j < used; j++) table[setKeys[j]] = 0;
    used = 0;
  };
  reset();
  let next = end + 1;
  emit(clear);
  if (indices.length === 0) {
    emit(end);
  } else {
    let prefix = indices[0];
    for (let i = 1; i < indices.length; i++) {
      const k = indices[i];
      const key = prefix * 256 + k;
      const code = table[key];
      if (code) {
        prefix = code;
        continue;
      }
      emit(prefix);
      if (next === MAX_CODE) {
        // The table is full: start again (the decoder resets on the clear code).
        emit(clear);
        reset();
        next = end + 1;
        size = minCodeSize + 1;
      } else {
        // The decoder reads a wider code once it has made the entry that needs it.
        if (next >= 1 << size) size++;
        table[key] = next++;
        setKeys[used++] = key;
      }
      prefix = k;
    }
    emit(prefix);
    // Reading that code, the decoder makes the entry the encoder made last; if that fills
    // the codes of this width, it reads the end code one bit wider.
    if (next === 1 << size && size < 12) size++;
    emit(end);
  }
  reset();
  if (bits > 0) out.byte(acc & 255); // the last bits, padded with zeros
  return out.bytes();
}

/** Bytes written one after another into one growing buffer. */
class Bytes {
  constructor(size = 1024) {
    /** @private */ this.buf = new Uint8Array(size);
    this.length = 0;
  }

  /** Room for `n` more bytes. @private @param {number} n */
  room(n) {
    if (this.length + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buf.length, this.length + n));
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
  }

  /** @param {ArrayLike<number>} bytes */
  push(bytes) {
    this.room(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** @param {number} v one byte */
  byte(v) {
    if (this.length === this.buf.length) this.room(1);
    this.buf[this.length++] = v;
  }

  /** @param {number} v a little-endian 16-bit number */
  u16(v) {
    this.push([v & 255, (v >> 8) & 255]);
  }

  /** The bytes written, in a buffer of their own. */
  bytes() {
    return this.buf.slice(0, this.length);
  }
}

/**
 * An animated GIF, one frame at a time: only the rectangle that changed since the last
 * frame is stored, over the last frame (which shows through its unchanged pixels), with its
 * own colour table.
 */
export class GifEncoder {
  /** @param {number} width @param {number} height 1 to 65,535 pixels each */
  constructor(width, height) {
    if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1 && width < 65536 && height < 65536)) {
      throw new RangeError(`a GIF is 1 to 65,535 pixels a side, got ${width} × ${height}`);
    }
    this.width = width;
    this.height = height;
    /** Frames so far. */
    this.frames = 0;
    /** The file so far: the header, then one buffer a frame. @private @type {Uint8Array[]} */
    this.chunks = [];
    /** The last frame's pixels. @private @type {Uint8Array | null} (height, width, 4) */
    this.last = null;
    const o = new Bytes(64);
    o.push([...'GIF89a'].map((c) => c.charCodeAt(0)));
    o.u16(width);
    o.u16(height);
    o.push([0x70, 0, 0]); // no global colour table; 8 bits of colour resolution
    // NETSCAPE2.0: loop forever.
    o.push([0x21, 0xff, 11, ...[...'NETSCAPE2.0'].map((c) => c.charCodeAt(0)), 3, 1, 0, 0, 0]);
    this.chunks.push(o.bytes());
  }

  /**
   * Adds a frame shown for `delay` hundredths of a second.
   * @param {Uint8Array | Uint8ClampedArray} rgba (height, width, 4) @param {number} delay 0 to 65,535
   */
  frame(rgba, delay) {
    const { width: w, height: h, last } = this;
    if (rgba.length !== 4 * w * h) throw new RangeError(`a frame of ${w} × ${h} pixels has ${4 * w * h} bytes, got ${rgba.length}`);
    const rect = last ? changed(last, rgba, w, h) : { x: 0, y: 0, w, h };
    // The rectangle's pixels that changed, gathered; those that did not are transparent
    // (the last frame shows through), which LZW packs into long runs.
    const n = rect.w * rect.h;
    const part = new Uint8Array(4 * n); // (changed pixels, 4)
    const kept = new Uint8Array(n); // (rect.h, rect.w) 1 where the pixel did not change
    let m = 0;
    for (let y = 0; y < rect.h; y++) {
      for (let x = 0; x < rect.w; x++) {
        const i = 4 * ((rect.y + y) * w + rect.x + x);
        if (last && last[i] === rgba[i] && last[i + 1] === rgba[i + 1] && last[i + 2] === rgba[i + 2]) {
          kept[y * rect.w + x] = 1;
        } else {
          part.set(rgba.subarray(i, i + 4), 4 * m++);
        }
      }
    }
    const q = quantize(part.subarray(0, 4 * m), last ? 255 : 256);
    const transparent = q.palette.length / 3;
    const indices = new Uint8Array(n); // (rect.h, rect.w)
    for (let j = 0, k = 0; j < n; j++) indices[j] = kept[j] ? transparent : q.indices[k++];
    const palette = q.palette;
    const colours = transparent + (last ? 1 : 0);
    let bits = 1;
    while (1 << bits < colours) bits++;
    const data = lzw(indices, Math.max(2, bits));
    const o = new Bytes(data.length + data.length / 255 + 1024);
    // Graphic control: keep the frame under the next (disposal 1), its delay, and the index
    // that leaves the last frame's pixel.
    o.push([0x21, 0xf9, 4, (1 << 2) | (last ? 1 : 0)]);
    o.u16(Math.max(0, Math.min(65535, Math.round(delay))));
    o.push([last ? transparent : 0, 0]);
    o.push([0x2c]);
    o.u16(rect.x);
    o.u16(rect.y);
    o.u16(rect.w);
    o.u16(rect.h);
    o.push([0x80 | (bits - 1)]);
    const table = new Uint8Array(3 << bits); // (2 ** bits, 3)
    table.set(palette);
    o.push(table);
    o.push([Math.max(2, bits)]);
    for (let i = 0; i < data.length; i += 255) {
      const block = data.subarray(i, i + 255);
      o.push([block.length]);
      o.push(block);
    }
    o.push([0]);
    this.chunks.push(o.bytes());
    this.last = Uint8Array.from(rgba);
    this.frames++;
  }

  /** The file's bytes, in chunks (a Blob's parts: the header, one a frame, the end); no
   * frame may follow. */
  end() {
    this.chunks.push(Uint8Array.of(0x3b));
    return this.chunks;
  }
}

/** The smallest rectangle holding every pixel of `b` that differs from `a` (a 1 × 1 one at
 * the corner where none does: a frame is never empty).
 * @param {Uint8Array} a @param {Uint8Array | Uint8ClampedArray} b @param {number} w @param {number} h */
function changed(a, b, w, h) {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = 4 * (y * w + x);
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  if (x1 < 0) return { x: 0, y: 0, w: 1, h: 1 };
  return { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}
