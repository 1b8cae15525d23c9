// PagedAttention's block pool against contiguous reservations, on the same seeded workload replayed
// by the core: memory drawn per step, block tables as arrows, counters from the replays' timelines.
// Only the parts that show the step read it (each a component of its own), so a step or a scrub
// re-renders the drawing, the counters and the narration, not the controls and the legend.
import { ErrorBanner } from '../shared/ErrorBanner';
import { Fold } from '../shared/Fold';
import { Legend } from '../shared/Legend';
import { MoreControls } from '../shared/MoreControls';
import { Narration } from '../shared/Narration';
import { NumberSelect } from '../shared/NumberSelect';
import { PlayControls } from '../shared/PlayControls';
import { TimelineScrubber } from '../shared/TimelineScrubber';
import { colors } from '../shared/theme';
import { BLOCKS, requestColor, REQUESTS, SEED, timelineIndex, WORKLOAD } from './model';
import { narration } from './narration';
import { Pools } from './Pools';
import type { FigureState } from './state';

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'the same requests in the same memory: ranges reserved up front for the longest answer (faded: not written yet, red: never written) against 16-token blocks taken as needed. Press Play, or jump to a turned-away request.';
const SEEDS = Array.from({ length: 9 }, (_, i) => i + SEED.min);

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const util = (stored: number, allocated: number) => (allocated > 0 ? pct(stored / allocated) : '—');

// A counter with a long label and a phone's short one.
function Counter({ label, short, value, id }: { label: string; short: string; value: string; id: string }) {
  return <div><dt><span class="long">{label}</span><span class="short">{short}</span></dt><dd data-testid={id}>{value}</dd></div>;
}

function Counters({ state }: { state: FigureState }) {
  const f = state.figure.value, step = state.clock.step.value;
  const ct = timelineIndex(f.contiguous, step), pt = timelineIndex(f.paged, step);
  const cl = f.contiguous.timeline, pl = f.paged.timeline;
  const cWaste = (cl.reservedFutureSlots[ct] + cl.internalFragmentationSlots[ct] + cl.externalFragmentationSlots[ct]) / f.paged.capacitySlots;
  return (
    <dl class="readout" data-testid="readout">
      <Counter id="contiguous-waste" label="Contiguous waste" short="C waste" value={pct(cWaste)} />
      <Counter id="contiguous-utilisation" label="Contiguous utilisation" short="C util." value={util(cl.storedTokens[ct], cl.allocatedSlots[ct])} />
      <Counter id="paged-utilisation" label="Paged utilisation" short="P util." value={util(pl.storedTokens[pt], pl.allocatedSlots[pt])} />
      <Counter id="served" label="Served (contig. / paged)" short="Served C/P" value={`${cl.finishedTotal[ct]} / ${pl.finishedTotal[pt]} of ${f.config.requests}`} />
      <Counter id="waiting" label="Waiting (contig. / paged)" short="Wait C/P" value={`${cl.queuedRequests[ct]} / ${pl.queuedRequests[pt]}`} />
      <Counter id="preemptions" label="Paged preemptions" short="Preempted" value={String(pl.preemptedTotal[pt])} />
    </dl>
  );
}

// The jump to the next step where a request arrives that the contiguous pool cannot take and the paged pool admits.
function JumpToRefusal({ state }: { state: FigureState }) {
  const { figure, clock } = state;
  const refused = figure.value.refusedArrivals, step = clock.step.value;
  const next = refused.find((s) => s > step) ?? refused[0];
  if (next === undefined) return null;
  return (
    <button type="button" class="jump" data-testid="jump-refusal" onClick={() => { clock.playing.value = false; clock.seek(next); }}
      title="Jump to the next step where a request arrives that the contiguous pool cannot take and the paged pool admits">
      Next turned-away request
    </button>
  );
}

function TableSelect({ state }: { state: FigureState }) {
  const { focus, live, selected } = state;
  return (
    <label class="field"><span class="field-label">tables of</span> <NumberSelect value={focus.value ?? -1} label="Request whose block tables are drawn"
      choices={live.value.length ? live.value : [-1]} format={(r) => (r < 0 ? 'none running' : `request ${r}`)}
      onChange={(r) => (selected.value = r < 0 ? null : r)} /></label>
  );
}

const Drawing = ({ state }: { state: FigureState }) => <Pools figure={state.figure.value} st={state.state.value} focus={state.focus.value} />;

export function App({ state }: { state: FigureState }) {
  const { figure, error, clock, configure } = state;
  const f = figure.value;
  const c = f.config;
  return (
    <div class="viz paged-blocks flow">
      <header class="viz-header">
        <h1>Contiguous vs paged KV cache</h1>
      </header>
      <div class="controls">
        <JumpToRefusal state={state} />
        <TableSelect state={state} />
        <MoreControls>
          <label class="field">requests <NumberSelect value={c.requests} label="Requests" choices={REQUESTS} onChange={(requests) => configure({ requests })} /></label>
          <label class="field">pool <NumberSelect value={c.blocks} label="Pool size in blocks" choices={BLOCKS}
            format={(b) => `${b} blocks`} onChange={(blocks) => configure({ blocks })} /></label>
          <label class="field">seed <NumberSelect value={c.seed} label="Workload seed" choices={SEEDS} onChange={(seed) => configure({ seed })} /></label>
        </MoreControls>
      </div>
      <ErrorBanner message={error.value} onDismiss={() => (error.value = null)} />
      <Fold more="Legend" fewer="Hide legend">
        <Legend items={[
          { swatch: requestColor(0), label: 'KV held (colour = request)' },
          { swatch: requestColor(0, 0.3), label: `reserved for tokens still to come (a sample reserves its prompt + ${WORKLOAD.maxOutputTokens})` },
          { swatch: colors.hbm, label: 'reserved, never used (internal fragmentation)' },
          { swatch: colors.heads[0], label: 'free hole too small for the next request (external)' },
          { swatch: '#e5e5e5', label: 'block shared by several tables (×n: references)', outline: true },
        ]} />
      </Fold>

      <Drawing state={state} />
      <Counters state={state} />
      <Narration stepper={clock} lookFor={LOOK_FOR} text={() => narration(f, state.state.value)} />

      <footer class="viz-footer">
        <PlayControls stepper={clock} />
        <TimelineScrubber stepper={clock} labels={f.labels} stops={false} />
      </footer>
    </div>
  );
}
