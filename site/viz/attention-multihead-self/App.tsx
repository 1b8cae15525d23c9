// Multi-head self-attention over one sentence: four constructed heads, each with one of the patterns
// Clark et al. (2019) found in BERT, drawn as weighted edges between the tokens, then concatenated
// and projected by W_O, with the shapes the core's layer actually has.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { Narration } from '../shared/Narration';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { Arcs } from './Arcs';
import { HEADS, STEP_LABELS, TOKENS } from './model';
import { narration } from './narration';
import { Shapes } from './Shapes';
import { visibleHeads, type FigureState } from './state';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'one relation per head: the previous token, the syntactic head, “it” → “animal”, and everything to [SEP]. Press Play or → to step through the heads; pick a token to isolate its attention.';

export function App({ state }: { state: FigureState }) {
  const { figure, stepper, enabled, selected, error, toggleHead, select } = state;
  const step = stepper.step.value;
  const visible = visibleHeads(step, enabled.value);
  const sel = selected.value;
  return (
    <div class="viz multihead">
      <header class="viz-header">
        <h1>Four heads, four relations</h1>
        <p class="caveat" data-testid="caveat">Illustrative, constructed after Clark et al. 2019 (<cite>What Does BERT Look At?</cite>) — not learned weights.</p>
      </header>
      <div class="controls">
        <div class="head-toggles" role="group" aria-label="Heads shown">
          {HEADS.map((h, i) => (
            <button key={i} type="button" aria-pressed={visible[i]} class={visible[i] ? 'head-toggle on' : 'head-toggle'}
              style={{ '--head': colors.heads[i] }} onClick={() => toggleHead(i)} title={`Head ${i + 1}: ${h.name}`}>
              <span class="head-dot" aria-hidden="true" />
              <span class="head-num">{i + 1}</span> <span class="head-long">{h.name}</span><span class="head-short">{h.short}</span>
            </button>
          ))}
        </div>
        <label class="token-pick">
          <span>From</span>
          <select value={sel === null ? '' : String(sel)} onChange={(e) => select(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}>
            <option value="">every token</option>
            {TOKENS.map((t, i) => <option key={i} value={String(i)}>{t}</option>)}
          </select>
        </label>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />

      <div class="stage">
        <Arcs figure={figure} visible={visible} selected={sel} onSelect={select} />
        <Fold more="Legend and shapes" fewer="Hide legend and shapes" class="side">
          <div class="side-panel">
            <Legend items={[
              ...HEADS.map((h, i) => ({ swatch: colors.heads[i], label: `head ${i + 1}: ${h.name}` })),
              { swatch: colors.textMuted, label: 'edge width and opacity: attention weight (≥ 0.01 drawn)' },
            ]} />
            <Shapes figure={figure} visible={visible} />
          </div>
        </Fold>
      </div>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(figure, step, visible, sel)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={STEP_LABELS} />
      </footer>
    </div>
  );
}
