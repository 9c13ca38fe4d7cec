// @ts-check
// What the page says of a run's progress in the story's box and the status line: a story
// step's point, once the runs show it (the run pauses there), and a budget reached. Reads
// the runs' evaluations; changes the store only to pause.

import { byId, setText } from './dom.js';
import { showStatus, clearStatus } from './controls.js';

/** @typedef {import('../state/store.js').Store} Store */
/** @typedef {import('../training/runs.js').Runs} Runs */

/**
 * The story's points and the budget's message for the runs of `store`; hides them when a
 * new run starts or Play is pressed.
 * @param {{ store: Store, runs: () => Runs }} o `runs`: the page's runs (made after this)
 */
export function storyPoints({ store, runs }) {
  const lab = store.lab;
  /** The status line's budget message while it is shown. */
  let budgetSaid = '';
  /** The start of the first run (story step and generation) whose story point was said. */
  let pointSaid = '';
  /** The start whose evaluations the story point was checked on, and the last step checked. */
  let pointChecked = { key: '', step: -1 };
  const box = byId('story-point');

  /** @param {string} text */
  function show(text) {
    setText(box, text);
    box.hidden = false;
  }

  store.subscribe((s, prev) => {
    if (s.story !== prev.story || s.fresh !== prev.fresh || (s.playing && !prev.playing)) {
      box.hidden = true;
      // "Press Play to train past it", once Play is pressed, is said.
      if (budgetSaid && byId('status').textContent === budgetSaid) clearStatus();
      budgetSaid = '';
    }
  });

  return {
    show,
    /** Hides the point (the run was reset). */
    hide() {
      box.hidden = true;
    },
    /** The first run reached its budget, playing: it pauses, and the page says what is true
     * by then. @param {import('../labs/index.js').Budget} budget */
    budget(budget) {
      store.setPlaying(false);
      const said = `Paused at step ${budget.steps}, this run’s budget: ${budget.claim} (${lab.docs}).`;
      if (store.state.story > 0) show(`${said} Press Next to go on, or Play to train past it.`);
      else {
        budgetSaid = `${said} Press Play to train past it.`;
        showStatus(budgetSaid, 'info');
      }
    },
    /** A story step's point, once the runs show it: the run pauses and the story says so,
     * at the first evaluation that shows it (at full speed a frame may train past a short
     * window, so every evaluation since the last check is looked at, each run's at the same
     * step). */
    check() {
      const s = store.state;
      const step = s.story > 0 ? lab.story[s.story - 1] : undefined;
      const all = runs();
      const key = `${s.story} ${all.first.generation}`;
      if (!step?.point || !s.playing || pointSaid === key) return;
      if (pointChecked.key !== key) pointChecked = { key, step: -1 };
      const [first, second] = all.all();
      for (const e of first.evaluations) {
        if (e.step <= pointChecked.step) continue;
        const other = second?.evaluations.find((x) => x.step === e.step);
        // The compared run has not evaluated this step yet: the next snapshot goes on from here.
        if (second && !other) return;
        pointChecked.step = e.step;
        const paired = all.paired.filter((p) => p.step <= e.step).at(-1);
        const said = step.point(other ? [e, other] : [e], paired);
        if (!said) continue;
        pointSaid = key;
        store.setPlaying(false);
        show(`Shown at step ${e.step}: ${said} Press Next to go on, or Play to keep watching.`);
        return;
      }
    },
  };
}
