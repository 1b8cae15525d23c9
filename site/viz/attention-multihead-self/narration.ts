// One paragraph per step, with the weights the layer computed: what each head's pattern is, with
// examples read off its rows, or, for a selected token, where each shown head sends its attention.
import { fmt } from '../shared/format';
import { ANIMAL, HEADS, IT, N, SEP, TOKENS, type Figure } from './model';

const q = (i: number) => `“${TOKENS[i]}”`;
const w = (f: Figure, h: number, i: number, j: number) => f.weights[h][i * N + j];

/** The largest weight of row i of head h and its key. */
export function topKey(f: Figure, h: number, i: number): { key: number; weight: number } {
  let key = 0;
  for (let j = 1; j < N; j++) if (w(f, h, i, j) > w(f, h, i, key)) key = j;
  return { key, weight: w(f, h, i, key) };
}

/** The smallest weight any row of head h puts on its own target. */
const minOnTarget = (f: Figure, h: number) =>
  Math.min(...Array.from({ length: N }, (_, i) => w(f, h, i, f.targets[h][i])));

/** "→ “key” (0.93)": where row i of head h puts most of its weight. */
const target = (f: Figure, h: number, i: number) => {
  const { key, weight } = topKey(f, h, i);
  return `→ ${q(key)} (${fmt(weight, 2)})`;
};
const arrow = (f: Figure, h: number, i: number) => `${q(i)} ${target(f, h, i)}`;

export function narration(f: Figure, step: number, visible: boolean[], selected: number | null): string {
  if (selected !== null) {
    const shown = HEADS.map((_, h) => h).filter((h) => visible[h]);
    if (shown.length === 0) return `No head is switched on: switch one on to see where ${q(selected)} attends.`;
    return `From ${q(selected)}: ` + shown.map((h) => `head ${h + 1} (${HEADS[h].name}) ${target(f, h, selected)}`).join('; ')
      + `. Each head reads a different relation off the same token, which is why a layer has several.`;
  }
  const s = f.shapes;
  switch (step) {
    case 0:
      return `Head 1, previous token: each token puts at least ${fmt(minOnTarget(f, 0), 2)} of its attention on the one before it, e.g. ${arrow(f, 0, 11)} and ${arrow(f, 0, IT)}; [CLS] has nothing before it and attends to itself. Clark et al. found such heads in BERT's early layers.`;
    case 1:
      return `Head 2, syntactic head: each word attends to its head in a dependency parse, e.g. ${arrow(f, 1, 1)}, ${arrow(f, 1, ANIMAL)} and ${arrow(f, 1, IT)}. Clark et al. found BERT heads that follow particular relations, such as determiners to their nouns, far above chance.`;
    case 2:
      return `Head 3, coreference: ${arrow(f, 2, IT)}: the pronoun attends to the noun it stands for. Tokens with nothing to resolve park their weight on [SEP] (at least ${fmt(Math.min(...Array.from({ length: N }, (_, i) => (i === IT ? 1 : w(f, 2, i, SEP)))), 2)}).`;
    case 3:
      return `Head 4, broadcast: every token sends at least ${fmt(minOnTarget(f, 3), 2)} of its attention to [SEP]. Clark et al. suggest it is a no-op: attending to [SEP] is how a head does nothing when its pattern does not apply.`;
    default: {
      const on = visible.filter(Boolean).length;
      return `All heads together (${on} of ${HEADS.length} shown): each head's output is [${s.seq} × ${s.valueDim}]; concatenated they form [${s.seq} × ${s.concat}], and W_O [${s.concat} × ${s.dModel}] projects that back to the model width, an output of [${s.seq} × ${s.dModel}]. Select a token to compare where the heads send it.`;
    }
  }
}
