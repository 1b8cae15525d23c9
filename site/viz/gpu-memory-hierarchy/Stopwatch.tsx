// The run as the roofline predicts it: a stopwatch (one turn = the standard run, both end times
// marked), the HBM bytes read and written so far (MemoryBar, on standard attention's scale so the
// flash bars stay short), how busy the tensor cores are, and where the run sits against the ridge.
import { MemoryBar } from '../shared/MemoryBar';
import { fmt } from '../shared/format';
import type { Clock } from '../shared/stepper';
import { colors } from '../shared/theme';
import { fmtDecimal, fmtTime, progress, run, tensorBusy, type Figure } from './model';

function Dial({ fig, t }: { fig: Figure; t: number }) {
  const R = 38, C = 46;
  const angle = (s: number) => (2 * Math.PI * s) / fig.standard.timeS - Math.PI / 2;
  const at = (s: number, r: number) => [C + r * Math.cos(angle(s)), C + r * Math.sin(angle(s))];
  const pr = progress(fig, t);
  const [hx, hy] = at(pr.elapsedS, R - 6);
  const tick = (s: number, cls: string) => {
    const [x1, y1] = at(s, R - 2), [x2, y2] = at(s, R + 6);
    return <line class={cls} x1={x1} y1={y1} x2={x2} y2={y2} />;
  };
  // The arc swept so far: the run's elapsed share of one turn.
  const large = pr.elapsedS / fig.standard.timeS > 0.5 ? 1 : 0;
  const [ax, ay] = at(Math.min(pr.elapsedS, fig.standard.timeS * 0.99999), R);
  return (
    <svg class="dial" viewBox="0 0 92 92" width="92" height="92" aria-hidden="true">
      <circle cx={C} cy={C} r={R} class="dial-face" />
      {pr.elapsedS > 0 && <path class={`dial-arc ${fig.config.mode}`} d={`M ${C} ${C - R} A ${R} ${R} 0 ${large} 1 ${ax} ${ay}`} />}
      {tick(fig.standard.timeS * 0.99999, 'dial-end standard')}
      {tick(fig.flash.timeS, 'dial-end flash')}
      <line class="dial-hand" x1={C} y1={C} x2={hx} y2={hy} />
      <circle cx={C} cy={C} r={3} class="dial-hub" />
    </svg>
  );
}

export function Stopwatch({ fig, clock }: { fig: Figure; clock: Clock }) {
  const t = clock.time.value;
  const r = run(fig);
  const pr = progress(fig, t);
  const busy = tensorBusy(r);
  const speedup = fig.standard.timeS / fig.flash.timeS;
  const byteRatio = fig.standard.hbmBytes / fig.flash.hbmBytes;
  const mode = fig.config.mode;
  return (
    <section class="stopwatch" aria-label="Predicted run">
      <div class="watch">
        <Dial fig={fig} t={t} />
        <div class="watch-text">
          <span class="watch-label">{mode === 'standard' ? 'Standard attention' : 'FlashAttention'}</span>
          <span class="watch-time" data-testid="elapsed" data-seconds={pr.elapsedS}>{fmtTime(pr.elapsedS)}</span>
          <span class="watch-total">of <b data-testid="total-time" data-seconds={r.timeS}>{fmtTime(r.timeS)}</b> {pr.done ? '· done' : ''}</span>
        </div>
      </div>
      <div class="bars">
        <MemoryBar label="HBM read" bytes={pr.read} scale={fig.standard.hbmBytesRead} color={colors.active} pulseAbove={Infinity} />
        <MemoryBar label="HBM written" bytes={pr.written} scale={fig.standard.hbmBytesWritten} color={colors.hbm} pulseAbove={Infinity} />
        <div class="meter" title="Roofline compute time ÷ predicted time">
          <span class="meter-label">Tensor cores busy</span>
          <span class="meter-value" data-testid="busy">{fmt(100 * busy, 0)}%</span>
          <div class="meter-track"><div class="meter-fill" style={{ transform: `scaleX(${busy})` }} /></div>
        </div>
      </div>
      <dl class="facts">
        <div><dt>HBM traffic</dt><dd data-testid="hbm-total" data-bytes={r.hbmBytes}>{fmtDecimal(r.hbmBytes, 'B')}</dd></div>
        <div><dt>Intensity</dt><dd><span data-testid="intensity">{fmt(r.arithmeticIntensity, 0)}</span> FLOP/B <span class="muted">ridge {fmt(fig.ridge, 0)}</span></dd></div>
        <div><dt>Bound by</dt><dd class={r.bound} data-testid="bound">{r.bound === 'memory' ? 'HBM bandwidth' : 'tensor cores'}</dd></div>
        <div><dt>Flash vs standard</dt><dd class="ratio" data-testid="speedup">{fmt(speedup, 1)}× faster<span class="muted">, {fmt(byteRatio, 1)}× fewer bytes</span></dd></div>
      </dl>
    </section>
  );
}
