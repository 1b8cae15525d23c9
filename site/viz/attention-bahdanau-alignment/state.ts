// The figure's state: the sentence (one of the two pairs or the reader's own) and the decoder step
// shown, restored from and written to the URL hash. A sentence the model cannot translate (a word
// it does not know, a sentence too long to draw) or a hash outside the choices keeps the last good
// figure on screen and sets `error`, which the page displays.
import { signal } from '@preact/signals';
import type { AttnClassic } from '../../../wasm/load';
import { createConfigured } from '../shared/configured';
import { readHash, syncHash } from '../shared/hashState';
import { createStepper } from '../shared/stepper';
import { buildFigure, DEFAULT_CONFIG, type Config, type Figure, type SentenceChoice } from './model';

export function createFigureState(core: AttnClassic, model: Uint8Array) {
  const hash = readHash();
  // A new sentence opens at its first decoder step, so Play shows the alignment filling in.
  const { figure, error, configure } = createConfigured<Config, Figure>((c) => buildFigure(core, model, c), DEFAULT_CONFIG,
    () => 'Not translated', (next, _, atStep) => {
      stepper.playing.value = false;
      stepper.count.value = next.ty;
      stepper.seek(atStep ?? 0);
    });
  const stepper = createStepper(figure.value.ty, 0);
  if (hash.sentence !== undefined || hash.step !== undefined) {
    const sentence = (hash.sentence ?? DEFAULT_CONFIG.sentence) as SentenceChoice;
    const step = hash.step === undefined ? undefined : Number(hash.step);
    if (step !== undefined && !(Number.isInteger(step) && step >= 0)) {
      error.value = `Not shown: step must be a whole number from 0, got ${hash.step}`;
    } else {
      configure({ sentence, text: hash.text ?? DEFAULT_CONFIG.text }, step);
    }
  }
  // The text box's content: what the reader typed, kept when the model refuses it.
  const draft = signal(hash.sentence === 'own' && hash.text !== undefined ? hash.text : figure.value.config.text);
  // The choice the reader made: "Your sentence" stays open (with the text box) when the model
  // refuses what they typed, so that they can correct it; the figure meanwhile shows the last good one.
  const choice = signal<SentenceChoice>(hash.sentence === 'own' ? 'own' : figure.value.config.sentence);
  const choose = (value: SentenceChoice) => {
    choice.value = value;
    configure(value === 'own' ? { sentence: value, text: draft.value } : { sentence: value });
  };
  syncHash(() => {
    const c = figure.value.config;
    const values: Record<string, string | number> = { sentence: c.sentence, step: stepper.step.value };
    if (c.sentence === 'own') values.text = c.text;
    return values;
  });
  return { figure, error, stepper, configure, draft, choice, choose, vocabulary: core.translationVocabulary() };
}

export type FigureState = ReturnType<typeof createFigureState>;
