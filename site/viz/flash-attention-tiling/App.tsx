// FlashAttention, tile by tile: the core's trace of the tiled forward pass (or of standard
// attention) drawn on Q, Kᵀ, Vᵀ and the score matrix, with counters, the online-softmax update of
// one row, and a narration of each step.
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import type { HbmTransfer } from '../../../wasm/load';
import { ErrorBanner } from '../shared/ErrorBanner';
import { fmtBytes } from '../shared/format';
import { Fold } from '../shared/Fold';
import { Legend, type LegendItem } from '../shared/Legend';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { Algorithm } from './Algorithm';
import { Controls } from './Controls';
import type { Run } from './model';
import { narration } from './narration';
import { Counters, Equations, RowTable } from './Panel';
import { layout, Stage } from './Stage';
import type { FigureState } from './state';
import { Narration } from '../shared/Narration';

const HATCH = `repeating-linear-gradient(45deg, ${colors.muted} 0 1.5px, transparent 1.5px 4px)`;

function legendItems(run: Run): LegendItem[] {
  const common: LegendItem[] = [
    { swatch: colors.sram, label: 'in SRAM now', outline: true },
    { swatch: '#60a5fa', label: 'HBM → SRAM this step' },
    { swatch: colors.hbm, label: 'SRAM → HBM this step' },
  ];
  if (run.config.mode === 'flash') {
    return [
      { swatch: colors.sram, label: 'tile weights e^(S − m), on chip' },
      { swatch: 'rgba(107, 114, 128, 0.55)', label: 'computed, then discarded' },
      ...(run.config.causal ? [{ swatch: HATCH, label: 'skipped (causal)' }, { swatch: colors.muted, label: 'masked score', outline: true }] : []),
      ...common,
    ];
  }
  return [
    { swatch: 'rgba(239, 68, 68, 0.4)', label: 'S stored in HBM' },
    { swatch: 'rgba(239, 68, 68, 0.75)', label: 'S and P stored in HBM' },
    ...common,
  ];
}

const BLOCKED = new Set(['Q', 'K', 'V', 'O', 'S', 'P']);
function describeTransfers(list: HbmTransfer[], direction: 'read' | 'write'): string {
  const picked = list.filter((t) => t.direction === direction);
  if (!picked.length) return '';
  const names = picked.map((t) => (BLOCKED.has(t.matrix) ? `${t.matrix}[${t.rowBegin + 1}–${t.rowEnd}${t.matrix === 'S' || t.matrix === 'P' ? `, ${t.colBegin + 1}–${t.colEnd}` : ''}]` : t.matrix));
  return `${direction === 'read' ? 'HBM → SRAM' : 'SRAM → HBM'}: ${names.join(' ')} (${fmtBytes(picked.reduce((a, t) => a + t.bytes, 0))})`;
}

const KIND_TEXT: Record<string, string> = {
  load_q: 'load Q block', tile: 'tile', skip: 'skip (causal)', write_o: 'write O', init_o: 'initialise O, ℓ, m', load_kv: 'load K/V block',
  score_tile: 'S = QKᵀ tile', softmax_rows: 'softmax rows', pv_tile: 'O += P·V tile',
};
const stepLabel = (run: Run, i: number) => {
  const s = run.steps[i];
  return `${KIND_TEXT[s.kind]}${s.rowEnd > s.rowBegin ? `, Q block ${s.qBlock + 1}` : ''}${s.colEnd > s.colBegin ? `, K block ${s.kBlock + 1}` : ''}`;
};

// The step shown, read where it is drawn: a step re-renders only what sits inside an AtStep, not
// the controls, legend and layout around it.
function AtStep({ state, children }: { state: FigureState; children: (at: number) => ComponentChildren }) {
  const run = state.run.value;
  return <>{children(Math.min(state.stepper.step.value, run.steps.length - 1))}</>;
}

function StepCaption({ run, at, labels }: { run: Run; at: number; labels: string[] }) {
  const s = run.steps[at];
  const moved = [describeTransfers(s.transfers, 'read'), describeTransfers(s.transfers, 'write')].filter(Boolean).join(' · ');
  return <>
    <span class="kind" data-testid="step-kind">{labels[at]}</span>
    <span class="moved">{moved || 'no HBM traffic'}</span>
  </>;
}

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'the green SRAM frame moving tile by tile while the HBM counters grow slowly. Press Play or step with →.';

export function App({ state }: { state: FigureState }) {
  const { stepper, run: runSignal, error, computing, setConfig } = state;
  const run = runSignal.value;
  const [stageRef, stageWidth] = useWidth<HTMLDivElement>();
  const L = layout(run, stageWidth);
  const labels = useMemo(() => run.steps.map((_, i) => stepLabel(run, i)), [run]);
  const seek = (i: number) => { stepper.playing.value = false; stepper.seek(i); };

  return (
    <div class={`viz tiling mode-${run.config.mode}`}>
      <header class="viz-header">
        <h1>FlashAttention, tile by tile</h1>
        <Controls config={run.config} onChange={(patch) => setConfig(patch)} />
      </header>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <p class="computing" role="status" data-testid="computing">{computing.value ?? ''}</p>

      <div class="body">
        <div class="main-col">
        <section class="card stage-card" aria-label="Q, K, V and the score matrix">
          <Fold more="Legend" fewer="Hide legend" class="panel-fold"><Legend items={legendItems(run)} /></Fold>
          <div class="stage-wrap" ref={stageRef} data-drawing>
            <AtStep state={state}>{(at) => <Stage run={run} at={at} width={stageWidth} onSeek={seek} />}</AtStep>
          </div>
        </section>
        <Fold always more="Algorithm" fewer="Hide algorithm" class="panel-fold">
          <AtStep state={state}>{(at) => <Algorithm run={run} at={at} caption={<StepCaption run={run} at={at} labels={labels} />} />}</AtStep>
        </Fold>
        </div>
        <aside class="side">
          <AtStep state={state}>{(at) => <>
            <Narration stepper={stepper} lookFor={LOOK_FOR} text={() => narration(run, at)} />
          </>}</AtStep>
          <Fold more="Numbers" fewer="Hide numbers" class="panel-fold">
            <AtStep state={state}>{(at) => <>
              <Counters run={run} at={at} />
              <Equations run={run} at={at} />
              {!L.stats && <RowTable run={run} at={at} />}
            </>}</AtStep>
          </Fold>
        </aside>
      </div>

      <footer class="viz-footer">
        <PlayControls stepper={stepper} />
        <TimelineScrubber stepper={stepper} labels={labels} stops={false} />
        <AtStep state={state}>{(at) => <span class="step-count" data-testid="step-count">step {at + 1} / {run.steps.length}</span>}</AtStep>
      </footer>
    </div>
  );
}
