// @ts-check
// What the page does with what a run says (training/runs.js's events): a snapshot redraws
// the figures, a divergence, a panic or a refusal is said in the status line (the first run
// pauses), where the run trains is shown beside the step count.

import { byId, setText } from './dom.js';
import { showStatus, clearStatus, showPanic } from './controls.js';

/** Shows where the run on screen trains. @param {string} backend @param {string} detail */
export function showBackend(backend, detail) {
  const el = byId('backend');
  setText(el, backend === 'gpu' ? 'GPU' : 'CPU');
  el.title = detail;
}

/**
 * The handler of the runs' events.
 * @param {{ store: import('../state/store.js').Store, runs: () => import('../training/runs.js').Runs,
 *   redraw: () => void, points: ReturnType<typeof import('./story-point.js').storyPoints> }} o
 * `runs`: the page's runs (made after this); `redraw`: the figures changed.
 * @returns {import('../training/runs.js').RunsEvents}
 */
export function runEvents({ store, runs, redraw, points }) {
  return (which, _run, msg) => {
    const second = which === 'second' ? `The compared run (${runs().names()?.[1] ?? ''}): ` : '';
    switch (msg.type) {
      case 'snapshot':
        redraw();
        if (which === 'first') setText(byId('workers-count'), String(msg.workers));
        if (msg.history) points.check();
        break;
      case 'diverged':
        if (second) showStatus(`${second}${msg.message}`, 'warn');
        else {
          store.setPlaying(false);
          showStatus(`Paused: ${msg.message}`, 'warn');
        }
        break;
      case 'panic':
        if (second) showStatus(`${second}${msg.message}`, 'error');
        else {
          store.setPlaying(false);
          showPanic(msg.message);
        }
        break;
      case 'error': {
        // A refusal (a setting, weights) names what was refused; anything else is the
        // trainer's own failure, said as such. A step that failed stopped the run; a trainer
        // that could not start trains nothing.
        const refused = msg.kind === 'setting' || msg.kind === 'weights';
        const said = msg.where === 'load' ? '' : refused ? 'Refused: ' : 'The trainer failed: ';
        if ((msg.where === 'step' || msg.where === 'load') && !second) store.setPlaying(false);
        showStatus(`${second}${said}${msg.message}${msg.where === 'step' && !second ? ' (paused)' : ''}`, 'error');
        break;
      }
      case 'reset':
        if (!second) {
          clearStatus();
          points.hide();
        }
        break;
      case 'backend':
        if (second) break;
        showBackend(msg.backend, msg.backend === 'gpu' ? msg.device : msg.reason);
        // A run the page asked the GPU for that trains on the CPU says why (under auto, a
        // choice of the page's is only the stat's tooltip).
        if (msg.refused) showStatus(msg.lost ? `${msg.reason}.` : `Training on the CPU: the GPU cannot train this run (${msg.reason}).`, 'info');
        break;
      case 'loaded':
        showStatus(`Loaded the saved weights (trained for ${msg.step} steps): the maps and metrics are theirs. Training from here starts the optimiser afresh.`, 'info');
        break;
    }
  };
}
