// @ts-check
// An npm user's script: trains 30 steps with the installed package and prints what it saw.
// @ts-ignore -- installed by the test, not by this repository
import { load } from 'attention-playground';

const ap = await load();
const t = new ap.Trainer('copying', ap.presets('copying')['small-easy']);
const losses = [];
for (let i = 0; i < 30; i++) losses.push(t.steps(1));
console.log(JSON.stringify({ variant: ap.kernelVariant(), step: t.step, losses }));
