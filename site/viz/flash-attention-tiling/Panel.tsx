// The side panel: memory and FLOP counters of the traced head, the online-softmax update of the
// followed row with the step's values (or standard attention's softmax), and, when the stage has
// no room for per-row columns, a table of the current Q block's rows.
import { Component, type ComponentChildren } from 'preact';
import type { FlashStep } from '../../../wasm/load';
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { EquationCallout } from '../shared/EquationCallout';
import { fmt, fmtBytes } from '../shared/format';
import { MemoryBar } from '../shared/MemoryBar';
import { followedRow, isFlashStep, rowState, type Run } from './model';
import softmaxTex from './softmax.tex?formula';
import alphaTex from './update-alpha.tex?formula';
import lTex from './update-l.tex?formula';
import mTex from './update-m.tex?formula';
import oTex from './update-o.tex?formula';

const f = (x: number) => fmt(x, 2);
// Thousands separators by hand: toLocaleString is slow, and this runs on every animation frame.
const fmtFlops = (x: number) => String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const vec = (a: Float32Array | null) => (a ? `(${Array.from(a.subarray(0, 4), f).join(', ')}${a.length > 4 ? ', …' : ''})` : '—');

export function Counters({ run, at }: { run: Run; at: number }) {
  const s = run.steps[at];
  const flash = run.config.mode === 'flash';
  const total = (steps: typeof run.steps) => { const l = steps[steps.length - 1]; return l.hbmBytesRead + l.hbmBytesWritten; };
  const std = total(run.standard.steps), fa = total(run.flash.steps);
  return (
    <section class="card counters" aria-label="Counters for the traced head">
      <h2>Memory traffic <span>this head, cumulative</span></h2>
      <MemoryBar label="HBM read" bytes={s.hbmBytesRead} scale={run.scale.hbm} color="var(--active)" pulseAbove={Infinity} class="hbm-read" />
      <MemoryBar label="HBM written" bytes={s.hbmBytesWritten} scale={run.scale.hbm} color="var(--hbm)" class="hbm-written" />
      <MemoryBar label="N×N scores S and P stored in HBM" bytes={run.nnBytes[at]} scale={run.scale.nn} color="var(--hbm)" class="nn-bytes"
        note={flash ? 'Flat at 0 B: each tile’s scores live and die in SRAM.' : `S and P: 2 · N² values, ${fmtBytes(run.scale.nn)} for this head by the end.`} />
      <MemoryBar label="SRAM in use at this step" bytes={s.sramBytesHeld} scale={run.scale.sram} color="var(--sram)" pulseAbove={Infinity} class="sram" />
      <div class="flops">
        <span>FLOPs so far</span>
        <strong data-testid="flops"><AnimatedNumber value={s.flops} format={fmtFlops} /></strong>
      </div>
      <p class="whole-run">
        Whole run, HBM traffic: standard <strong data-testid="total-standard">{fmtBytes(std)}</strong>,
        FlashAttention-{run.config.order === 'fa2' ? 2 : 1} <strong data-testid="total-flash">{fmtBytes(fa)}</strong>
        {' '}({fmt(std / fa, 1)}× less)
      </p>
    </section>
  );
}

// Both sets of equations stay mounted and the mode shows one; the other is parked (out of the flow,
// content-visibility: hidden), which keeps its style and layout, so switching Standard/FlashAttention
// rewrites a few values instead of building the card, its formulas' images and their values again.
export function Equations({ run, at }: { run: Run; at: number }) {
  const flash = isFlashStep(run.steps[at]);
  return (
    <>
      <UnlessParked run={run} shown={!flash}>{() => <StandardSoftmax run={run} at={at} shown={!flash} />}</UnlessParked>
      <UnlessParked run={run} shown={flash}>{() => <OnlineSoftmaxUpdate run={run} at={at} shown={flash} />}</UnlessParked>
    </>
  );
}

// A parked card shows nothing, so a step that leaves it parked leaves it as it is: only a new run,
// or the card being shown or parked, renders it again.
class UnlessParked extends Component<{ run: Run; shown: boolean; children: () => ComponentChildren }> {
  shouldComponentUpdate(next: { run: Run; shown: boolean }) {
    return next.shown || this.props.shown || next.run !== this.props.run;
  }
  render() { return <>{this.props.children()}</>; }
}

const HIDDEN = { m: '—', l: '—', mold: '—', tilemax: '—', mnew: '—', alpha: '—', lold: '—', rowsum: '—', lnew: '—', o: '—' };

function StandardSoftmax({ run, at, shown }: { run: Run; at: number; shown: boolean }) {
  const s = run.steps[at];
  const r = followedRow(s);
  const softmaxAt = run.softmaxStep[Math.floor(r / run.config.br)];
  const known = shown && softmaxAt >= 0 && softmaxAt <= at;
  const st = rowState(run, at, r);
  return (
    <section class={shown ? 'card equations' : 'card equations parked'} aria-label="Softmax of standard attention" aria-hidden={!shown}>
      <h2>Row {r + 1} <span>{known ? 'softmax over the whole stored row' : 'softmax waits for the whole row of S'}</span></h2>
      <EquationCallout formula={softmaxTex} values={shown ? { m: known ? f(st.m) : '?', l: known ? f(st.l) : '?' } : HIDDEN}
        caption="Standard attention needs every score of a row before it can normalise, so S and P go to HBM." />
    </section>
  );
}

// The followed row's online-softmax update at a flash step: its number, what happened to it, and
// the values of every slot of the four equations.
function onlineUpdate(run: Run, at: number, s: FlashStep) {
  const tile = s.kind === 'tile';
  const r = followedRow(s);
  const before = rowState(run, at - 1, r), after = rowState(run, at, r);
  const local = r - s.rowBegin;
  let tilemax = '—', rowsum = '—', alpha = '—';
  if (tile) {
    const cols = s.colEnd - s.colBegin;
    tilemax = f(s.scores.subarray(local * cols, (local + 1) * cols).reduce((m, x) => Math.max(m, x), -Infinity));
    rowsum = f(s.weights.subarray(local * cols, (local + 1) * cols).reduce((a, x) => a + x, 0));
    alpha = f(s.rescale[local]);
  }
  return {
    row: r,
    note: tile ? (s.rescale[local] > 0 && s.rescale[local] < 1 ? 'its running max rose: rescale' : 'online softmax update') : 'no tile in this step',
    // Before the row's first key, ℓ is 0 and acc / ℓ is undefined: the O slot shows a dash, not 0/0.
    values: { mold: f(before.m), tilemax, mnew: f(after.m), alpha, lold: f(before.l), rowsum, lnew: f(after.l), o: after.l > 0 ? vec(after.output) : '—' },
  };
}

function OnlineSoftmaxUpdate({ run, at, shown }: { run: Run; at: number; shown: boolean }) {
  const s = run.steps[at];
  const u = shown && isFlashStep(s) ? onlineUpdate(run, at, s) : null;
  const values = u?.values ?? HIDDEN;
  return (
    <section class={u ? 'card equations' : 'card equations parked'} aria-hidden={!u}
      aria-label={u ? `Online softmax update of row ${u.row + 1}` : 'Online softmax update'}>
      <h2>Row {u && u.row + 1} <span>{u?.note}</span></h2>
      <EquationCallout formula={mTex} values={values} />
      <EquationCallout formula={alphaTex} values={values} />
      <EquationCallout formula={lTex} values={values} />
      <EquationCallout formula={oTex} values={values} />
    </section>
  );
}

// The current Q block's rows, for narrow screens where the stage drops its m and ℓ columns.
export function RowTable({ run, at }: { run: Run; at: number }) {
  const s = run.steps[at];
  if (s.rowEnd <= s.rowBegin) return null;
  const rows = [];
  for (let r = s.rowBegin; r < Math.min(s.rowEnd, s.rowBegin + 16); r++) {
    const st = rowState(run, at, r);
    const alpha = isFlashStep(s) && s.kind === 'tile' ? s.rescale[r - s.rowBegin] : NaN;
    rows.push(
      <tr key={r}>
        <th scope="row">{r + 1}</th>
        <td data-testid={`m-${r + 1}`}>{f(st.m)}</td>
        <td data-testid={`l-${r + 1}`}>{f(st.l)}</td>
        <td>{Number.isNaN(alpha) ? '—' : f(alpha)}</td>
        <td class="vec">{vec(st.output)}</td>
      </tr>,
    );
  }
  return (
    <section class="card rows-card">
      <table class="row-table">
        <caption>Q block {s.qBlock + 1}: each row’s state after this step</caption>
        <thead><tr><th scope="col">row</th><th scope="col">m</th><th scope="col">ℓ</th><th scope="col">α</th><th scope="col">O</th></tr></thead>
        <tbody>{rows}</tbody>
      </table>
    </section>
  );
}
