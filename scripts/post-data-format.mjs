// Number formatting shared by the posts' generated tables (scripts/post-data.mjs and the modules it
// runs): every string a data-table shows is made with these, so the posts print numbers alike.

export const KiB = 1024, MiB = KiB ** 2, GiB = KiB ** 3, TiB = KiB ** 4;

// Three significant digits, trailing zeros dropped, thousands separated.
export function trim(x) {
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  const rounded = Number(x.toFixed(digits));
  return rounded.toLocaleString('en-US', { maximumFractionDigits: digits });
}

// Binary units, as many digits as the value needs up to three significant ones ("32 MiB", "1.5 GiB").
export function bytes(n) {
  const units = [['TiB', TiB], ['GiB', GiB], ['MiB', MiB], ['KiB', KiB]];
  for (const [name, size] of units) if (n >= size) return `${trim(n / size)} ${name}`;
  return `${n} B`;
}
// Vendor (decimal) units for capacities and bandwidths as datasheets print them.
export const decimalGB = (n) => `${trim(n / 1e9)} GB`;
export const bandwidth = (n) => (n >= 1e12 ? `${trim(n / 1e12)} TB/s` : `${trim(n / 1e9)} GB/s`);
// Datasheets print peaks to one decimal at most (989.5, 1,979): keep that precision.
export const tflops = (n) => `${Number((n / 1e12).toFixed(1)).toLocaleString('en-US', { maximumFractionDigits: 1 })} TFLOP/s`;
export const perCent = (x, digits = 0) => `${(100 * x).toFixed(digits)}%`;
export const times = (x, digits = 2) => `${x.toFixed(digits)}×`;
export const fixed = (x, digits) => x.toFixed(digits);
export const perCentRange = (lo, hi, digits = 0) => `${fixed(100 * lo, digits)}–${perCent(hi, digits)}`;
export const integer = (n) => n.toLocaleString('en-US');
