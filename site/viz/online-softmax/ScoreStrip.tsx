// The 8 keys of the example as two tiles: each key's score (once the algorithm has seen it), its
// weight e^(s - m) as the running state holds it (an earlier tile's bars shrink when a larger
// maximum rescales ℓ and O), and its value vector. At the finish, the dense softmax probabilities
// for comparison.
import { AnimatedNumber } from '../shared/AnimatedNumber';
import { fmt } from '../shared/format';
import { heldWeight, KEYS, seenScore, TILE, VALUE_DIM, type Example } from './model';

// The bar is a picture of the key's weight (or, at the finish, its probability), named by its value;
// with neither it is empty and hidden from assistive technology.
function barLabel(weight: number | undefined, p: number | undefined) {
  const label = weight !== undefined ? `weight ${fmt(weight)}` : p !== undefined ? `probability ${fmt(p)}` : null;
  return label ? { role: 'img' as const, 'aria-label': label } : { 'aria-hidden': true };
}

export function ScoreStrip({ ex, step }: { ex: Example; step: number }) {
  const cur = ex.steps[step];
  const finished = cur.kind === 'write_o';
  const tiles = Array.from({ length: KEYS / TILE }, (_, t) => t);
  return (
    <div class="score-strip" data-drawing role="group" aria-label="Scores, weights and values of the 8 keys">
      {tiles.map((t) => {
        const active = cur.kind === 'tile' && cur.colBegin === t * TILE;
        // This step multiplied an earlier tile's terms by e^(m_old - m_new) < 1: say so on the tile.
        const rescaled = cur.kind === 'tile' && cur.colBegin > t * TILE && cur.rescale[0] !== 1;
        return (
          <section key={t} class={active ? 'tile active' : 'tile'} aria-label={`Tile ${t + 1}`}>
            <h2>
              Tile {t + 1} <span>keys {t * TILE + 1}–{(t + 1) * TILE}</span>
              {rescaled && <span class="rescale-chip" data-testid={`rescaled-${t + 1}`}>× {fmt(cur.rescale[0])} rescaled</span>}
            </h2>
            <div class="cells" role="list">
              {Array.from({ length: TILE }, (_, i) => {
                const j = t * TILE + i;
                const score = seenScore(ex, step, j);
                const weight = finished ? undefined : heldWeight(ex, step, j);
                const p = finished ? ex.dense.probs![j] : undefined;
                const state = score === undefined ? 'unseen' : active ? 'current' : 'folded';
                return (
                  <div key={j} class={`cell ${state}`} role="listitem" data-testid={`key-${j + 1}`}>
                    <span class="label">s<sub>{j + 1}</sub></span>
                    <span class="score" data-testid={`score-${j + 1}`}>{score === undefined ? '?' : fmt(score, 2)}</span>
                    <span class="bar" {...barLabel(weight, p)}>
                      {weight !== undefined && <span class={active ? 'fill weight' : 'fill weight held'} style={{ height: `${weight * 100}%` }} />}
                      {p !== undefined && <span class="fill prob" style={{ height: `${p * 100}%` }} />}
                      {(weight ?? p) !== undefined && <AnimatedNumber class="bar-value" value={(weight ?? p)!} digits={2} />}
                    </span>
                    <span class="value" title={`value vector v${j + 1}`}>
                      <span>v<sub>{j + 1}</sub></span>
                      <span class="nums">{Array.from(ex.values.subarray(j * VALUE_DIM, (j + 1) * VALUE_DIM), (x) => fmt(x, 2)).join(' ')}</span>
                    </span>
                  </div>
                );
              })}
            </div>
          </section>
        );
      })}
    </div>
  );
}
