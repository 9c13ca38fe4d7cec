// @ts-check
// Makes pkg/ an installable npm package after scripts/build: package.json (name, version
// from Cargo.toml, ES module entry point), the loader index.js, variant.js and the names
// it picks among (builds.js), README.md.
// Usage: node scripts/package.js
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cargo = readFileSync(`${root}Cargo.toml`, 'utf8');
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1];
if (!version) throw new Error('no version in Cargo.toml');
const variants = ['scalar', 'simd128', 'relaxed-simd'];
// The relaxed-SIMD build with the copying lab's GPU backend (WebGPU), loaded only when asked for.
const builds = [...variants, 'webgpu'];
const pkg = {
  name: 'attention-playground',
  version,
  description: 'The trainers of Attention Playground (a seq2seq LSTM with attention; a self-attention head on a sparse Boolean function), in WebAssembly (scalar, simd128, relaxed-SIMD; WebGPU for the first).',
  license: 'MIT',
  type: 'module',
  main: './index.js',
  exports: {
    '.': './index.js',
    ...Object.fromEntries(builds.map((v) => [`./${v}`, `./${v}/attention_playground.js`])),
  },
  files: ['index.js', 'variant.js', 'builds.js', 'README.md', ...builds.flatMap((v) => [`${v}/attention_playground.js`, `${v}/attention_playground_bg.wasm`])],
  sideEffects: false,
};
writeFileSync(`${root}pkg/package.json`, `${JSON.stringify(pkg, null, 2)}\n`);
copyFileSync(`${root}www/training/package-entry.js`, `${root}pkg/index.js`);
copyFileSync(`${root}scripts/pkg/README.md`, `${root}pkg/README.md`);
// variant.js names its builds from state/builds.js, which the package ships beside it.
const variantJs = readFileSync(`${root}www/training/variant.js`, 'utf8');
const beside = variantJs.replaceAll("'../state/builds.js'", "'./builds.js'");
if (beside === variantJs || /from '\.\.\//.test(beside)) throw new Error('www/training/variant.js: its imports are not the ones the package rewrites');
writeFileSync(`${root}pkg/variant.js`, beside);
copyFileSync(`${root}www/state/builds.js`, `${root}pkg/builds.js`);
console.log(`pkg/: attention-playground ${version}`);
