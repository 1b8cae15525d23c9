// A logarithmic axis: maps [lo, hi] (both > 0) onto [from, to] in pixels, and the powers of `base`
// inside it as tick values. For charts whose quantities span decades (bytes per request, FLOP/s).
export interface LogScale {
  (v: number): number;
  lo: number;
  hi: number;
  ticks(base?: number): number[];
}

export function logScale(lo: number, hi: number, from: number, to: number): LogScale {
  const l0 = Math.log(lo), span = Math.log(hi) - l0;
  const scale = ((v: number) => from + ((Math.log(v) - l0) / span) * (to - from)) as LogScale;
  scale.lo = lo;
  scale.hi = hi;
  scale.ticks = (base = 10) => {
    const out: number[] = [];
    for (let e = Math.ceil(Math.log(lo) / Math.log(base) - 1e-9); base ** e <= hi * (1 + 1e-9); e++) out.push(base ** e);
    return out;
  };
  return scale;
}
