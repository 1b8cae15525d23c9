// The tokens and the bucket directions over the plane, painted on one canvas. A step that moves
// them (onto the unit circle and back) glides them there in a requestAnimationFrame tween on the
// theme's easing curve: as 40 HTML boxes with CSS transform transitions, starting the slides cost
// the step's first frame about 5 ms more at 3x CPU slowdown (a compositor animation and its layer
// per box), where repainting 40 marks per frame costs a fraction of a millisecond. New settings
// (`snap`) and reduced motion place them at once. The canvas lists its tokens in data-tokens, and
// data-settled says whether it shows them where they belong or on a glide towards there.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { cssPixelContext } from '../shared/canvas';
import { reducedMotion, themeEase as ease } from '../shared/motion';
import { colors } from '../shared/theme';

export interface TokenMark { token: number; bucket: number; x: number; y: number; color: string }
export interface DirectionMark { angle: number; length: number; color: string }
/** What the canvas shows: the tokens, the directions from the centre (angle in radians,
 *  counter-clockwise on screen) and the directions' opacity (0 before the rotation step). */
export interface Marks { tokens: TokenMark[]; directions: DirectionMark[]; directionAlpha: number }

const SLIDE_MS = 800, TURN_MS = 1000, FADE_MS = 400;
const TAU = 2 * Math.PI;

/** The marks `ms` into a glide from `a` to `b` (same tokens and directions); colours and lengths are b's. */
function between(a: Marks, b: Marks, ms: number): Marks {
  const k = (duration: number) => ease(Math.min(1, ms / duration));
  const slide = k(SLIDE_MS), turn = k(TURN_MS), fade = k(FADE_MS);
  return {
    tokens: b.tokens.map((t, i) => ({ ...t, x: a.tokens[i].x + (t.x - a.tokens[i].x) * slide, y: a.tokens[i].y + (t.y - a.tokens[i].y) * slide })),
    directions: b.directions.map((d, i) => ({ ...d, angle: a.directions[i].angle + (d.angle - a.directions[i].angle) * turn })),
    directionAlpha: a.directionAlpha + (b.directionAlpha - a.directionAlpha) * fade,
  };
}

const glideMs = (a: Marks, b: Marks) => Math.max(
  a.tokens.some((t, i) => t.x !== b.tokens[i].x || t.y !== b.tokens[i].y) ? SLIDE_MS : 0,
  a.directions.some((d, i) => d.angle !== b.directions[i].angle) ? TURN_MS : 0,
  a.directionAlpha !== b.directionAlpha ? FADE_MS : 0);

const comparable = (a: Marks, b: Marks) => a.tokens.length === b.tokens.length && a.directions.length === b.directions.length;

// A direction: a 2 px bar from the centre with a dot at its end. A token: a dot in its colour
// with a 1 px ring of the page's background, so overlapping tokens stay apart.
function paint(canvas: HTMLCanvasElement, size: number, m: Marks, tokenR: number) {
  const g = cssPixelContext(canvas, size, size);
  const c = size / 2;
  g.clearRect(0, 0, size, size);
  g.globalAlpha = m.directionAlpha;
  g.lineWidth = 2;
  for (const d of m.directions) {
    const x = c + d.length * Math.cos(d.angle), y = c - d.length * Math.sin(d.angle);
    g.strokeStyle = g.fillStyle = d.color;
    g.beginPath();
    g.moveTo(c, c);
    g.lineTo(x, y);
    g.stroke();
    g.beginPath();
    g.arc(x, y, 2.5, 0, TAU);
    g.fill();
  }
  g.globalAlpha = 1;
  g.lineWidth = 1;
  g.strokeStyle = colors.bg;
  for (const t of m.tokens) {
    g.fillStyle = t.color;
    g.beginPath();
    g.arc(t.x, t.y, tokenR, 0, TAU);
    g.fill();
    g.beginPath();
    g.arc(t.x, t.y, tokenR - 0.5, 0, TAU);
    g.stroke();
  }
}

export function MarksCanvas({ marks, size, tokenR, snap }: { marks: Marks; size: number; tokenR: number; snap: boolean }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // What the canvas shows now: a new glide starts from there, even halfway through the last one.
  const shown = useRef<Marks | null>(null);
  useLayoutEffect(() => {
    const el = canvas.current!;
    const from = shown.current;
    const ms = from && !snap && !reducedMotion.value && comparable(from, marks) ? glideMs(from, marks) : 0;
    const show = (m: Marks, settled: boolean) => {
      shown.current = m;
      el.dataset.settled = String(settled);
      paint(el, size, m, tokenR);
    };
    if (ms === 0) { show(marks, true); return; }
    const start = performance.now();
    let frame = 0;
    const tick = () => {
      const t = performance.now() - start;
      if (t >= ms) { show(marks, true); return; }
      show(between(from!, marks, t), false);
      frame = requestAnimationFrame(tick);
    };
    tick();
    return () => cancelAnimationFrame(frame);  // new marks, or the canvas gone
  }, [marks, size, tokenR, snap]);
  return (
    <canvas ref={canvas} class="scatter-marks" aria-hidden="true" style={{ width: `${size}px`, height: `${size}px` }}
      data-testid="tokens"
      data-tokens={JSON.stringify(marks.tokens.map(({ token, bucket, x, y }) => ({ token, bucket, x: +x.toFixed(2), y: +y.toFixed(2) })))} />
  );
}
