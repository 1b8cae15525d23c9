// The figure's data: one sentence translated by the trained RNNsearch model (static/models/,
// written by `make train`) in the classic module, with what its alignment model computed at every
// decoder step: the query s_{i-1}, the scores e_ij, the weights alpha_ij and the context c_i.
import type { AttnClassic } from '../../../wasm/load';
import type { TranslateSentenceResult } from '../../../wasm/classic/translation';
import { boundedCache } from '../shared/boundedCache';

export type SentenceChoice = 'canonical' | 'short' | 'own';
export const CHOICES: readonly SentenceChoice[] = ['canonical', 'short', 'own'];

// Bahdanau et al.'s Fig. 3 sentence: the grammar can express it, and the training corpus never
// contains it (translation_corpus.hpp, canonical_pair), so the model translates it unseen.
export const CANONICAL = 'the agreement on the european economic area was signed in august 1992';
// Short, with one adjective-noun inversion and a verb group of a different length.
export const SHORT = 'the european commission signed the treaty';
// What "Your sentence" starts with: a date and a future tense, both reordered or rewritten in French.
export const DEFAULT_OWN = 'the european council will sign the agreement on 12 may 1995';
// The heatmap stays legible (and every step within a frame) up to this many source words; the
// module accepts 100.
export const MAX_FIGURE_WORDS = 20;

export interface Config {
  sentence: SentenceChoice;
  /** The reader's sentence (used when sentence is 'own'). */
  text: string;
}
export const DEFAULT_CONFIG: Config = { sentence: 'canonical', text: DEFAULT_OWN };

export interface Figure extends TranslateSentenceResult {
  config: Config;
  /** Tx and Ty: source tokens (with <eos>) and decoder steps. */
  tx: number;
  ty: number;
  /** The scores' range over the whole sentence, so the bars of every step share one scale. */
  scoreMin: number;
  scoreMax: number;
  /** j* per step: the source position with the largest weight. */
  strongest: number[];
}

export const textOf = (c: Config) => (c.sentence === 'canonical' ? CANONICAL : c.sentence === 'short' ? SHORT : c.text);

// Figures already translated, by configuration: a reader switching back to a sentence gets it
// without running the model again (a sentence the model refuses is not kept, and is refused again).
const built = boundedCache<Figure>(16);

export const buildFigure = (core: AttnClassic, model: Uint8Array, config: Config): Figure =>
  built(JSON.stringify([config.sentence, config.text]), () => translate(core, model, config));

function translate(core: AttnClassic, model: Uint8Array, config: Config): Figure {
  if (!CHOICES.includes(config.sentence)) {
    throw new Error(`sentence must be ${CHOICES.join(', ')}; got '${config.sentence}'`);
  }
  let r: TranslateSentenceResult;
  try {
    r = core.translateSentence({ model, sentence: textOf(config) });
  } catch (e) {
    // The core names its argument ("sentence: ..."); the reader only needs the rest.
    throw new Error((e as Error).message.replace(/^sentence: /, ''));
  }
  const tx = r.source.length, ty = r.target.length;
  if (tx - 1 > MAX_FIGURE_WORDS) {
    throw new Error(`this figure draws sentences of up to ${MAX_FIGURE_WORDS} words (the full stop counts); this one has ${tx - 1}`);
  }
  const strongest = Array.from({ length: ty }, (_, i) => {
    const row = r.alignment.data.subarray(i * tx, (i + 1) * tx);
    return row.indexOf(Math.max(...row));
  });
  let scoreMin = 0, scoreMax = 0;
  for (const e of r.scores.data) { scoreMin = Math.min(scoreMin, e); scoreMax = Math.max(scoreMax, e); }
  return { ...r, config, tx, ty, scoreMin, scoreMax, strongest };
}

/** Row i of a [rows, cols] matrix. */
export const rowOf = (m: { data: Float64Array; shape: [number, number] }, i: number) =>
  m.data.subarray(i * m.shape[1], (i + 1) * m.shape[1]);

/** The source positions of row i, by weight, largest first. */
export function ranked(f: Figure, i: number): number[] {
  const a = rowOf(f.alignment, i);
  return Array.from(a.keys()).sort((x, y) => a[y] - a[x]);
}
