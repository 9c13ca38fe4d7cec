// @ts-check
// The experiment panel: the lab's experiment (Experiments, experiments.js) while it is
// open: its title and what it measures, where it is in a line, its time, the lab's view
// of it, a CSV of every run so far, and a button that closes it. It draws at most every
// DRAW_MS while the experiment trains, and changes nothing but through the store.

import { byId, setText } from '../ui/dom.js';
import { redrawLoop } from '../ui/redraw.js';
import { download } from '../files/formats.js';

/** @typedef {import('./experiments.js').Experiments} Experiments */
/** @typedef {import('../state/store.js').Store} Store */

/** The shortest time between two drawings while the experiment trains (ms). */
const DRAW_MS = 250;

export class ExperimentPanel {
  /** @param {{ store: Store, experiments: Experiments }} o */
  constructor({ store, experiments }) {
    /** @private */ this.experiments = experiments;
    /** @private */ this.box = byId('experiment');
    const spec = store.lab.experiment;
    /** @private */ this.view = null;
    /** Whether what is shown changed since it was drawn. */
    this.dirty = true;
    const button = byId('experiment-button');
    if (!spec) {
      button.hidden = true;
      return;
    }
    setText(button, spec.button);
    setText(byId('experiment-title'), spec.title);
    setText(byId('experiment-help'), spec.help);
    this.view = spec.createView(byId('experiment-view'));
    button.addEventListener('click', () => store.setView({ experiment: !store.state.experiment }));
    byId('experiment-close').addEventListener('click', () => store.setView({ experiment: false }));
    byId('experiment-csv').addEventListener('click', () => {
      const plan = experiments.plan;
      if (plan) download(`attention-playground-${store.lab.name}-experiment.csv`, new Blob([plan.csv()], { type: 'text/csv' }));
    });
    store.subscribe((s) => {
      button.setAttribute('aria-pressed', String(s.experiment));
      this.dirty = true;
    });
    redrawLoop({
      dirty: () => this.dirty,
      minMs: () => (!experiments.plan || experiments.finished() ? 0 : DRAW_MS),
      draw: () => this.draw(),
    });
  }

  /** @private */
  draw() {
    this.dirty = false;
    const plan = this.experiments.plan;
    this.box.hidden = !plan;
    if (!plan || !this.view) return;
    this.view.update(plan);
    const ended = this.experiments.finished();
    const time = `${this.experiments.seconds().toFixed(1)} s`;
    setText(byId('experiment-status'), `${plan.summary()} ${ended ? `Finished in ${time}.` : `${time} so far.`}`);
    this.box.dataset.finished = String(ended);
  }
}
