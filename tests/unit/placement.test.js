// @ts-check
// Where runs train (www/training/placement.js), decided once from the link, the browser,
// the lab and the run's settings: every reason to stay on the CPU, said in words, and the
// lab's rule under backend=auto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeRuns } from '../../www/training/placement.js';
import { LABS } from '../../www/labs/index.js';

const paper = { hidden: 256, batch: 128 };
const small = { hidden: 64, batch: 32 };
/** A browser's WebGPU whose one adapter is `adapter` (null: none; an Error: it throws). @param {unknown} adapter */
const webgpu = (adapter) => ({
  requestAdapter: async () => {
    if (adapter instanceof Error) throw adapter;
    return adapter;
  },
});
const real = webgpu({ info: { isFallbackAdapter: false } });
/** @param {Partial<Parameters<typeof placeRuns>[0]>} o */
const place = (o) => placeRuns({ asked: 'auto', forced: null, detected: 'relaxed-simd', lab: LABS.copying, webgpu: real, ...o });

test('a real adapter under auto: the paper-size copying run on the GPU, the small preset on the CPU with the lab\'s rule', async () => {
  const p = await place({});
  assert.equal(p.build, 'webgpu');
  assert.deepEqual(p.for(paper), { backend: 'gpu', reason: '' });
  const cpu = p.for(small);
  assert.equal(cpu.backend, 'cpu');
  assert.match(cpu.reason, /backend=auto.*16,384/);
});

test('backend=gpu takes any adapter, a software fallback too, for any settings', async () => {
  const p = await place({ asked: 'gpu', webgpu: webgpu({ isFallbackAdapter: true }) });
  assert.deepEqual(p.for(small), { backend: 'gpu', reason: '' });
});

test('every reason to stay on the CPU is said, and the page loads the CPU build', async () => {
  /** @type {[Partial<Parameters<typeof placeRuns>[0]>, RegExp, string][]} */
  const cases = [
    [{ asked: 'cpu' }, /link asks for the CPU/, 'relaxed-simd'],
    [{ lab: LABS.sparse }, /sparse.* CPU only|CPU only/, 'relaxed-simd'],
    [{ forced: 'simd128' }, /asks for a wasm build/, 'simd128'],
    [{ detected: 'simd128' }, /relaxed SIMD/, 'simd128'],
    [{ webgpu: undefined }, /no WebGPU/, 'relaxed-simd'],
    [{ webgpu: webgpu(null) }, /no GPU adapter/, 'relaxed-simd'],
    [{ webgpu: webgpu(new Error('refused')) }, /no GPU adapter/, 'relaxed-simd'],
    [{ webgpu: webgpu({ info: { isFallbackAdapter: true } }) }, /software fallback/, 'relaxed-simd'],
  ];
  for (const [o, reason, build] of cases) {
    const p = await place(o);
    assert.equal(p.gpu, false, JSON.stringify(o));
    assert.equal(p.build, build, JSON.stringify(o));
    const at = p.for(paper);
    assert.equal(at.backend, 'cpu');
    assert.match(at.reason, reason);
  }
});

test('a GPU build that does not load sends every run to the CPU, saying why', async () => {
  const p = await place({ asked: 'gpu' });
  p.gpuFailed('the GPU build did not load (404)');
  assert.equal(p.build, 'relaxed-simd');
  assert.deepEqual(p.for(paper), { backend: 'cpu', reason: 'the GPU build did not load (404)' });
});
