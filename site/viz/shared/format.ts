// Number formatting for figures: fixed digits, a true minus sign, and ±∞ for infinities.
export function fmt(x: number, digits = 3): string {
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '−∞';
  if (Number.isNaN(x)) return 'NaN';
  const s = x.toFixed(digits);
  return (s.startsWith('-') ? '−' + s.slice(1) : s).replace(/^−(0\.0*)$/, '$1');
}
