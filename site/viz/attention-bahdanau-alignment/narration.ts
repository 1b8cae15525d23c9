// One sentence per decoder step, from the step's own numbers: which source words the emitted word
// looked at and with what weight, whether the model looked back (a reordering), and how sure the
// word was.
import { fmt } from '../shared/format';
import { ranked, rowOf, type Figure } from './model';

const q = (w: string) => `‘${w}’`;

export function narration(f: Figure, i: number): string {
  const a = rowOf(f.alignment, i);
  const [first, second] = ranked(f, i);
  const word = f.target[i];
  const emitted = word === '<eos>' ? 'The end-of-sentence token <eos>' : `${q(word)}`;
  const runnerUp = second !== undefined && a[second] >= 0.005
    ? ` and ${q(f.source[second])} (${fmt(a[second], 2)})`
    : ', almost nothing else';
  let text = `Step ${i + 1} of ${f.ty}: ${emitted} looks mostly at ${q(f.source[first])} (${fmt(a[first], 2)})${runnerUp}.`;
  if (i > 0 && f.strongest[i] < f.strongest[i - 1]) {
    text += ` It looks back, left of ${q(f.source[f.strongest[i - 1]])}: French puts these words in another order.`;
  } else if (i > 0 && f.strongest[i] === f.strongest[i - 1] && word !== '<eos>') {
    text += ` The same source word again: one English word, two French ones.`;
  }
  const e = rowOf(f.scores, i);
  text += ` Scores run from ${fmt(Math.min(...e), 1)} to ${fmt(Math.max(...e), 1)}; p(${word}) = ${fmt(f.probabilities[i], 3)}.`;
  return text;
}
