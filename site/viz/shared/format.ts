// Number formatting for figures: fixed digits, a true minus sign, and ±∞ for infinities.
export function fmt(x: number, digits = 3): string {
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '−∞';
  if (Number.isNaN(x)) return 'NaN';
  const s = x.toFixed(digits);
  return (s.startsWith('-') ? '−' + s.slice(1) : s).replace(/^−(0\.0*)$/, '$1');
}

// A whole number with thousands separators (12,288). One formatter for the page: toLocaleString
// builds a new one on every call, which costs about a millisecond per interaction in a figure
// that prints a few dozen numbers.
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const fmtInt = (x: number): string => WHOLE.format(x);

// Bytes in binary (IEC) units, so GPU capacities (40 GiB HBM, 192 KiB SRAM per SM) read exactly.
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
export function fmtBytes(bytes: number, digits = 1): string {
  if (!Number.isFinite(bytes)) return fmt(bytes, digits);
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) { v /= 1024; u += 1; }
  return `${bytes < 0 ? '−' : ''}${u === 0 ? Math.round(v) : v.toFixed(digits)} ${BYTE_UNITS[u]}`;
}

// Seconds in the unit that keeps three significant digits or so: 1.59 ms, 220 µs, 13.8 µs.
export function fmtSeconds(s: number): string {
  if (!Number.isFinite(s)) return fmt(s);
  if (s >= 1) return `${s.toFixed(2)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toFixed(s >= 0.1 ? 0 : s >= 0.01 ? 1 : 2)} ms`;
  if (s >= 1e-6) return `${(s * 1e6).toFixed(s >= 1e-4 ? 0 : s >= 1e-5 ? 1 : 2)} µs`;
  return `${(s * 1e9).toFixed(0)} ns`;
}

// Large counts (entries, FLOPs) with an SI prefix and three significant digits: 67.1 M, 17.3 G;
// below 10,000 the whole number with thousands separators.
const SI_PREFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;
export function fmtCount(x: number): string {
  if (!Number.isFinite(x)) return fmt(x, 0);
  if (Math.abs(x) < 10000) return fmtInt(Math.round(x));
  let v = Math.abs(x), u = 0;
  while (v >= 999.5 && u < SI_PREFIXES.length - 1) { v /= 1000; u += 1; }
  return `${x < 0 ? '−' : ''}${v.toPrecision(3)} ${SI_PREFIXES[u]}`;
}
