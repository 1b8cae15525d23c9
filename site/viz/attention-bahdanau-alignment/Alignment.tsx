// The alignment drawing, one decoder step at a time: the source words across the top, the scores
// e_ij of the current step as a row of bars over them, the heatmap of alpha_ij (one row per emitted
// French word, filled up to the current step), and below it the step's vectors as strips: the
// query s_{i-1}, the strongest annotation h_j* and the context c_i = sum_j alpha_ij h_j.
// Drawn in CSS pixels at the element's width, so the words keep their size on a phone.
import { cubicBezier } from 'motion';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { cssPixelContext, fitText, growingContext, textWidth } from '../shared/canvas';
import { reducedMotion } from '../shared/motion';
import { colors } from '../shared/theme';
import { useWidth } from '../shared/useWidth';
import { rowOf, type Figure } from './model';

// Heights of the score bars' row and of each vector strip (and the gap between strips): wide, phone.
const BAR_H = [48, 36];
const STRIP_H = [14, 10];
const STRIP_GAP = [6, 4];

// A vector strip's label and frame; its cells are painted by StripCells.
function Strip({ label, x0, width, y, height, testid, font }: {
  label: string; x0: number; width: number; y: number; height: number; testid: string; font: number;
}) {
  return (
    <g data-testid={testid}>
      <text x={x0 - 8} y={y + height / 2} class="row-label" text-anchor="end" dominant-baseline="middle" font-size={font}
        {...fitText(label, `${font}px system-ui, sans-serif`, x0 - 12)}>{label}</text>
      <rect x={x0} y={y} width={width} height={height} class="strip-frame" />
    </g>
  );
}

// The cells of the step's three vector strips (query, annotation, context), painted on one canvas
// laid over the strips' frames: each value of a state vector (each in (-1, 1): GRU states and their
// averages) blue for positive, red for negative, opacity by magnitude. As SVG rectangles, a step
// rewrote the fill and opacity of some 160 of them, and their restyle and layout were the largest
// part of the step's time. The values drawn are listed in data-strips.
interface StripValues { query: Float64Array; annotation: Float64Array; context: Float64Array }
function StripCells({ strips, left, top, width, stripH, gap }: { strips: StripValues; left: number; top: number; width: number; stripH: number; gap: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const rows = [strips.query, strips.annotation, strips.context];
  const height = rows.length * (stripH + gap) - gap;
  useLayoutEffect(() => {
    const g = cssPixelContext(canvas.current!, width, height);
    g.clearRect(0, 0, width, height);
    rows.forEach((values, s) => {
      const w = width / values.length, y = s * (stripH + gap);
      for (let k = 0; k < values.length; k++) {
        const v = values[k];
        g.globalAlpha = Math.min(1, Math.abs(v));
        g.fillStyle = v >= 0 ? colors.active : colors.hbm;
        g.fillRect(k * w, y, Math.max(w - 0.5, 0.5), stripH);
      }
    });
    g.globalAlpha = 1;
  });
  return (
    <canvas ref={canvas} class="strip-canvas" aria-hidden="true" data-testid="strip-cells"
      data-strips={JSON.stringify({ query: Array.from(strips.query), annotation: Array.from(strips.annotation), context: Array.from(strips.context) })}
      style={{ left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` }} />
  );
}

// The score bars of a step, painted on a canvas laid over the drawing's bar band. Each bar glides
// from where it is drawn to its new top and height over GLIDE_MS on CSS's 'ease' (snapped under
// reduced motion): one canvas repainted per frame, where a CSS transition of y and height on each
// of the bars' SVG elements restyled and laid out every bar on every frame, about a third of a
// step's main-thread time. The bars' values, tops and heights (in the drawing's coordinates) are in
// data-bars; data-gliding is set while a glide runs.
interface ScoreBar { score: number; x: number; y: number; w: number; h: number; strongest: boolean }
const GLIDE_MS = 300;
const ease = cubicBezier(0.25, 0.1, 0.25, 1);

function ScoreBars({ bars, left, top, width, height }: { bars: ScoreBar[]; left: number; top: number; width: number; height: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const shown = useRef<{ y: number; h: number }[]>([]);  // each bar as last painted
  const frame = useRef(0);
  useLayoutEffect(() => {
    const el = canvas.current!, from = reducedMotion.value ? [] : shown.current, start = performance.now();
    const paint = (p: number) => {
      const g = cssPixelContext(el, width, height);
      g.clearRect(0, 0, width, height);
      shown.current = bars.map((b, j) => {
        const a = from[j] ?? b, y = a.y + (b.y - a.y) * p, h = a.h + (b.h - a.h) * p;
        g.fillStyle = b.strongest ? colors.sram : colors.muted;
        g.fillRect(b.x - left, y - top, b.w, h);
        return { y, h };
      });
    };
    const tick = () => {
      const p = Math.min(1, (performance.now() - start) / GLIDE_MS);
      paint(ease(p));
      if (p < 1) frame.current = requestAnimationFrame(tick);
      else el.removeAttribute('data-gliding');
    };
    cancelAnimationFrame(frame.current);
    // A glide starts from what is on screen, so its first paint waits for the next frame.
    if (bars.some((b, j) => from[j] && (from[j].y !== b.y || from[j].h !== b.h))) {
      el.setAttribute('data-gliding', '');
      frame.current = requestAnimationFrame(tick);
    } else {
      el.removeAttribute('data-gliding');
      paint(1);
    }
  }, [bars, left, top, width, height]);
  useLayoutEffect(() => () => cancelAnimationFrame(frame.current), []);
  return (
    <canvas ref={canvas} class="score-canvas" aria-hidden="true" data-testid="score-bars-canvas"
      data-bars={JSON.stringify(bars.map((b) => ({ score: b.score, y: b.y, height: b.h, strongest: b.strongest })))}
      style={{ left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` }} />
  );
}

// The heatmap, painted on one canvas laid over the grid: each emitted row's weights α_ij (blue,
// opacity α), a dashed outline for each row still to come, the current row's outline and the
// grid's frame. As SVG, a new sentence created and styled a rectangle per cell. The weights drawn,
// row by row, are listed in data-alphas, and where the cells lie on the canvas (CSS px) in data-grid.
const HEAT_PAD = 1;  // room for the outlines' width around the grid
function HeatCells({ f, step, left, top, width, cellH, alphasJson }: {
  f: Figure; step: number; left: number; top: number; width: number; cellH: number; alphasJson: string[];
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const height = f.ty * cellH;
  useLayoutEffect(() => {
    const g = growingContext(canvas.current!, width + 2 * HEAT_PAD, height + 2 * HEAT_PAD);
    g.translate(HEAT_PAD, HEAT_PAD);
    const cellW = width / f.tx;
    g.fillStyle = colors.active;
    for (let i = 0; i <= step; i++) {
      const a = rowOf(f.alignment, i);
      for (let j = 0; j < f.tx; j++) {
        g.globalAlpha = a[j];
        g.fillRect(j * cellW + 0.25, i * cellH + 0.25, cellW - 0.5, cellH - 0.5);
      }
    }
    g.globalAlpha = 1;
    g.setLineDash([3, 3]);
    g.strokeStyle = colors.border;
    g.lineWidth = 1;
    for (let i = step + 1; i < f.ty; i++) g.strokeRect(0.5, i * cellH + 0.5, width - 1, cellH - 1);
    g.setLineDash([]);
    g.strokeRect(0, 0, width, height);
    g.strokeStyle = colors.text;
    g.lineWidth = 1.5;
    g.strokeRect(0, step * cellH, width, cellH);
  }, [f, step, width, cellH]);
  return (
    <canvas ref={canvas} class="heat-canvas" aria-hidden="true" data-testid="heat-cells" data-alphas={`[${alphasJson.slice(0, step + 1).join(',')}]`}
      data-grid={JSON.stringify({ x: HEAT_PAD, y: HEAT_PAD, cellW: width / f.tx, cellH })} style={{ left: `${left - HEAT_PAD}px`, top: `${top - HEAT_PAD}px` }} />
  );
}

export function Alignment({ figure: f, step }: { figure: Figure; step: number }) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const narrow = width < 640;
  const labelW = narrow ? 78 : 104;
  const right = narrow ? 22 : 30;  // room for the last source word, drawn at an angle
  const gridW = Math.max(width - labelW - right, 40);
  const cellW = gridW / f.tx;
  // Rows share a fixed height budget, so a long translation makes the rows thinner, not the frame taller.
  const cellH = Math.min(Math.max(cellW * 0.75, 13), 18, Math.max((narrow ? 200 : 270) / f.ty, 9));
  const labelFont = narrow ? 11 : 13;
  const rowFont = Math.min(labelFont, cellH);
  // The source words, at an angle: as tall as the longest one needs (its width times sin 55°).
  const longest = Math.max(...f.source.map((w) => textWidth(w, `650 ${labelFont}px system-ui, sans-serif`)));
  const headH = Math.ceil(longest * Math.sin((55 * Math.PI) / 180)) + 10;
  const size = narrow ? 1 : 0;
  const barH = BAR_H[size], stripH = STRIP_H[size], stripGap = STRIP_GAP[size];
  const barTop = headH, gridTop = headH + barH + 6;
  const gridH = f.ty * cellH;
  const stripsTop = gridTop + gridH + (narrow ? 8 : 14);
  const height = stripsTop + 3 * (stripH + stripGap);
  const x = (j: number) => labelW + j * cellW;
  const y = (i: number) => gridTop + i * cellH;
  // Each row's weights as JSON, for the heatmap canvas's list of what it draws.
  const alphasJson = useMemo(() => f.target.map((_, i) => JSON.stringify(Array.from(rowOf(f.alignment, i)))), [f]);
  const a = rowOf(f.alignment, step);
  const span = f.scoreMax - f.scoreMin || 1;
  const zeroY = barTop + (barH * f.scoreMax) / span;  // the bars' baseline, e = 0
  const strongest = f.strongest[step];
  const bars = useMemo(() => Array.from(rowOf(f.scores, step), (v, j) => {
    const y = barTop + (barH * (f.scoreMax - v)) / span;
    return { score: v, x: x(j) + cellW * 0.15, y: Math.min(y, zeroY), w: cellW * 0.7, h: Math.max(Math.abs(y - zeroY), 0.5), strongest: j === strongest };
  }), [f, step, labelW, cellW, barTop, barH]);
  return (
    <div ref={ref} class="alignment-frame" data-drawing>
      <svg class="alignment" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img"
        aria-label={`Alignment of ${f.tx} source tokens and ${f.ty} output words; step ${step + 1}: ${f.target[step]} puts ${a[strongest].toFixed(2)} of its weight on ${f.source[strongest]}`}>
        <g class="source-words" data-testid="source-words">
          {f.source.map((w, j) => (
            <text key={j} transform={`translate(${x(j) + cellW / 2 + 4} ${headH - 4}) rotate(-55)`} font-size={labelFont}
              class={j === strongest ? 'col-label current' : 'col-label'}>{w}</text>
          ))}
        </g>
        <g class="score-bars" data-testid="score-bars">
          <text x={labelW - 8} y={barTop + barH / 2} class="row-label" text-anchor="end" dominant-baseline="middle" font-size={labelFont}>scores e</text>
          <line x1={labelW} x2={labelW + gridW} y1={zeroY} y2={zeroY} class="baseline" />
        </g>
        <g class="heatmap" data-testid="heatmap">
          {f.target.map((word, i) => {
            const state = i < step ? 'done' : i === step ? 'current' : 'pending', current = i === step;
            return (
              <g key={i} data-testid={`row-${i}`} data-state={state}>
                <text x={labelW - 8} y={y(i) + cellH / 2} class={current ? 'row-label current' : 'row-label'} text-anchor="end"
                  dominant-baseline="middle" font-size={rowFont}
                  {...(i <= step ? fitText(word, `${current ? 650 : 400} ${rowFont}px system-ui, sans-serif`, labelW - 12) : {})}>{i <= step ? word : ''}</text>
              </g>
            );
          })}
        </g>
        <g class="strips">
          <Strip label="query s(i−1)" x0={labelW} width={gridW} y={stripsTop} height={stripH}
            testid="query-strip" font={labelFont} />
          <Strip label={`h ‘${f.source[strongest]}’`} x0={labelW} width={gridW} y={stripsTop + stripH + stripGap} height={stripH}
            testid="annotation-strip" font={labelFont} />
          <Strip label="context c(i)" x0={labelW} width={gridW} y={stripsTop + 2 * (stripH + stripGap)}
            height={stripH} testid="context-strip" font={labelFont} />
        </g>
      </svg>
      <ScoreBars bars={bars} left={labelW} top={barTop} width={gridW} height={barH} />
      <HeatCells f={f} step={step} left={labelW} top={gridTop} width={gridW} cellH={cellH} alphasJson={alphasJson} />
      <StripCells strips={{ query: rowOf(f.queries, step), annotation: rowOf(f.annotations, strongest), context: rowOf(f.contexts, step) }}
        left={labelW} top={stripsTop} width={gridW} stripH={stripH} gap={stripGap} />
    </div>
  );
}
