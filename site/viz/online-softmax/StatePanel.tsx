// The running state of the row after the current step, with the value before it.
import type { FlashStep } from '../../../wasm/load';
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { fmt } from '../shared/format';

export function StatePanel({ cur, prev, step }: { cur: FlashStep; prev: FlashStep; step: number }) {
  const changed = step > 0 && cur.kind === 'tile';
  const rows: [string, string, number | Float32Array, number | Float32Array][] = [
    ['m', 'running max', cur.m[0], prev.m[0]],
    ['ℓ', 'running sum of e^(s − m)', cur.l[0], prev.l[0]],
    ['e^(m_old − m_new)', 'rescale of ℓ and O', cur.rescale[0], NaN],
    ['O', 'output so far (acc / ℓ)', cur.output, prev.output],
  ];
  return (
    <dl class="state-panel" aria-label="Online softmax state">
      {rows.map(([sym, what, value, before]) => (
        <div key={sym} class="state-row" data-testid={`state-${sym}`}>
          <dt><span class="sym">{sym}</span><span class="what">{what}</span></dt>
          <dd>
            {typeof value === 'number'
              ? <AnimatedNumber value={value} />
              : <span class="vector">({Array.from(value, (x, i) => <span key={i}><AnimatedNumber value={x} />{i < value.length - 1 ? ', ' : ''}</span>)})</span>}
            {changed && typeof before === 'number' && !Number.isNaN(before) && <span class="before">was {fmt(before)}</span>}
            {sym.startsWith('e^') && cur.kind !== 'tile' && <span class="before">no tile in this step</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}
