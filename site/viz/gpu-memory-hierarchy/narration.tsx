// One sentence on where the run is, with the cost model's numbers.
import { fmt, fmtInt } from '../shared/format';
import type { Clock } from '../shared/stepper';
import { fmtDecimal, fmtTime, progress, run, tensorBusy, type Figure } from './model';
import { Narration as Opening } from '../shared/Narration';

export function narration(fig: Figure, t: number): string {
  const { config: c, standard, flash } = fig;
  const r = run(fig);
  const pr = progress(fig, t);
  const gpu = fig.preset.name.replace('NVIDIA ', '');
  const name = c.mode === 'standard' ? 'Standard attention' : 'FlashAttention';
  const sp = fmtDecimal(4 * fig.scoreBytes, 'B');
  const busy = fmt(100 * tensorBusy(r), 0);
  const bound = r.bound === 'memory'
    ? `intensity ${fmt(r.arithmeticIntensity, 0)} FLOP/B is below the ridge of ${fmt(fig.ridge, 0)}, so HBM bandwidth sets the time`
    : `intensity ${fmt(r.arithmeticIntensity, 0)} FLOP/B is above the ridge of ${fmt(fig.ridge, 0)}, so the tensor cores set the time`;
  if (pr.elapsedS === 0) {
    return `${name} on the ${gpu}, N = ${fmtInt(c.n)}, d = ${c.d}, ${c.heads} heads: press Play and the stopwatch runs for the cost model's predicted ${fmtTime(r.timeS)}.`;
  }
  if (!pr.done) {
    const moved = `${fmtTime(pr.elapsedS)} of ${fmtTime(r.timeS)}: ${fmtDecimal(pr.read, 'B')} read from HBM and ${fmtDecimal(pr.written, 'B')} written so far`;
    return c.mode === 'standard'
      ? `${moved}; S and P account for ${sp} of the ${fmtDecimal(r.hbmBytes, 'B')} total. The tensor cores are busy ${busy}% of the time.`
      : `${moved}; S and P never leave SRAM. The tensor cores are busy ${busy}% of the time.`;
  }
  if (c.mode === 'standard') {
    return `Done in ${fmtTime(r.timeS)} (predicted): ${fmtDecimal(r.hbmBytes, 'B')} crossed the HBM link, ${sp} of it S and P written and read back; ${bound}. FlashAttention needs ${fmtTime(flash.timeS)} (${fmt(standard.timeS / flash.timeS, 1)}× faster).`;
  }
  return `Done in ${fmtTime(r.timeS)} (predicted): ${fmtDecimal(r.hbmBytes, 'B')} of HBM traffic: K and V read once, while Q, O and each row's m and ℓ are read and written again for every block of K and V (the original FlashAttention's loop order); ${bound}. Standard attention needs ${fmtTime(standard.timeS)}.`;
}

// What to look for when the figure opens (shared/Narration.tsx).
const LOOK_FOR = 'the red S and P dots keeping the HBM link busy while the stopwatch runs. Press Play, then try FlashAttention.';

export function Narration({ fig, clock }: { fig: Figure; clock: Clock }) {
  return <Opening stepper={clock} lookFor={LOOK_FOR} text={() => narration(fig, clock.time.value)} />;
}
