// @ts-check
// The A/B page: loads the builds named in ?builds=a,b (directories of pkg/) and times their
// training step on ?preset= in alternating rounds (?rounds=N), so that a busy minute on a
// shared machine falls on every build alike, after two untimed rounds. Result in
// window.__ab: per build, every round's ms per step (see `benchStep`).

const params = new URLSearchParams(location.search);
const builds = (params.get('builds') ?? '').split(',').filter(Boolean);
const preset = params.get('preset') ?? 'easy';
const rounds = Number(params.get('rounds') ?? 7);
/** @type {any[]} */
const modules = [];
for (const b of builds) {
  const m = await import(`../pkg/${b}/attention_playground.js`);
  await m.default();
  modules.push(m);
}
// Two untimed rounds first: V8 optimises a wasm function only after its first calls.
for (let r = 0; r < 2; r++) modules.forEach((m) => m.benchStep(m.preset(preset), 1));
/** @type {number[][]} */
const times = builds.map(() => []);
for (let r = 0; r < rounds; r++) {
  modules.forEach((m, i) => times[i].push(m.benchStep(m.preset(preset), 1)));
  /** @type {HTMLElement} */ (document.getElementById('out')).textContent = `round ${r + 1} of ${rounds}`;
}
/** @type {any} */ (window).__ab = builds.map((name, i) => ({ name, times: times[i] }));
export {};
