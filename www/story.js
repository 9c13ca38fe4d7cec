// @ts-check
// The classroom story: short steps, each setting up a run (a preset, a contrast to compare
// with, a speed) and saying in plain words what to watch. main.js shows them and applies
// them through the page's own controls.

/**
 * @typedef {{ title: string, text: string, preset: string, compare?: string, speed?: number,
 *   play: boolean, keep?: boolean }} StoryStep
 * `keep`: go on with the run already on screen instead of starting the step's afresh.
 */

/** @type {StoryStep[]} */
export const STORY = [
  {
    title: 'Attention starts out flat',
    text: 'Before any training, look at the attention map α: every row is nearly even, so at each output step '
      + 'the model looks at all source positions alike. The KTIW map β is noise too. Press Next to start training.',
    preset: 'small-easy',
    play: false,
  },
  {
    title: 'KTIW is learned first',
    text: 'Watch the Accuracy chart. KTIW accuracy (dotted) climbs within the first few dozen steps while '
      + 'attention accuracy (dashed) stays low: the model learns which source word gives which output word '
      + 'before it learns where to look. The β map grows its bright diagonal first.',
    preset: 'small-easy',
    speed: 1,
    play: true,
  },
  {
    title: 'Attention locks onto the diagonal',
    text: 'Now attention follows KTIW: over the next hundred steps or so the α map forms a bright diagonal and '
      + 'attention accuracy rises. Each output step looks at the source position it copies, because that is '
      + 'where the model already knows the answer.',
    preset: 'small-easy',
    speed: 4,
    play: true,
    keep: true,
  },
  {
    title: 'The hard task stalls',
    text: 'Two runs side by side, same seed. In the second (dashed lines, lower maps) every source is a '
      + 'permutation of the same 20 words, so seeing a word in the source says nothing about which output '
      + 'comes next. KTIW stays low, and attention, with nothing to follow, often never finds the diagonal.',
    preset: 'small-easy',
    compare: 'task',
    speed: 16,
    play: true,
  },
  {
    title: 'Uniform attention still learns KTIW',
    text: 'The second run has its attention forced to be even (it sees the average of the source). Its KTIW '
      + 'accuracy still rises: knowing which word translates to which does not need attention, and it is '
      + 'what attention later learns to follow.',
    preset: 'small-easy',
    compare: 'attention',
    speed: 16,
    play: true,
  },
  {
    title: 'Several heads rescue the hard task',
    text: 'Back to the hard task: one attention head (solid) against eight (dashed). With several heads fewer '
      + 'runs stay stuck: a head that happens to start out favouring the diagonal can lead the others. Not '
      + 'every seed is rescued, and each run learns more slowly; try New seed to see another pair.',
    preset: 'small-hard',
    compare: 'heads',
    speed: 16,
    play: true,
  },
];
