// One paragraph per method: what it gave up, what that cost it here, and what LRA measured.
import { LRA_ROWS } from './lra';
import type { Figure } from './model';
import { fmtInt } from '../shared/format';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function narration(f: Figure, step: number): string {
  const p = f.points[step], dense = f.points[0];
  const { n, input } = f.config;
  const where = input === 'retrieval'
    ? 'each query is a noisy copy of one key, so exact attention looks that key up'
    : 'queries, keys and values are random, so exact attention spreads its weight and its output is close to an average of the values: small, so a method that averages other values is far off in relative terms';
  if (step === 0) {
    return `Exact attention at N = ${n}, d = 64 on the ${input} input (${where}): ${fmtInt(dense.flops)} FLOPs, the cost every method below tries to cut. Step through the methods.`;
  }
  const row = p.method.lra ? LRA_ROWS.find((r) => r.model === p.method.lra) : undefined;
  const lra = row ? ` In LRA's trained models (Tay et al. 2020) it scored ${row.scores[2].toFixed(2)}% on the Retrieval task, against the Transformer's 57.46% (chance is 50%).` : ' It was not in the LRA table.';
  const lookups = input === 'retrieval' ? `, and ${pct(p.top1)} of the queries still retrieve the value exact attention picks` : '';
  return `${p.method.name} (${p.method.params(n)}): ${(p.flops / dense.flops).toFixed(2)}× the FLOPs of exact attention, output off by ${pct(p.relativeError)}${lookups}.${lra}`;
}
