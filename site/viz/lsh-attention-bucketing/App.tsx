// Reformer's LSH attention on 2-D vectors: raw queries, the random rotation, buckets as sectors,
// the pairs scored, and the mask with its error against dense attention -- all from the core.
import { ErrorBanner } from '../shared/ErrorBanner';
import { useMemo } from 'preact/hooks';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { MoreControls } from '../shared/MoreControls';
import { Narration } from '../shared/Narration';
import { NumberSelect } from '../shared/NumberSelect';
import { PlayControls } from '../shared/PlayControls';
import { Segmented } from '../shared/Segmented';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { Mask } from './Mask';
import { bucketColor, BUCKETS, CHUNKS, ROUNDS, SEEDS, STEP, STEP_LABELS } from './model';
import { narration } from './narration';
import { Scatter } from './Scatter';
import type { FigureState } from './state';
import { fmtInt } from '../shared/format';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'which tokens end up connected: only those the hash puts in the same sector. Press Play or step with →.';
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const choices = (values: readonly number[]) => values.map((v) => ({ value: String(v), text: String(v) }));
const BUCKET_CHOICES = choices(BUCKETS), ROUND_CHOICES = choices(ROUNDS);

export function App({ state }: { state: FigureState }) {
  const { figure, error, stepper, configure } = state;
  const f = figure.value;
  const step = stepper.step.value;
  const c = f.config;
  const [ref, width] = useWidth<HTMLDivElement>();
  const gap = 12;
  const size = Math.max(120, Math.min(380, Math.floor((width - gap) / 2)));
  // A step re-renders the plane and the mask only when what they show changes (neither changes
  // after the connections step): Preact skips a component element it is handed again.
  const stage = Math.min(step, STEP.connections);
  const scatter = useMemo(() => <Scatter figure={f} step={stage} size={size} />, [f, stage, size]);
  const mask = useMemo(() => <Mask figure={f} step={stage} size={size} />, [f, stage, size]);
  return (
    <div class="viz flow lsh-bucketing">
      <header class="viz-header">
        <h1>LSH attention: hashing tokens into buckets</h1>
      </header>
      <div class="controls">
        <span class="field">buckets <Segmented label="Buckets" value={String(c.buckets)} choices={BUCKET_CHOICES}
          onChange={(v) => configure({ buckets: Number(v) })} /></span>
        <span class="field">rounds <Segmented label="Hash rounds" value={String(c.rounds)} choices={ROUND_CHOICES}
          onChange={(v) => configure({ rounds: Number(v) })} /></span>
        <MoreControls>
          <label class="field">chunk <NumberSelect value={c.chunk} label="Chunk length" choices={CHUNKS} onChange={(chunk) => configure({ chunk })} /></label>
          <label class="field">seed <NumberSelect value={c.seed} label="Seed" choices={SEEDS} onChange={(seed) => configure({ seed })} /></label>
        </MoreControls>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          ...Array.from({ length: Math.min(c.buckets, 4) }, (_, b) => ({ swatch: bucketColor(b, c.buckets), label: `bucket ${b}` })),
          ...(c.buckets > 4 ? [{ swatch: bucketColor(c.buckets - 1, c.buckets), label: `… bucket ${c.buckets - 1}` }] : []),
          { swatch: colors.text, label: 'pair scored (darker: more rounds)' },
          { swatch: colors.muted, label: 'self (penalised)' },
        ]} />
      </Fold>

      <div ref={ref} class="drawing" data-drawing>
        {scatter}
        {mask}
      </div>

      <dl class="readout" data-testid="readout">
        <div>
          <dt>Pairs scored</dt>
          <dd data-testid="pairs">{f.scoredPairs} / {f.allPairs} ({pct(f.scoredPairs / f.allPairs)})</dd>
        </div>
        <div>
          <dt>Score entries formed (chunk blocks)</dt>
          <dd data-testid="entries">{fmtInt(f.scoreEntries)} vs dense {fmtInt(f.denseEntries)}</dd>
        </div>
        <div class={step >= STEP.mask ? 'now' : ''}>
          <dt>Error vs dense (relative · max |Δ|)</dt>
          <dd data-testid="error">{pct(f.error.relativeFrobenius)} · {f.error.maxAbs.toFixed(3)}</dd>
        </div>
      </dl>

      <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(f, step)} />

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={[...STEP_LABELS]} stops />
      </footer>
    </div>
  );
}
