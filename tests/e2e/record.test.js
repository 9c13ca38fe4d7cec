// @ts-check
// End-to-end tests of Record: the GIF encoder's files decode in Chromium (its own decoder,
// WebCodecs' ImageDecoder) to the frames, pixels and delays given; recording through the
// page's Record panel saves a WebM whose frames and size match the settings (read from the
// file's EBML here) and a GIF that decodes to as many frames of the same size; where the
// browser has no MediaRecorder the panel says so and the GIF still records; generated click
// sequences on the panel while the run trains end every recording saved or said why not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshPage } from './harness.js';
import { session } from './session.js';
import { GifEncoder } from '../../www/record/gif.js';
import { rng, pick } from '../unit/link-cases.js';

const env = session();

/**
 * Decodes a GIF in the page with Chromium's ImageDecoder: each frame's size, duration (ms),
 * the share of its bytes more than 8 from the first frame's and, with `pixels`, its RGBA
 * pixels.
 * @param {import('playwright-core').Page} page @param {Uint8Array} bytes @param {boolean} pixels
 * @returns {Promise<{ width: number, height: number, duration: number, moved: number, rgba: number[] }[]>}
 */
function decodeGif(page, bytes, pixels) {
  return page.evaluate(async ({ data, pixels }) => {
    const decoder = new /** @type {any} */ (window).ImageDecoder({ data: new Uint8Array(data), type: 'image/gif' });
    await decoder.tracks.ready;
    await decoder.completed;
    const count = decoder.tracks.selectedTrack.frameCount;
    const frames = [];
    /** @type {Uint8ClampedArray | undefined} */
    let first;
    for (let i = 0; i < count; i++) {
      const { image } = await decoder.decode({ frameIndex: i });
      const width = image.displayWidth;
      const height = image.displayHeight;
      const c = new OffscreenCanvas(width, height);
      const g = /** @type {OffscreenCanvasRenderingContext2D} */ (c.getContext('2d'));
      g.drawImage(image, 0, 0);
      const data = g.getImageData(0, 0, width, height).data;
      first ??= data;
      let moved = 0;
      for (let j = 0; j < data.length; j++) if (Math.abs(data[j] - first[j]) > 8) moved++;
      frames.push({ width, height, duration: image.duration / 1000, moved: moved / data.length, rgba: pixels ? Array.from(data) : [] });
      image.close();
    }
    return frames;
  }, { data: Array.from(bytes), pixels });
}

/** The frames (SimpleBlocks and Blocks) of a WebM file and its video's pixel size, read
 * from its EBML elements. @param {Uint8Array} b */
function webmInfo(b) {
  /** An EBML variable-length number at `p`: its value (with the length marker kept for
   * ids) and its length. @param {number} p @param {boolean} id */
  const vint = (p, id) => {
    let len = 1;
    while (len <= 8 && !(b[p] & (0x80 >> (len - 1)))) len++;
    let v = id ? b[p] : b[p] & (0xff >> len);
    for (let i = 1; i < len; i++) v = v * 256 + b[p + i];
    return { v, len, unknown: !id && v === 2 ** (7 * len) - 1 };
  };
  const uint = (/** @type {number} */ p, /** @type {number} */ n) => {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + b[p + i];
    return v;
  };
  // Segment, Cluster, Tracks, TrackEntry, Video, BlockGroup: containers read into.
  const containers = [0x18538067, 0x1f43b675, 0x1654ae6b, 0xae, 0xe0, 0xa0];
  const info = { frames: 0, width: 0, height: 0 };
  /** @param {number} p @param {number} end */
  const walk = (p, end) => {
    while (p < end) {
      const id = vint(p, true);
      const size = vint(p + id.len, false);
      const start = p + id.len + size.len;
      const stop = size.unknown ? end : Math.min(end, start + size.v);
      if (containers.includes(id.v)) walk(start, stop);
      else if (id.v === 0xa3 || id.v === 0xa1) info.frames++;
      else if (id.v === 0xb0) info.width = uint(start, size.v);
      else if (id.v === 0xba) info.height = uint(start, size.v);
      p = stop;
    }
  };
  const header = vint(0, true);
  assert.equal(header.v, 0x1a45dfa3, 'an EBML file');
  walk(0, b.length);
  return info;
}

test('GIF encoder: Chromium decodes its frames to the pixels and delays given (odd sizes, ≤ 256 colours exact, more within bins)', async () => {
  const { page, context } = await freshPage(env.browser, env.url);
  try {
    const rand = rng(7);
    /** @param {number} w @param {number} h @param {(x: number, y: number) => number[]} f */
    const picture = (w, h, f) => {
      const rgba = new Uint8Array(4 * w * h);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rgba.set([...f(x, y), 255], 4 * (y * w + x));
      return rgba;
    };
    // Exact: 250 colours at random over 201 × 97 (LZW's table fills and clears many times),
    // then one pixel changed, then the same frame again (an empty change), then 2 colours.
    const colours = Array.from({ length: 250 }, () => [0, 0, 0].map(() => Math.floor(256 * rand())));
    const w = 201;
    const h = 97;
    const a = picture(w, h, () => colours[Math.floor(250 * rand())]);
    const b = Uint8Array.from(a);
    b.set([1, 2, 3], 4 * (50 * w + 120));
    const c = picture(w, h, (x, y) => ((x >> 3) + y) % 2 ? [255, 255, 255] : [0, 0, 0]);
    // Many colours (19,497): two smooth gradients, as a heatmap's colours and their blends.
    const g = picture(w, h, (x, y) => [x, 2 * y, 128 + ((x - y) >> 2)]);
    const exact = [a, b, b, c];
    const delays = [10, 7, 2, 33, 5];
    const gif = new GifEncoder(w, h);
    [...exact, g].forEach((f, i) => gif.frame(f, delays[i]));
    const bytes = Buffer.concat(gif.end());
    const frames = await decodeGif(page, bytes, true);
    assert.equal(frames.length, 5);
    frames.forEach((f, i) => {
      assert.deepEqual([f.width, f.height], [w, h], `frame ${i}: size`);
      assert.equal(f.duration, delays[i] * 10, `frame ${i}: delay`);
    });
    exact.forEach((f, i) => assert.deepEqual(frames[i].rgba, Array.from(f), `frame ${i}: pixels`));
    let sum = 0;
    let worst = 0;
    for (let i = 0; i < g.length; i++) {
      if (i % 4 === 3) continue;
      const d = Math.abs(frames[4].rgba[i] - g[i]);
      sum += d;
      worst = Math.max(worst, d);
    }
    const mean = sum / (0.75 * g.length);
    assert.ok(mean < 4, `the quantized frame is near the picture: mean error ${mean.toFixed(2)} of 255`);
    assert.ok(worst < 24, `and no pixel is far: worst ${worst}`);
  } finally {
    await context.close();
  }
});

/** The Record panel's settings, chosen through its selects. @param {import('playwright-core').Page} page
 * @param {{ format: string, fps: string, width: string, seconds: string }} s */
async function choose(page, s) {
  for (const [k, v] of Object.entries(s)) await page.selectOption(`#record-${k}`, v);
}

test('Record: a WebM and a GIF of the training, their frames and size those of the settings', async () => {
  const { page, context, errors } = await freshPage(env.browser, `${env.url}?v=1&speed=4`);
  try {
    /** @type {import('playwright-core').Download[]} */
    const downloads = [];
    page.on('download', (d) => downloads.push(d));
    await page.click('#record-button');
    assert.equal(await page.getAttribute('#record-button', 'aria-expanded'), 'true');
    await choose(page, { format: 'both', fps: '10', width: '480', seconds: '2' });
    await page.click('#record-start');
    // It plays the paused run, and counts its frames.
    assert.equal(await page.textContent('#play'), 'Pause');
    assert.equal(await page.isDisabled('#record-width'), true, 'no setting changes while recording');
    await page.waitForFunction(() => /Saved/.test(document.getElementById('record-status')?.textContent ?? ''), null, { timeout: 60_000 });
    const said = /** @type {string} */ (await page.textContent('#record-status'));
    const m = /(\d+) frames of (\d+) × (\d+) pixels/.exec(said);
    assert.ok(m, said);
    assert.equal(Number(m[1]), 20, said);
    assert.equal(Number(m[2]), 480);
    const height = Number(m[3]);
    assert.ok(height % 2 === 0 && height > 100, `an even height: ${height}`);
    for (let i = 0; downloads.length < 2 && i < 50; i++) await page.waitForTimeout(100);
    assert.equal(downloads.length, 2, 'two files');
    const files = Object.fromEntries(await Promise.all(downloads.map(async (d) => [d.suggestedFilename().split('.').pop(), readFileSync(/** @type {string} */ (await d.path()))])));
    assert.match(downloads[0].suggestedFilename(), /^attention-playground-[a-z0-9-]+-seed\d+-from-step\d+\.webm$/);
    const video = webmInfo(files.webm);
    assert.deepEqual(video, { frames: 20, width: 480, height }, 'the WebM: one frame per frame taken, the settings\' width');
    const frames = await decodeGif(page, files.gif, false);
    assert.equal(frames.length, 20, 'the GIF decodes to the same number of frames');
    for (const f of frames) assert.deepEqual([f.width, f.height], [480, height]);
    // The training moved between the first frame and the last.
    assert.ok(frames[19].moved > 0.01, `the frames differ: ${frames[19].moved} of the bytes`);
    // The video loads in the browser at that size (on a blank page: the page's own CSP
    // lets no media in).
    const blank = await context.newPage();
    const size = await blank.evaluate(async (data) => {
      const v = document.createElement('video');
      v.muted = true;
      v.src = URL.createObjectURL(new Blob([new Uint8Array(data)], { type: 'video/webm' }));
      await new Promise((resolve, reject) => {
        v.onloadedmetadata = resolve;
        v.onerror = () => reject(new Error('the video does not load'));
      });
      return [v.videoWidth, v.videoHeight];
    }, Array.from(files.webm));
    assert.deepEqual(size, [480, height]);
    assert.equal(await page.textContent('#record-start'), 'Start recording');
    assert.equal(await page.isDisabled('#record-width'), false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Record leaves a pause out: paused for 3 s mid-recording, the GIF holds no frame that long, and the panel said it waits', async () => {
  const { page, context, errors } = await freshPage(env.browser, `${env.url}?v=1&speed=4`);
  try {
    await page.click('#record-button');
    await choose(page, { format: 'gif', fps: '10', width: '360', seconds: '2' });
    await page.click('#record-start');
    await page.waitForFunction(() => Number(/** @type {HTMLProgressElement} */ (document.getElementById('record-progress')).value) >= 5);
    await page.click('#play');
    await page.waitForFunction(() => /Paused with the run/.test(document.getElementById('record-status')?.textContent ?? ''));
    const before = Number(await page.getAttribute('#record-progress', 'value'));
    await page.waitForTimeout(3000);
    assert.equal(Number(await page.getAttribute('#record-progress', 'value')), before, 'no frame is taken while paused');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#play')]);
    const frames = await decodeGif(page, readFileSync(/** @type {string} */ (await download.path())), false);
    assert.equal(frames.length, 20);
    const longest = Math.max(...frames.map((f) => f.duration));
    assert.ok(longest < 1500, `the longest frame lasts ${longest} ms: the 3 s pause is left out`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Record without MediaRecorder: the panel says there is no video here; stopped before a frame it says so; a GIF stopped early holds the frames it says', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.addInitScript(() => {
    delete (/** @type {any} */ (window)).MediaRecorder;
  });
  const page = await context.newPage();
  try {
    await page.goto(`${env.url}?v=1&speed=4`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown() != null);
    await page.click('#record-button');
    assert.match(/** @type {string} */ (await page.textContent('#record-note')), /No video here: this browser cannot record video/);
    assert.equal(await page.inputValue('#record-format'), 'gif');
    assert.equal(await page.isDisabled('#record-format option[value="webm"]'), true);
    // Start, then Stop before a frame could be drawn: nothing saved, and the page says why.
    await page.evaluate(() => {
      const start = /** @type {HTMLButtonElement} */ (document.getElementById('record-start'));
      start.click();
      start.click();
    });
    assert.match(/** @type {string} */ (await page.textContent('#record-status')), /^Not recorded: nothing was recorded: no picture was drawn while recording/);
    assert.equal(await page.textContent('#record-start'), 'Start recording');
    await choose(page, { format: 'gif', fps: '5', width: '360', seconds: '60' });
    await page.click('#record-start');
    await page.waitForFunction(() => Number(/** @type {HTMLProgressElement} */ (document.getElementById('record-progress')).value) >= 3);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#record-start')]);
    const said = /** @type {string} */ (await page.textContent('#record-status'));
    const m = /(\d+) frames of 360 × (\d+) pixels/.exec(said);
    assert.ok(m, said);
    const frames = await decodeGif(page, readFileSync(/** @type {string} */ (await download.path())), false);
    assert.equal(frames.length, Number(m[1]), 'the GIF holds the frames the page says');
    assert.ok(frames.length >= 3);
    assert.ok(frames.every((f) => f.width === 360 && f.height === Number(m[2])));
  } finally {
    await context.close();
  }
});

test('generated click sequences on Record, Play, Reset and the presets: each recording saved holds the frames it says, or the page says why none', async () => {
  const { page, context, errors } = await freshPage(env.browser, `${env.url}?v=1&speed=4`);
  try {
    const presets = ['small-easy', 'small-hard', 'small-uniform'];
    /** @type {import('playwright-core').Download[]} */
    const downloads = [];
    page.on('download', (d) => downloads.push(d));
    // Every text the Record status line shows, as it shows it.
    await page.evaluate(() => {
      const el = /** @type {HTMLElement} */ (document.getElementById('record-status'));
      const said = /** @type {string[]} */ ((/** @type {any} */ (window)).recordSaid = []);
      new MutationObserver(() => said.push(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
    });
    await page.click('#record-button');
    await page.selectOption('#record-format', 'both');
    const r = rng(33);
    const usable = (/** @type {string} */ sel) => page.$eval(sel, (el) => !(/** @type {HTMLButtonElement} */ (el).disabled)
      && /** @type {HTMLElement} */ (el).offsetParent !== null);
    for (let i = 0; i < 60; i++) {
      const what = r();
      if (what < 0.15) await page.click('#record-button');
      else if (what < 0.45) {
        if (await usable('#record-start')) await page.click('#record-start');
      } else if (what < 0.5) {
        if (await usable('#record-close')) await page.click('#record-close');
      } else if (what < 0.75) {
        const key = pick(r, ['format', 'fps', 'width', 'seconds']);
        const values = /** @type {Record<string, string[]>} */ ({ format: ['webm', 'gif', 'both'], fps: ['5', '10', '30'], width: ['360', '480'], seconds: ['2'] })[key];
        if (await usable(`#record-${key}`)) await page.selectOption(`#record-${key}`, pick(r, values));
      } else if (what < 0.85) await page.click('#play');
      else if (what < 0.92) await page.click('#reset');
      else await page.selectOption('#preset', pick(r, presets));
      await page.waitForTimeout(Math.floor(r() * 250));
    }
    // A recording still going (the panel may be folded away: Record shows it) is stopped
    // and saved, or says it took nothing.
    if ((await page.textContent('#record-start')) === 'Stop and save') {
      if (!(await page.isVisible('#record-start'))) await page.click('#record-button');
      await page.click('#record-start');
    }
    await page.waitForFunction(() => document.getElementById('record-start')?.textContent === 'Start recording'
      && !/^Saving/.test(document.getElementById('record-status')?.textContent ?? ''), null, { timeout: 60_000 });
    await page.waitForTimeout(1000); // the second file of a pair follows the first
    const said = /** @type {string[]} */ (await page.evaluate(() => /** @type {any} */ (window).recordSaid));
    const ends = said.filter((t) => /^(Saved|Not recorded)/.test(t)).filter((t, k, all) => t !== all[k - 1]);
    for (const t of ends) assert.match(t, /^(Saved .+: \d+ frames of \d+ × \d+ pixels\.|Not recorded: nothing was recorded: no picture was drawn while recording .+\.)$/, t);
    const saved = ends.filter((t) => t.startsWith('Saved'));
    assert.ok(saved.length >= 1, `some recording was saved: ${JSON.stringify(ends)}`);
    // Each saved recording's files, in order: as many frames as it says, of its size.
    let d = 0;
    for (const t of saved) {
      const m = /** @type {RegExpExecArray} */ (/: (\d+) frames of (\d+) × (\d+) pixels/.exec(t));
      const [frames, width, height] = m.slice(1).map(Number);
      const names = [...t.matchAll(/(attention-playground-\S+\.(webm|gif))/g)].map((x) => x[1]);
      for (const name of names) {
        const dl = downloads[d++];
        assert.equal(dl?.suggestedFilename(), name, `the download of ${t}`);
        const bytes = readFileSync(/** @type {string} */ (await dl.path()));
        if (name.endsWith('.webm')) assert.deepEqual(webmInfo(bytes), { frames, width, height }, name);
        else {
          const decoded = await decodeGif(page, bytes, false);
          assert.equal(decoded.length, frames, name);
          assert.ok(decoded.every((f) => f.width === width && f.height === height), name);
        }
      }
    }
    assert.equal(d, downloads.length, 'no file was downloaded that the page did not say it saved');
    console.log(`${saved.length} recordings saved, ${ends.length - saved.length} with nothing taken, ${downloads.length} files`);
    // The run the user was watching still trains.
    if ((await page.textContent('#play')) === 'Play') await page.click('#play');
    const s0 = await page.evaluate(() => /** @type {any} */ (window).__ap.shown().step);
    await page.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n, s0, { timeout: 60_000 });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
