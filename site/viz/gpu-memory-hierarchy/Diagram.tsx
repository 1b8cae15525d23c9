// The GPU as GPUBlock draws it (SM grid, L2, HBM, host) with the run animated on top: dots cross
// the HBM link (through L2, which every HBM byte passes) in proportion to the bytes the cost model
// counts, S and P in red; the SMs light up for the share of the run the tensor cores are busy.
import type { JSX } from 'preact';
import type { SourcedNumber } from '../../../wasm/load';
import { fmtBytes } from '../shared/format';
import { GPUBlock, type GPUBlockLayout, type GPUPool } from '../shared/GPUBlock';
import type { Clock } from '../shared/stepper';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { missing } from './Levels';
import { fmtDecimal, progress, run, STANDARD_DOTS, tensorBusy, type Figure } from './model';

const sourceOf = (name: string, s: SourcedNumber) => `${name}: ${s.source}`;
const bw = (s: SourcedNumber) => (s.value === null ? `BW ${missing(s)}` : fmtDecimal(s.value, 'B/s'));

export function pools(fig: Figure): GPUPool[] {
  const p = fig.preset;
  return [
    { id: 'l2', label: 'L2 cache', color: colors.heads[1],
      detail: [p.l2Bytes.value === null ? 'size —' : fmtBytes(p.l2Bytes.value, 0), bw(p.l2BytesPerS)],
      title: `${sourceOf('Size', p.l2Bytes)}\n${sourceOf('Bandwidth', p.l2BytesPerS)}` },
    { id: 'hbm', label: p.memoryType, color: colors.hbm,
      detail: [p.hbmBytes.value === null ? 'size —' : fmtDecimal(p.hbmBytes.value, 'B'), bw(p.hbmBytesPerS)],
      title: `${sourceOf('Size', p.hbmBytes)}\n${sourceOf('Bandwidth', p.hbmBytesPerS)}` },
    { id: 'host', label: 'Host DRAM', color: colors.muted, detail: ['size: per server', `PCIe ${bw(p.hostLinkBytesPerS)}`],
      title: `Host memory belongs to the server, not the GPU\n${sourceOf('Link (both directions)', p.hostLinkBytesPerS)}` },
  ];
}

// Each SM gets a scattered phase (a multiplicative hash), so the lit SMs flicker over the grid
// rather than in stripes; the lit share at any moment is the tensor-core duty.
const phase = (sm: number) => (Math.imul(sm + 1, 2654435761) >>> 0) / 4294967296;
const lit = (sm: number, t: number, period: number, duty: number) => ((phase(sm) + t / period) % 1) < duty;

function Dots({ fig, t, layout, row }: { fig: Figure; t: number; layout: GPUBlockLayout; row: boolean }) {
  const r = run(fig);
  const std = fig.standard;
  const perDot = std.hbmBytes / STANDARD_DOTS;
  const dots = Math.max(1, Math.round(r.hbmBytes / perDot));
  const emitEvery = r.timeS / dots;
  const travel = std.timeS / 10;
  const readShare = r.hbmBytesRead / r.hbmBytes;
  const spShare = fig.config.mode === 'standard' ? Math.min(1, (4 * fig.scoreBytes) / r.hbmBytes) : 0;
  const { chip } = layout, hbm = layout.pools[1];
  const out: JSX.Element[] = [];
  if (progress(fig, t).done) return null;
  const first = Math.max(0, Math.floor((t - travel) / emitEvery));
  for (let i = first; i < dots; i++) {
    const born = i * emitEvery;
    if (born > t) break;
    const f = (t - born) / travel;
    if (f >= 1) continue;
    // Every share-th dot: deterministic (Bresenham) so a paused frame redraws identically.
    const isRead = Math.floor((i + 1) * readShare) > Math.floor(i * readShare);
    const isSP = Math.floor((i + 1) * spShare) > Math.floor(i * spShare);
    const p = isRead ? 1 - f : f;  // reads travel HBM -> chip, writes chip -> HBM
    const lane = isRead ? -7 : 7;
    const [x, y] = row
      ? [chip.x + chip.w + p * (hbm.x + 10 - chip.x - chip.w), chip.y + chip.h / 2 + lane]
      : [hbm.x + hbm.w / 2 + lane, chip.y + chip.h + p * (hbm.y + 8 - chip.y - chip.h)];
    out.push(<circle key={i} cx={x} cy={y} r={3.4} class={isSP ? 'dot sp' : 'dot qkvo'} />);
  }
  return <g class="dots" aria-hidden="true">{out}</g>;
}

export function Diagram({ fig, clock, activeLevel, onLevel }: {
  fig: Figure; clock: Clock; activeLevel: string; onLevel: (id: string) => void;
}) {
  const t = clock.time.value;
  const [ref, measured] = useWidth<HTMLDivElement>();
  const width = Math.max(280, measured);
  const row = width >= 540;
  const r = run(fig);
  const pr = progress(fig, t);
  const duty = tensorBusy(r);
  const running = t > 0 && !pr.done;
  const period = fig.standard.timeS / 6;
  const smFill = (sm: number) => (!running ? '#262626' : lit(sm, t, period, duty) ? colors.sram : '#1f3b31');
  const sms = fig.preset.smCount.value ?? 0;
  return (
    <div class="diagram" ref={ref} data-testid="diagram" data-drawing>
      {/* Narrow: a wide, shallow SM grid (six rows), so the drawing leaves room for the narration. */}
      <GPUBlock smCount={sms} width={width} direction={row ? 'row' : 'column'} columns={row ? undefined : Math.ceil(sms / 6)}
        label={`${fig.preset.name.replace('NVIDIA ', '')}: ${sms} SMs`}
        smFill={smFill} pools={pools(fig)} activePool={activeLevel} onPoolFocus={onLevel}
        overlay={(layout) => <Dots fig={fig} t={t} layout={layout} row={row} />} />
    </div>
  );
}
