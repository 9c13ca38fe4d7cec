// @ts-check
// End-to-end tests of compare mode and the classroom story, through the page: a second run
// that differs in one setting with the same seed, both curves on the same charts; the story's
// steps setting up their runs and saying what to watch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, shown } from './harness.js';
import { session } from './session.js';
import { copying } from '../../www/labs/copying/lab.js';
import { storySetup } from '../../www/labs/index.js';

const env = session();

/** The compared run's settings (null before it has a snapshot). @param {import('playwright-core').Page} page */
const secondConfig = (page) => page.evaluate(() => /** @type {any} */ (window).__ap.runs()[1]?.config ?? null);

/** The settings that differ between two configs. @param {any} a @param {any} b */
const differing = (a, b) => Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();

test('compare mode runs a second run that differs in one setting, same seed, on the same charts', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?compare=task&speed=16&seed=6`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1] != null, null, { timeout: 30_000 });
  const a = (await shown(page)).config;
  const b = await secondConfig(page);
  assert.deepEqual(differing(a, b), ['vocab'], 'easy vs hard: V = 30 against V = L = 20');
  assert.equal(b.vocab, b.length);
  assert.equal(b.seed, 6, 'the same seed');
  assert.ok(await page.isVisible('#maps-b'));
  assert.match(await page.textContent('#name-b') ?? '', /hard task/);
  const legend = await page.textContent('#acc-chart .ap-chart-legend') ?? '';
  for (const want of ['attention accuracy, easy task', 'attention accuracy, hard task', 'KTIW accuracy, hard task']) {
    assert.ok(legend.includes(want), `the accuracy chart shows “${want}”: ${legend}`);
  }
  // Play drives both; both histories reach the charts.
  await page.click('#play');
  await page.waitForFunction(() => {
    const ap = /** @type {any} */ (window).__ap;
    return ap.history(0).length >= 4 && ap.history(1).length >= 4;
  }, null, { timeout: 60_000 });
  await page.click('#play');
  const described = await page.getAttribute('#loss-chart canvas', 'aria-label') ?? '';
  assert.match(described, /loss, easy task.*loss, hard task/s, described);
  assert.match(described, /axis from [0-9]/, `a loss never below 0 gets no negative axis: ${described}`);
  // Another contrast: learned against uniform attention.
  await page.selectOption('#compare', 'attention');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.attention === 'uniform', null, { timeout: 30_000 });
  assert.deepEqual(differing((await shown(page)).config, await secondConfig(page)), ['attention']);
  await page.waitForFunction(() => location.search.includes('compare=attention'));
  // A new setting restarts the pair on it, the contrast kept.
  await page.fill('#set-hidden', '32');
  await page.dispatchEvent('#set-hidden', 'change');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.hidden === 32, null, { timeout: 30_000 });
  await page.selectOption('#compare', '');
  // The compared run's maps go with the next drawing.
  await page.locator('#maps-b').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => !location.search.includes('compare'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the story steps set up their runs and say what to watch', async () => {
  const { context, page, errors } = await freshPage(env.browser, env.url);
  await page.click('#story-button');
  assert.match(await page.textContent('#story-title') ?? '', /^1 of 8: Attention starts out flat/);
  assert.equal(await page.isDisabled('#story-prev'), true);
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^2 of 8: KTIW is learned first/);
  assert.match(await page.textContent('#story-text') ?? '', /KTIW accuracy \(dotted\) climbs/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === true);
  await page.click('#story-next');
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^4 of 8: The hard task stalls/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.vocab === 20, null, { timeout: 30_000 });
  // The step's own run needs no more than its number in the link.
  await page.waitForFunction(() => location.search === '?v=1&story=4');
  const link = page.url();
  await page.click('#story-next');
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^6 of 8: Several heads rescue the hard task/);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.heads === 8, null, { timeout: 30_000 });
  // The first run's snapshot of the hard task may come after the compared run's.
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.vocab === 20, null, { timeout: 30_000 });
  // Twenty seeds of the hard task, one run on screen beside them.
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^7 of 8: One draw, or twenty/);
  await page.locator('#sweep').waitFor({ state: 'visible' });
  assert.equal(await page.inputValue('#seeds'), '20');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.sweeps()[0]?.seeds.length === 20);
  assert.equal(await page.inputValue('#compare'), '', 'one run on screen');
  // The last step: the sweep closes; learned against uniform attention, with the agreement
  // chart, pausing once the agreement of α with β^uf is clear.
  await page.click('#story-next');
  assert.match(await page.textContent('#story-title') ?? '', /^8 of 8: KTIW predicts attention/);
  await page.locator('#sweep').waitFor({ state: 'hidden' });
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__ap.sweeps()), []);
  assert.equal(await page.inputValue('#compare'), 'attention');
  await page.locator('#agree-chart').waitFor({ state: 'visible' });
  await page.locator('#story-point').waitFor({ state: 'visible', timeout: 60_000 });
  assert.match(await page.textContent('#story-point') ?? '', /^Shown at step \d+: the learned attention agrees with β\^uf in \d+\.\d% of target steps, against \d+\.\d% by chance\./);
  assert.equal(await page.isDisabled('#story-next'), true);
  await page.click('#story-close');
  assert.equal(await page.isVisible('#story'), false);
  assert.deepEqual(errors, []);
  await context.close();
  // A teacher's link opens the story at its step, with its run.
  const again = await freshPage(env.browser, link);
  assert.match(await again.page.textContent('#story-title') ?? '', /^4 of 8/);
  await again.page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.config.vocab === 20, null, { timeout: 30_000 });
  await again.context.close();
});

test('a compared run autoplays with the first, follows a head it lacks, and restarts with the first run', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?preset=heads&compare=heads&autoplay=1&speed=4`);
  await page.waitForFunction(() => {
    const [a, b] = /** @type {any} */ (window).__ap.runs();
    return a?.step >= 5 && b?.step >= 5;
  }, null, { timeout: 60_000 });
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.running === false);
  // Head 4 of the 8-head run; the 1-head compared run shows its only head and goes on.
  await page.selectOption('#head', '3');
  const b0 = await page.evaluate(() => /** @type {any} */ (window).__ap.runs()[1].step);
  await page.click('#step-once');
  await page.waitForFunction((n) => /** @type {any} */ (window).__ap.runs()[1]?.step === n + 1, b0);
  assert.equal(await page.isVisible('#status'), false, 'no error from the compared run');
  // Other workers start the first run again; the compared one starts again with it.
  await page.selectOption('#workers', '2');
  await page.waitForFunction(() => {
    const [a, b] = /** @type {any} */ (window).__ap.runs();
    return a?.step === 0 && a.workers === 2 && b?.step === 0 && b.workers === 2;
  }, null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a hand-written story=N link sets up step N’s run: its preset, its comparison, its sweep, its speed', async () => {
  const { context, page, errors } = await freshPage(env.browser, env.url);
  const presets = await page.evaluate(() => /** @type {any} */ (window).__ap.presets());
  for (let k = 1; k <= copying.story.length; k++) {
    const setup = storySetup(copying, k - 1);
    await page.goto(`${env.url}?story=${k}`);
    await page.waitForFunction(() => /** @type {any} */ (window).__ap?.shown() != null, null, { timeout: 30_000 });
    assert.match(await page.textContent('#story-title') ?? '', new RegExp(`^${k} of ${copying.story.length}: `));
    assert.deepEqual((await shown(page)).config, presets[setup.preset], `step ${k}: the ${setup.preset} preset`);
    assert.equal(await page.inputValue('#compare'), setup.compare, `step ${k}: the comparison`);
    if (setup.compare) {
      const want = copying.contrasts[setup.compare].apply(presets[setup.preset]);
      await page.waitForFunction((c) => JSON.stringify(/** @type {any} */ (window).__ap.runs()[1]?.config) === c, JSON.stringify(want), { timeout: 30_000 });
    } else assert.equal(await page.isVisible('#maps-b'), false, `step ${k}: one run`);
    if (setup.speed !== undefined) assert.equal(Number(await page.inputValue('#speed')), setup.speed, `step ${k}: its speed`);
    assert.equal(await page.inputValue('#seeds'), setup.seeds, `step ${k}: its sweep`);
    assert.equal(await page.isVisible('#sweep'), setup.seeds !== '', `step ${k}: the sweep panel`);
    assert.equal(await page.isVisible('#status'), false, `step ${k}: nothing refused`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a story step opened from its link starts playing; with reduced motion it waits and says Press Play', async () => {
  for (const lab of ['', '&lab=sparse']) {
    const { context, page, errors } = await freshPage(env.browser, `${env.url}?v=1${lab}&story=2`);
    // Within about 2 s of the page showing its run (a generous bound for a busy machine).
    await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().playing === true, null, { timeout: 4000 });
    await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step > 0);
    assert.equal(await page.textContent('#play'), 'Pause');
    assert.deepEqual(errors, []);
    await context.close();
    const still = await freshPage(env.browser, `${env.url}?v=1${lab}&story=2`, { reducedMotion: 'reduce' });
    await still.page.waitForSelector('#story-point:not([hidden])');
    assert.match(await still.page.textContent('#story-point') ?? '', /^Press Play to start this step/);
    assert.equal(await still.page.evaluate(() => /** @type {any} */ (window).__ap.state().playing), false);
    await still.page.click('#play');
    await still.page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step > 0);
    assert.equal(await still.page.isVisible('#story-point'), false, 'Play hides what was said');
    assert.deepEqual(still.errors, []);
    await still.context.close();
  }
});

test('compared runs advance in step: the faster (one head) waits for the slower (eight heads)', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?preset=small-hard&compare=heads&speed=1000&hidden=32`);
  await page.click('#play');
  // Their steps, read every quarter second until both have passed step 40 (however long
  // that takes on this machine: at most a few minutes).
  /** @type {[number, number][]} */
  const seen = [];
  for (let i = 0; ; i++) {
    await page.waitForTimeout(250);
    const [a, b] = await page.evaluate(() => /** @type {any} */ (window).__ap.runs().map((/** @type {any} */ r) => r?.step ?? 0));
    seen.push([a, b]);
    if (Math.min(a, b) >= 40 && seen.length >= 8) break;
    assert.ok(i < 1200, `both runs reach step 40: ${JSON.stringify(seen.slice(-8))}`);
  }
  await page.click('#play');
  for (const [x, y] of seen) assert.ok(Math.abs(x - y) <= 1, `steps ${x} and ${y} apart: ${JSON.stringify(seen)}`);
  // The charts compare equal steps: both histories cover the same evaluations.
  const steps = await page.evaluate(() => [0, 1].map((i) => /** @type {any} */ (window).__ap.history(i).map((/** @type {any} */ e) => e.step)));
  const shorter = Math.min(steps[0].length, steps[1].length);
  assert.ok(Math.abs(steps[0].length - steps[1].length) <= 1, `${steps[0].length} and ${steps[1].length} evaluations`);
  assert.deepEqual(steps[0].slice(0, shorter), steps[1].slice(0, shorter));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a preset stops at its budget and says what is true by then; Play goes on past it; own settings have none', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?preset=small-hard&speed=1000`);
  const budget = copying.budgets['small-hard'];
  await page.click('#play');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().playing === false, null, { timeout: 90_000 });
  assert.equal((await shown(page)).step, budget.steps, 'paused exactly at the budget');
  assert.equal(await page.textContent('#play'), 'Play');
  const said = await page.textContent('#status') ?? '';
  assert.ok(said.startsWith(`Paused at step ${budget.steps}`) && said.includes(budget.claim), said);
  await page.click('#play');
  await page.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n + 20, budget.steps, { timeout: 30_000 });
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true', 'still playing past the budget');
  assert.equal(await page.isVisible('#status'), false, 'the budget message is gone once Play is pressed');
  // Another seed is the same preset: the budget holds again.
  await page.click('#new-seed');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().playing === false, null, { timeout: 90_000 });
  assert.equal((await shown(page)).step, budget.steps, 'a new seed stops at the budget too');
  assert.notEqual((await shown(page)).config.seed, 0);
  // The user's own settings make no claim: no budget.
  await page.fill('#set-hidden', '32');
  await page.dispatchEvent('#set-hidden', 'change');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.config.hidden === 32 && /** @type {any} */ (window).__ap.shown().step === 0);
  await page.click('#play');
  await page.waitForFunction((n) => /** @type {any} */ (window).__ap.shown().step > n + 20, budget.steps, { timeout: 90_000 });
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a story step pauses once its point is shown, and says so', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?story=2&speed=4&autoplay=1`);
  await page.waitForSelector('#story-point:not([hidden])', { timeout: 60_000 });
  const said = await page.textContent('#story-point') ?? '';
  assert.match(said, /^Shown at step \d+: KTIW accuracy is at \d+\.\d% while attention accuracy is at \d+\.\d%\./);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === false);
  const e = await page.evaluate(() => /** @type {any} */ (window).__ap.history(0).at(-1));
  assert.ok(e.ktiw_accuracy >= 0.8 && e.attention_accuracy < 0.5, JSON.stringify(e));
  // Play hides what was said; Next: the same run goes on to its next point.
  await page.click('#play');
  assert.equal(await page.isVisible('#story-point'), false);
  await page.click('#play');
  await page.click('#story-next');
  assert.equal(await page.isVisible('#story-point'), false);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown().running === true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a story step’s budget, then the preset’s once the story is closed, each paused at and said', async () => {
  const step = copying.story[4];
  assert.ok(step.budget && step.compare === 'attention');
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?story=5&speed=1000&autoplay=1`);
  await page.waitForSelector('#story-point:not([hidden])', { timeout: 90_000 });
  assert.equal((await shown(page)).step, step.budget.steps);
  assert.match(await page.textContent('#story-point') ?? '', new RegExp(`^Paused at step ${step.budget.steps}, this run’s budget`));
  await page.click('#story-close');
  await page.click('#play');
  const preset = copying.budgets['small-easy'];
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.state().playing === false, null, { timeout: 90_000 });
  assert.equal((await shown(page)).step, preset.steps);
  assert.ok((await page.textContent('#status') ?? '').includes(preset.claim));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a compared run whose settings are refused does not hold the first run back', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?length=1&vocab=2&compare=task&speed=16&autoplay=1`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.shown()?.step >= 100, null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('β at step 0 is painted on the fixed log-odds scale: a narrow band of it, not full-contrast noise', async () => {
  const { context, page, errors } = await freshPage(env.browser, `${env.url}?compare=task`);
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.drawn());
  const legend = await page.textContent('#beta .ap-legend') ?? '';
  assert.match(legend, /−8\.00.*8\.00/, legend);
  const now = /now (-?[\d.]+) to (-?[\d.]+)/.exec(legend.replace(/−/g, '-'));
  assert.ok(now, `the legend gives this frame's range: ${legend}`);
  const beta = /** @type {number[]} */ ((await page.evaluate(() => /** @type {any} */ (window).__ap.maps())).beta);
  assert.ok(Math.abs(Number(now[1]) - Math.min(...beta)) < 0.01 && Math.abs(Number(now[2]) - Math.max(...beta)) < 0.01);
  // The painted cells: their colours span a small part of the colour map (the values span
  // well under 1 of the scale's 16 log-odds), where a rescaled map would span all of it.
  const spread = await page.$eval('#beta canvas.ap-heatmap-cells', (c) => {
    const canvas = /** @type {HTMLCanvasElement} */ (c);
    const d = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')).getImageData(0, 0, canvas.width, canvas.height).data;
    let lo = 765;
    let hi = 0;
    for (let i = 0; i < d.length; i += 4) {
      const v = d[i] + d[i + 1] + d[i + 2];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    return hi - lo;
  });
  assert.ok(Math.max(...beta) - Math.min(...beta) < 1, 'untrained β is nearly flat');
  assert.ok(spread < 120, `β's cells span ${spread} of 765 brightness levels`);
  // Each run's numbers sit with its maps and are its own.
  await page.click('#step-once');
  await page.waitForFunction(() => /** @type {any} */ (window).__ap.runs()[1]?.step === 1 && /** @type {any} */ (window).__ap.drawn());
  for (const [i, suffix] of /** @type {const} */ ([[0, ''], [1, '-b']])) {
    const e = await page.evaluate((k) => /** @type {any} */ (window).__ap.history(k).at(-1), i);
    assert.equal(await page.textContent(`#m-token${suffix}`), `${(100 * e.token_accuracy).toFixed(1)}%`, `run ${i}`);
    assert.equal(await page.textContent(`#m-loss${suffix}`), e.loss.toFixed(3), `run ${i}`);
  }
  assert.ok(await page.$('#maps-b #m-token-b'), 'the compared run’s numbers under its maps');
  assert.deepEqual(errors, []);
  await context.close();
});
