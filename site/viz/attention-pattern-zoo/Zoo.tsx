// The six cells: title, the density image of the computed entries, and the core's counts. A cell
// is a button: hovering, tapping or focusing it moves the step-through to it, so the narration
// explains it. The current cell is outlined. Its visible text (title, paper, counts) is its name.
import { useEffect, useRef } from 'preact/hooks';
import { fmtBytes, fmtCount, fmtInt } from '../shared/format';
import { paintDensity } from './draw';
import { PIXELS, shareOfDense, type Cell, type Figure } from './model';

// The image is painted once per array the core returned; a cell still waiting for its image (LSH
// while the worker hashes) keeps the last one, dimmed, under a note.
function Density({ cell }: { cell: Cell }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => { if (cell.fraction) paintDensity(ref.current!, cell.fraction, PIXELS); }, [cell.fraction]);
  const waiting = cell.fraction === null;
  return <>
    <canvas ref={ref} class={waiting ? 'density waiting' : 'density'} width={PIXELS} height={PIXELS} data-testid={`image-${cell.id}`}
      data-ready={waiting ? 'false' : 'true'} aria-hidden="true" />
    {waiting && <span class="hashing">hashing…</span>}
  </>;
}

export function Zoo({ figure, current, onPick }: { figure: Figure; current: number; onPick: (i: number) => void }) {
  const n = fmtInt(figure.config.n);
  return (
    <div class="zoo" data-drawing role="group" aria-label={`Six attention patterns at N = ${n}`}>
      {figure.cells.map((cell, i) => (
        <button type="button" key={cell.id} class={i === current ? 'cell current' : 'cell'} data-testid={`cell-${cell.id}`}
          aria-pressed={i === current}
          onMouseEnter={() => onPick(i)} onFocus={() => onPick(i)} onClick={() => onPick(i)}>
          <span class="cell-head">
            <span class="cell-title"><span class="long">{cell.title}</span><span class="short">{cell.short}</span></span>
            <span class="cell-source">{cell.source}</span>
          </span>
          <span class="frame"><Density cell={cell} /></span>
          <span class="cell-params">{cell.params}</span>
          <span class="counters">
            <span class="k">scores</span>
            <span class="v"><span data-testid={`entries-${cell.id}`}>{fmtCount(cell.entries)}</span> <span class="share" data-testid={`share-${cell.id}`}>{shareOfDense(cell, figure.dense)}</span></span>
            <span class="k">FLOPs</span><span class="v" data-testid={`flops-${cell.id}`}>{fmtCount(cell.flops)}</span>
            <span class="k">memory</span><span class="v" data-testid={`memory-${cell.id}`}>{fmtBytes(cell.peakBytes)}</span>
          </span>
        </button>
      ))}
    </div>
  );
}
