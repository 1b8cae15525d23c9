// make soak: the long hostile-input soak of every WebAssembly module (tests/wasm/soak.mjs),
// CALLS calls per module and seed (default 10000) on SEEDS (default 1,2,3). Prints each run's
// figures and every failure; exits 1 on any failure.
import { MODULES } from '../tests/wasm/load.mjs';
import { soak, summary } from '../tests/wasm/soak.mjs';

const calls = Number(process.env.CALLS ?? 10000);
const seeds = (process.env.SEEDS ?? '1,2,3').split(',').map(Number);
let failed = false;
for (const seed of seeds) {
  for (const name of MODULES) {
    const r = await soak(name, { seed, calls });
    console.log(summary(r));
    for (const f of r.failures) console.log(`  FAIL ${f}`);
    failed ||= r.failures.length > 0;
  }
}
process.exit(failed ? 1 : 0);
