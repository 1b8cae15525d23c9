// Bahdanau attention, one decoder step at a time, from the trained RNNsearch model: the query
// s_{i-1}, the scores e_ij over the source words, their softmax filling one row of the alignment
// heatmap, and the context c_i as the weighted sum of the annotations, with the equations' live values.
import { EquationCallout } from '../shared/EquationCallout';
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { fmt } from '../shared/format';
import { colors } from '../shared/theme';
import { Alignment } from './Alignment';
import contextEq from './context.tex?formula';
import { MAX_FIGURE_WORDS, ranked, rowOf, type SentenceChoice } from './model';
import { narration } from './narration';
import scoreEq from './score.tex?formula';
import softmaxEq from './softmax.tex?formula';
import type { FigureState } from './state';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'each French word’s row of weights: mostly one English word, stepping left to right, except where French reorders (zone économique européenne). Press Play or step with →.';

const CHOICE_TEXT: { value: SentenceChoice; text: string; title: string }[] = [
  { value: 'canonical', text: 'Fig. 3 sentence', title: 'Bahdanau et al.’s Fig. 3 sentence; held out of training' },
  { value: 'short', text: 'Short', title: 'A short sentence with one inversion' },
  { value: 'own', text: 'Your sentence', title: 'Type an English sentence from the model’s vocabulary' },
];

// Completions for the word being typed: the words of the vocabulary that start with it, appended to
// what is already there (a datalist matches the whole field, so each option is the whole sentence).
function completions(draft: string, words: string[]): string[] {
  const cut = draft.lastIndexOf(' ') + 1;
  const head = draft.slice(0, cut), partial = draft.slice(cut).toLowerCase();
  if (!partial) return [];
  return words.filter((w) => w.startsWith(partial) && w !== partial).slice(0, 12).map((w) => head + w);
}

function OwnSentence({ state }: { state: FigureState }) {
  const { draft, configure, vocabulary } = state;
  const submit = (e: Event) => {
    e.preventDefault();
    configure({ sentence: 'own', text: draft.value });
  };
  return (
    <form class="own-sentence" onSubmit={submit}>
      <label for="own-text" class="visually-hidden">Your English sentence</label>
      <input id="own-text" type="text" list="own-words" value={draft.value} maxLength={400} autocomplete="off" spellcheck={false}
        onInput={(e) => (draft.value = e.currentTarget.value)} onKeyDown={(e) => e.stopPropagation()} />
      <datalist id="own-words">
        {completions(draft.value, vocabulary.source).map((s) => <option key={s} value={s} />)}
      </datalist>
      <button type="submit">Translate</button>
    </form>
  );
}

function Equations({ state }: { state: FigureState }) {
  const f = state.figure.value, i = state.stepper.step.value;
  const e = rowOf(f.scores, i), a = rowOf(f.alignment, i);
  const [j1, j2] = ranked(f, i);
  const den = e.reduce((s, v) => s + Math.exp(v), 0);
  const sig = (x: number) => (x >= 1e4 || (x > 0 && x < 1e-3) ? x.toExponential(2).replace('e+', 'e') : x.toPrecision(3));
  return (
    <div class="equations" data-testid="equations">
      <p class="equation-note">Step {i + 1}, j* = {j1 + 1} (‘{f.source[j1]}’), the word with the largest weight:</p>
      <EquationCallout formula={scoreEq} values={{ e: fmt(e[j1], 2) }} />
      <EquationCallout formula={softmaxEq} values={{ num: sig(Math.exp(e[j1])), den: sig(den), alpha: fmt(a[j1], 3) }} />
      <EquationCallout formula={contextEq} values={{ a1: fmt(a[j1], 2), j1: String(j1 + 1), a2: fmt(a[j2] ?? 0, 2), j2: String((j2 ?? 0) + 1) }} />
    </div>
  );
}

// The drawing at the current step, in a component of its own: a step re-renders the drawing, the
// equations and the narration, not the controls, the legend and the vocabulary around them.
function Drawing({ state }: { state: FigureState }) {
  return <Alignment figure={state.figure.value} step={state.stepper.step.value} />;
}

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, vocabulary } = state;
  const f = figure.value;
  const choice = state.choice.value;
  return (
    <div class="viz bahdanau-alignment">
      <header class="viz-header">
        <h1>Bahdanau attention, step by step, from a trained model</h1>
      </header>
      <div class="controls">
        <Segmented label="Sentence" value={choice} choices={CHOICE_TEXT} onChange={state.choose} />
        {choice === 'own' && <OwnSentence state={state} />}
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <p class={f.config.sentence === 'canonical' ? 'pair' : 'pair plain'} data-testid="pair">
        <span class="en">{f.source.slice(0, -1).join(' ')}</span>
        <span class="arrow" aria-hidden="true"> → </span>
        <span class="fr" data-testid="translation">{f.target.filter((w) => w !== '<eos>').join(' ')}</span>
        {f.config.sentence === 'canonical' && <span class="note"> (never seen in training)</span>}
      </p>

      <div class="stage">
        <Drawing state={state} />
        <div class="side">
          <Fold more="Equations" fewer="Hide equations" class="panel-fold">
            <Equations state={state} />
          </Fold>
        </div>
      </div>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, stepper.step.value)} />

      <div class="fold-row">
        <Fold more="Legend" fewer="Hide legend">
          <Legend items={[
            { swatch: colors.active, label: 'weight α: darker = more (rows sum to 1)' },
            { swatch: colors.text, label: 'current decoder step', outline: true },
            { swatch: colors.sram, label: 'score e of the strongest word' },
            { swatch: colors.active, label: 'vector entry > 0' },
            { swatch: colors.hbm, label: 'vector entry < 0' },
          ]} />
        </Fold>
        <Fold more={`Words it knows (${vocabulary.source.length})`} fewer="Hide words" always>
          <p class="vocabulary" data-testid="vocabulary">
            The model reads only the {vocabulary.source.length} English words of the grammar it was trained on, lower case, up
            to {MAX_FIGURE_WORDS} words here: {vocabulary.source.join(' · ')}
          </p>
        </Fold>
      </div>

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={f.target} stops={false} />
      </footer>
    </div>
  );
}
