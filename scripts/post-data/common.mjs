// What every post's table script shares (scripts/post-data/part<n>.mjs, one per post):
// loading a module the site ships, formatting numbers as the posts print them, and writing
// site/data/generated/<part>.json, or with --check failing when the committed file is stale.

import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

// A module of static/wasm/, loaded as tests/wasm/load.mjs does (Node's fetch cannot read a file
// path, so the .wasm bytes are passed in). name: 'flash' | 'inference' | 'classic'.
export async function loadModule(name) {
  const { default: create } = await import(join(repoRoot, 'static', 'wasm', `attn_${name}.js`));
  const wasmBinary = await readFile(join(repoRoot, 'static', 'wasm', `attn_${name}.wasm`));
  return create({ wasmBinary });
}

// A core error carries the whole minified loader in its stack: report the message only.
export function reportErrorsBriefly(script) {
  process.on('uncaughtException', (error) => {
    console.error(`${script}: ${error.message}`);
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------
// Formatting (every string a post's table shows is made by its script)

export const KiB = 1024, MiB = KiB ** 2, GiB = KiB ** 3, TiB = KiB ** 4;

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
// Three significant digits, trailing zeros dropped, thousands separated.
export function trim(x) {
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  const rounded = Number(x.toFixed(digits));
  return rounded.toLocaleString('en-US', { maximumFractionDigits: digits });
}

// ---------------------------------------------------------------------------------------------
// Measured tables: a benchmark run committed in site/data/bench/ (make bench)

// The committed run (site/data/bench/<machine>.json) whose CPU measurements Parts 2 and 4 show:
// the price of approximation and the decode table. Their prose quotes its numbers, which the site
// tests check, so the posts move to another run only when this names it. A new `make bench` writes
// its own file and changes nothing here.
export const POSTS_CPU_RUN = 'cpu-amd-epyc-2t';

// The committed run of `machine` (in `dir`), which must carry `section` of the summary ('approx',
// 'decode').
export async function benchRun(machine, section, dir = join(repoRoot, 'site', 'data', 'bench')) {
  const file = join(dir, `${machine}.json`);
  const run = JSON.parse(await readFile(file, 'utf8'));
  if (!(Array.isArray(run[section]) ? run[section].length : run[section])) {
    throw new Error(`${file} has no '${section}' measurements: pick a run of the whole benchmark (make bench)`);
  }
  return run;
}

// A measured table's source line: the machine, commit, date and command of its run.
export function benchSource(run, code) {
  const p = run.provenance;
  return `Measured: machine ${run.machine} (${p.cpu}, ${p.hardware_threads} threads, ${p.vector_isa ?? 'ISA not recorded'}), ${p.blas}, commit ${p.commit}, ${p.date}, command \`${p.command.trim()}\` (\`make bench\`, ${code}).`;
}

// ---------------------------------------------------------------------------------------------

// Writes site/data/generated/<part>.json, or with --check exits 1 when the committed file differs
// from this run's. The output holds no dates or timings: the same core gives the same bytes.
export async function writeGenerated(part, script, content) {
  const outFile = join(repoRoot, 'site', 'data', 'generated', `${part}.json`);
  const json = `${JSON.stringify({ generatedBy: script, ...content }, null, 2)}\n`;
  if (process.argv.includes('--check')) {
    const current = await readFile(outFile, 'utf8').catch(() => '');
    if (current !== json) {
      console.error(`${outFile} is stale: run node ${script}`);
      process.exit(1);
    }
  } else {
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, json);
    const counts = Object.entries(content).map(([key, v]) => `${Object.keys(v).length} ${key}`).join(', ');
    console.log(`Wrote ${outFile} (${counts})`);
  }
}
