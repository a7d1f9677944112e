// The page: wires the sections to the simulator Worker.
import { SimWorker } from './worker-client.js';

const sim = new SimWorker();
const versionEl = document.getElementById('version');

sim.ready.then(
  ({ version }) => {
    versionEl.textContent = `warpweave ${version}`;
    versionEl.dataset.ready = '1';
  },
  (e) => {
    versionEl.textContent = 'the simulator failed to load';
    showError(e.message);
  },
);

export function showError(message) {
  const el = document.getElementById('error');
  el.textContent = message;
  el.hidden = !message;
}
