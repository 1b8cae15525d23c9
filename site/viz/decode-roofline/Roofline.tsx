// The roofline, log-log: attainable FLOP/s against arithmetic intensity. Every GPU preset's roof
// (faint) and the chosen one's (bright, with its ridge); the decode step of each K/V sharing as a point
// on the chosen roof, revealed in order, the current one large with the attention's own intensity
// (its group size) as a hollow mark. Drawn in CSS pixels at the element's width.
import { colors } from '../shared/theme';
import { logScale } from '../shared/logScale';
import { useWidth } from '../shared/useWidth';
import { fmtFlops, fmtIntensity, type Figure } from './model';

const M = { l: 48, r: 14, t: 22, b: 30 };
const X = { lo: 0.5, hi: 4096 };
const Y = { lo: 1e11, hi: 1e16 };

export const POINT = colors.heads[0];

/** 100 G, 1 T, 10 T, ... for the FLOP/s axis (powers of ten). */
const siTick = (v: number) => {
  const e = Math.round(Math.log10(v));
  return `${10 ** (e % 3)} ${'GTPE'[Math.floor(e / 3) - 3]}`;
};
export const MLA_POINT = colors.sram;

export function Roofline({ fig, step }: { fig: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const height = narrow ? 230 : 320;
  const x = logScale(X.lo, X.hi, M.l, width - M.r);
  const y = logScale(Y.lo, Y.hi, height - M.b, M.t);
  const chosen = fig.roofs.find((r) => r.gpu.id === fig.config.gpu)!;
  const roofPath = (peak: number, bw: number) => {
    const ridge = peak / bw;
    const x0 = Math.max(X.lo, Y.lo / bw);
    return `M${x(x0)},${y(x0 * bw)} L${x(Math.min(ridge, X.hi))},${y(Math.min(ridge, X.hi) * bw)} L${x(X.hi)},${y(Math.min(peak, X.hi * bw))}`;
  };
  const xTicks = x.ticks(narrow ? 8 : 2).filter((t) => t >= 1 && t < X.hi);
  const yTicks = y.ticks(10);
  const current = fig.variants[step];
  const ridgeLeft = x(chosen.ridge) > width - 130;  // no room for the ridge's label right of it
  return (
    <div ref={ref} class="roofline-frame" data-drawing>
      <svg class="roofline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`Roofline of ${chosen.gpu.name}: ${fig.variants.slice(0, step + 1).map((v) => `${v.label} at ${fmtIntensity(v.step.arithmeticIntensity)} FLOP per byte`).join(', ')}`}>
        {yTicks.map((t) => <g key={t}>
          <line x1={M.l} x2={width - M.r} y1={y(t)} y2={y(t)} class="grid" />
          <text x={M.l - 6} y={y(t)} text-anchor="end" dominant-baseline="middle" class="tick">{siTick(t)}</text>
        </g>)}
        {xTicks.map((t) => <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={M.t} y2={height - M.b} class="grid" />
          <text x={x(t)} y={height - M.b + 14} text-anchor="middle" class="tick">{t}</text>
        </g>)}
        <text x={width - M.r} y={height - 3} text-anchor="end" class="axis-label">FLOP per byte of HBM traffic →</text>
        <text x={4} y={11} class="axis-label">FLOP/s ↑</text>
        {fig.roofs.filter((r) => r !== chosen).map((r) => <path key={r.gpu.id} d={roofPath(r.peak, r.bandwidth)} class="roof other" data-gpu={r.gpu.id}><title>{r.gpu.name}</title></path>)}
        <path d={roofPath(chosen.peak, chosen.bandwidth)} class="roof chosen" data-testid="roof" data-ridge={chosen.ridge} />
        <line x1={x(chosen.ridge)} x2={x(chosen.ridge)} y1={y(chosen.peak)} y2={height - M.b} class="ridge" />
        {/* Under the flat roof, right of the ridge; where there is no room there, at the foot of the
            ridge line on its left, clear of the sloped roof, which just left of the ridge runs close
            under the flat one. */}
        <text x={x(chosen.ridge) + (ridgeLeft ? -4 : 4)} y={ridgeLeft ? height - M.b - 6 : y(chosen.peak) + 14} text-anchor={ridgeLeft ? 'end' : 'start'}
          class="ridge-label" data-testid="ridge">ridge {fmtIntensity(chosen.ridge)} FLOP/B</text>
        <text x={M.l + 4} y={y(chosen.peak) - 6} class="roof-label">{narrow ? '' : `${chosen.gpu.name}: `}{fmtFlops(chosen.peak)} peak</text>
        <g data-testid="attention-mark">
          <circle cx={x(current.step.attentionIntensity)} cy={y(Math.min(chosen.peak, current.step.attentionIntensity * chosen.bandwidth))} r={6} class="attention-only" />
        </g>
        {fig.variants.map((v, i) => {
          if (i > step) return null;
          const cx = x(v.step.arithmeticIntensity), cy = y(v.step.attainableFlopsPerS);
          const isCurrent = i === step;
          return <g key={v.label} class={isCurrent ? 'point current' : 'point'} data-testid={`point-${i}`}
            data-intensity={v.step.arithmeticIntensity} data-attainable={v.step.attainableFlopsPerS}>
            <circle cx={cx} cy={cy} r={isCurrent ? 7 : 4} fill={v.scheme === 'mla' ? MLA_POINT : POINT} />
            {isCurrent && <text x={cx} y={cy + 20} text-anchor={cx > width - 80 ? 'end' : 'middle'} class="point-label">{v.label}</text>}
          </g>;
        })}
      </svg>
    </div>
  );
}
