// @ts-check
// The feature probes of www/training/variant.js, checked in Node: the simd128 probe is valid in
// Node 20, the relaxed-SIMD probe only with --experimental-wasm-relaxed-simd, and a probe
// with a broken opcode is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { SIMD_PROBE, RELAXED_PROBE, detectVariant } from '../../www/training/variant.js';

/** Runs `WebAssembly.validate` on the relaxed probe in a child node with `flags`.
 * @param {string[]} flags */
function relaxedValidIn(flags) {
  const code = `import('${new URL('../../www/training/variant.js', import.meta.url)}').then(m => console.log(WebAssembly.validate(m.RELAXED_PROBE)))`;
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code]).toString().trim() === 'true';
}

test('the probes are well-formed modules that differ only in the feature they need', () => {
  assert.ok(WebAssembly.validate(SIMD_PROBE), 'simd128 is on by default in Node 20');
  assert.ok(relaxedValidIn(['--experimental-wasm-relaxed-simd']), 'relaxed probe valid with the flag');
  assert.equal(relaxedValidIn([]), false, 'and refused without it');
  const broken = RELAXED_PROBE.slice();
  broken[broken.length - 3] = 0xff; // an opcode that does not exist
  assert.equal(WebAssembly.validate(broken), false);
});

test('detectVariant picks the best supported build', () => {
  assert.equal(detectVariant({ validate: () => true }), 'relaxed-simd');
  assert.equal(detectVariant({ validate: (b) => b === SIMD_PROBE }), 'simd128');
  assert.equal(detectVariant({ validate: () => false }), 'scalar');
});
