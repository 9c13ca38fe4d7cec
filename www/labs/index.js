// @ts-check
// The labs the page knows, and what a lab is to the shell: a model (in the wasm facade, by
// the lab's name) with its settings, presets' names, contrasts, story, metrics, charts and
// views. A new lab is a folder beside copying/ and one line in LABS; the shell knows no
// lab by name.

import { copying } from './copying/lab.js';
import { sparse } from './sparse/lab.js';

/**
 * A field of a lab's settings, as the trainer defines it (the facade's `settings(lab)`,
 * written once in the lab's Rust): its key, the words a person knows it by, its range
 * (`kind` with `min` and `max` for a number, `choices` for a choice), and whether it applies
 * to the running model (`live`) rather than starting a new run.
 * @typedef {{ key: string, words: string, live: boolean, kind: 'whole' | 'positive' | 'nonnegative' | 'choice' | 'switch',
 *   min?: number, max?: number, choices?: { name: string, words: string }[] }} Field
 */

/**
 * A second run that differs from the first in one respect, same seed.
 * @typedef {{ label: string, apply(c: Record<string, any>): Record<string, any>,
 *   names(c: Record<string, any>): [string, string],
 *   paired?: { measure(wasm: any, first: import('../training/protocol.js').Snapshot, second: import('../training/protocol.js').Snapshot, step: number): Record<string, number> } }} Contrast
 * `paired`: a measurement of the two runs together at each evaluation both made (at
 * `step`), from snapshots that carry their whole evaluation batch's maps (`wasm`: the
 * page's instance of the trainer's module); its values join the charts' points under
 * their keys.
 */

/**
 * The steps a run trains for, playing, before it pauses, and what is true of the preset's
 * runs by then (from `reproduce`'s results: docs/reproducing.md).
 * @typedef {{ steps: number, claim: string }} Budget
 */

/**
 * A step of the classroom story: the run it sets up and what to watch.
 * @typedef {{ title: string, text: string, preset: string, compare?: string, seeds?: string, speed?: number,
 *   play: boolean, keep?: boolean, budget?: Budget,
 *   point?: (latest: (Record<string, number> | undefined)[], paired: Record<string, number> | undefined) => string | null }} StoryStep
 * `seeds`: a sweep of the step's run over these seeds beside it (sweeps/seeds.js's seed range).
 * `keep`: go on with the run already on screen instead of starting the step's afresh.
 * `budget`: the step's own, instead of its preset's.
 * `point`: given each run's latest evaluation (and the pair's latest measurement, compared
 * by a contrast that measures the pair), what shows the step's point once it does
 * (the run then pauses and the story says so), else null.
 */

/**
 * What a sweep (several seeds of one setting: sweeps/seeds.js) reads of each seed's evaluations:
 * the metric and threshold that count as learning the task, the metric below whose mark a
 * seed counts as stalled once half its steps are trained, the metrics whose curves it
 * draws, two metrics whose order of passing a mark it counts, the columns of its CSV (as
 * the native `reproduce` writes them: a metric's key, the column's name, decimals) and the
 * steps a seed trains when the preset has no budget.
 * @typedef {{ success: { key: string, at: number, words: string },
 *   stall: { key: string, below: number, words: string },
 *   curves: { key: string, label: string }[],
 *   order?: { first: string, then: string, at: number, words: string, names: [string, string] },
 *   columns: { key: string, name: string, digits: number }[], steps: number }} SweepSpec
 */

/**
 * A lab's experiment: a search over settings whose next runs depend on how the last ones
 * ended (the sparse lab's search for the samples a length needs). `plan` makes its state
 * from the run's settings; the page trains the jobs it asks for (pool.js), tells it how
 * each ended, and draws it with the view `createView` makes. `keys`: the settings its plan
 * sets itself (a change of the run's own does not start it again).
 * @typedef {{ title: string, button: string, help: string, keys: string[],
 *   plan(config: Record<string, unknown>, wasm: any): ExperimentPlan,
 *   createView(box: HTMLElement): { update(plan: ExperimentPlan): void, destroy(): void } }} ExperimentSpec
 */

/**
 * An experiment's state. `next` gives the jobs it wants trained now (none while it waits
 * for some to end); `record` takes a job's end: its last evaluation and snapshot, or
 * undefined and null if it failed; `done` says whether it is over; `summary` says where it
 * is in a line; `csv` is every job's outcome so far.
 * @typedef {{ next(): import('../training/pool.js').Job[],
 *   record(job: import('../training/pool.js').Job, last: Record<string, number> | undefined, snapshot: import('../training/protocol.js').Snapshot | null): void,
 *   done(): boolean, summary(): string, csv(): string }} ExperimentPlan
 */

/**
 * An evaluation metric (a column of the run's history); `column`: its name in the history
 * CSV where that is not its key (the CSV's own columns are `step` and `train_loss`, the
 * training loss of each update); `range`: the values a run file's evaluations may give it
 * (besides null, a NaN).
 * @typedef {{ key: string, label: string, format(x: number): string, column?: string, range?: [number, number] }} Metric
 */

/**
 * A chart of the history (www/views/chart.js draws it); `file` names its exported picture.
 * @typedef {{ id: string, label: string, file: string, title: string,
 *   series: import('../views/chart.js').ChartSeries[], yRange: readonly [number, number] | 'auto' }} ChartSpec
 */

/**
 * What the lab's views draw in a frame: the shown run (and the compared one) with its
 * latest evaluation and its name in compare mode.
 * @typedef {{ runs: { snapshot: import('../training/protocol.js').Snapshot, evaluation: Record<string, number> | undefined, name: string }[] }} LabFrame
 */

/**
 * @typedef {object} LabViews
 * @property {(frame: LabFrame) => void} update
 * @property {(name: string) => void} setColormap
 * @property {(show: boolean) => void} setShowMarks shows or hides its maps' marks (Lab.marks)
 * @property {() => void} invalidate the page's colours changed
 * @property {(id: string) => HTMLCanvasElement | null} figure a picture of one of `Lab.figures`
 * @property {() => void} destroy
 */

/**
 * @typedef {object} Lab
 * @property {string} name its name in links and in the wasm facade
 * @property {string} title
 * @property {string} menuName its name in the page's menu of labs
 * @property {string} tagline
 * @property {string} docs the page of docs/ where its budgets' and story's figures are measured
 * @property {Record<string, string>} help what each setting does, by key (its field, words and
 *   range are the trainer's: `Field`)
 * @property {Record<string, string>} presetLabels the words the page shows for the facade's presets
 * @property {Record<string, string>} presetAliases friendlier names a link may use
 * @property {string} defaultPreset
 * @property {Record<string, Budget>} budgets by preset (a preset without one trains on)
 * @property {Record<string, Contrast>} contrasts
 * @property {SweepSpec} sweep
 * @property {ExperimentSpec} [experiment] its experiment, if it has one
 * @property {StoryStep[]} story
 * @property {{ steps: number, why: string }} gentle the gentle start (speed 0): its slow steps,
 *   and what the default run does in them (words after “to step N, ”)
 * @property {Metric[]} metrics the history's columns, in the exports' order
 * @property {(names: [string, string] | null, compare: string, config: Record<string, unknown> | null) => ChartSpec[]} charts
 *   of one run (of settings `config`, null before its first snapshot), or of two compared by
 *   contrast `compare`
 * @property {(e: Record<string, number>) => string} caption the metrics of an exported picture's caption
 * @property {(config: Record<string, unknown>) => { sequences: number, heads: number }} limits
 *   what a run of these settings lets the page select
 * @property {(config: Record<string, unknown>, cores: number) => { most: number, auto: number }} workers
 *   how many workers may share each step of a run of these settings (`most`: a batch splits
 *   into no more parts than it has sequences), and how many do by default on `cores` cores
 * @property {{ suits: (config: Record<string, unknown>) => boolean, rule: string }} [gpu] for a
 *   lab whose runs can train on the GPU (the facade's `gpuTrainer`): whether `backend=auto`
 *   trains a run of these settings there (enough work per step to repay the GPU's cost per
 *   dispatch), and that rule in words (“settings below RULE train on the CPU”)
 * @property {string[]} parts its views' and charts' parts that `hide=` can name
 * @property {Record<string, string>} [partAliases] older names of parts (the shell's or its
 *   own) that `hide=` still takes
 * @property {string[]} embedParts those embed mode shows
 * @property {{ id: string, label: string }[]} figures its pictures the Export menu offers
 * @property {string} marks the words of the switch that shows or hides its views' marks
 * @property {Record<string, 'f32' | 'u32' | 'f32[]'>} arrays the typed arrays of its
 *   snapshots (a run file keeps them): Float32Array, Uint32Array, or a list of Float32Arrays
 * @property {(s: import('../training/protocol.js').Snapshot) => string | null} checkSnapshot why a
 *   snapshot read from a file cannot be shown, or null
 * @property {string[]} explainer what the page shows, a paragraph each (ui/dom.js's `prose`:
 *   `**strong**` and `*em*` marks); its figures quoted from the figures file
 * @property {(box: HTMLElement, o: { colormap: string, showMarks: boolean }) => LabViews} createViews
 */

/** @type {Record<string, Lab>} */
export const LABS = { copying, sparse };

export const DEFAULT_LAB = 'copying';

/** The lab of a run or weights file that names none: version 1 files came before there
 * were two labs. */
export const UNNAMED_FILE_LAB = 'copying';

/** The words the page shows for a preset of `lab` (its name where it has none).
 * @param {Lab} lab @param {string} name */
export function presetLabel(lab, name) {
  return Object.hasOwn(lab.presetLabels, name) ? lab.presetLabels[name] : name;
}

/**
 * The run story step `k` (0-based) shows: the preset, contrast and sweep of the nearest step
 * at or before it that starts a run (a `keep` step goes on with its predecessor's), and its
 * own speed. A link to a step (`story=N`) opens this run.
 * @param {Lab} lab @param {number} k @returns {{ preset: string, compare: string, seeds: string, speed: number | undefined }}
 */
export function storySetup(lab, k) {
  let start = k;
  while (start > 0 && lab.story[start].keep) start--;
  const from = lab.story[start];
  return { preset: from.preset, compare: from.compare ?? '', seeds: from.seeds ?? '', speed: lab.story[k].speed };
}

/** The budget of a run of `preset` compared by `compare` ('' for none), shown at story
 * step `story` (0: no story): the step's own where the run is the step's, else the
 * preset's, if any.
 * @param {Lab} lab @param {string} preset @param {string} compare @param {number} story @returns {Budget | null} */
export function budgetOf(lab, preset, compare, story) {
  const step = story > 0 ? lab.story[story - 1] : undefined;
  if (step?.budget) {
    const setup = storySetup(lab, story - 1);
    if (setup.preset === preset && setup.compare === compare) return step.budget;
  }
  return Object.hasOwn(lab.budgets, preset) ? lab.budgets[preset] : null;
}
