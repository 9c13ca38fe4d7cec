// @ts-check
// Generated malformed files, for the file readers' test in Node (export.test.js) and the
// page's (tests/e2e/inputs.test.js): every field of a good file deleted, nulled, retyped
// and resized.

/** Every path of a JSON value's fields, with the value there. @param {any} v @param {string[]} at @returns {[string[], any][]} */
export function paths(v, at = []) {
  const here = /** @type {[string[], any][]} */ ([[at, v]]);
  if (typeof v !== 'object' || v === null) return here;
  const keys = Array.isArray(v) ? v.map((_, i) => String(i)).slice(0, 3) : Object.keys(v);
  return [...here, ...keys.flatMap((k) => paths(v[k], [...at, k]))];
}

/** A copy of `root` with the value at `path` replaced by `f(old)` (deleted if f gives undefined).
 * @param {any} root @param {string[]} path @param {(old: any) => any} f */
export function mutate(root, path, f) {
  const copy = structuredClone(root);
  if (path.length === 0) return f(copy);
  const parent = path.slice(0, -1).reduce((o, k) => o[k], copy);
  const key = path[path.length - 1];
  const next = f(parent[key]);
  if (next === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else {
    parent[key] = next;
  }
  return copy;
}

/** The mutations of each field: deleted, nulled, retyped, resized. */
export const MUTATIONS = /** @type {[string, (v: any) => any][]} */ ([
  ['deleted', () => undefined], ['null', () => null], ['text', () => 'x'], ['negative', () => -1], ['fraction', () => 2.5],
  ['huge', () => 1e300], ['list', () => []], ['object', () => ({})], ['true', () => true],
  ['shortened', (v) => (Array.isArray(v) ? v.slice(0, -1) : typeof v === 'string' ? v.slice(0, -5) : v)],
  ['doubled', (v) => (Array.isArray(v) ? [...v, ...v] : typeof v === 'string' ? v + v : v)],
]);

/** Fields a file must have: deleting one refuses it. */
export const REQUIRED_RUN = ['format', 'version', 'preset', 'config', 'history', 'history.evaluations', 'history.training_loss',
  'history.training_loss.step', 'history.training_loss.loss', 'shown', 'shown.step', 'shown.seq', 'shown.head', 'shown.shape',
  'shown.shape.tgtLen', 'shown.shape.srcLen', 'shown.shape.heads', 'shown.alpha', 'shown.beta', 'shown.source', 'shown.target',
  'shown.aligned', 'history.evaluations.0.step', 'history.evaluations.0.loss', 'history.evaluations.0.agreement'];

/** Fields a weights file must have. */
export const REQUIRED_WEIGHTS = ['format', 'version', 'preset', 'config', 'count', 'params'];
