#!/usr/bin/env node
// Each visualization's interaction time on this machine: the browser tests' scripted sweep of its
// controls (interaction-sweeps.mjs), timed as they time it (interaction-timing.mjs), in headless
// Chromium at 1280 x 800, printed as one table with the machine it ran on. The figures are meant
// to recompute and repaint within one 60 Hz frame (16 ms) at the 95th percentile; this is how the
// author checks that on a reader-class machine, since the browser tests only print the numbers.
//
// Usage: node scripts/measure-interactions.mjs [--cpu-slowdown k] [name ...]   (all swept figures when none is named)
// WARM_PASSES=n times n warm passes instead of 3; the p95 of each pass shows whether the tail
// shrinks as the browser's JavaScript compilers catch up. ROUNDS=n loads each page n times (in
// turn with the other figures) and pools the warm passes: on a shared VM one load's p95 can move by
// a fifth between runs of the same build, and the pooled p95 with each load's own shows by how much.
// --cpu-slowdown k runs each page's main thread k times slower (Chromium's CPU throttling,
// Emulation.setCPUThrottlingRate), so that the target on a slower host kind (an AMD host with AVX2
// only is about 3x slower at these sweeps than an AVX-512 one) can be checked on a faster machine.
// The header names the CPU, its widest vector ISA and the slowdown; the floor shows what the
// slowdown made of this machine.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { launchChromium } from './chromium.mjs';
import { SWEEPS } from './interaction-sweeps.mjs';
import { floorSweep, p95By, percentile, sweepTimes } from './interaction-timing.mjs';
import { serveStatic } from './serve-static.mjs';

const STATIC = new URL('../static/', import.meta.url).pathname;
const FRAME_MS = 16;

const args = process.argv.slice(2);
const slowdownAt = args.indexOf('--cpu-slowdown');
const cpuSlowdown = slowdownAt < 0 ? 1 : Number(args[slowdownAt + 1]);
if (!(cpuSlowdown >= 1 && cpuSlowdown <= 20)) {
  console.error(`--cpu-slowdown takes a factor from 1 to 20, e.g. --cpu-slowdown 3 (got ${args[slowdownAt + 1]}).`);
  process.exit(2);
}
const wanted = slowdownAt < 0 ? args : args.filter((_, i) => i !== slowdownAt && i !== slowdownAt + 1);
const unknown = wanted.filter((n) => !SWEEPS.some((s) => s.name === n));
if (unknown.length) {
  console.error(`No sweep for ${unknown.join(', ')}; the swept figures are ${SWEEPS.map((s) => s.name).join(', ')}.`);
  process.exit(2);
}
const rounds = Number(process.env.ROUNDS ?? 1);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) {
  console.error(`ROUNDS must be an integer from 1 to 20 (got ${process.env.ROUNDS}).`);
  process.exit(2);
}
const warmPasses = Number(process.env.WARM_PASSES ?? 3);
if (!Number.isInteger(warmPasses) || warmPasses < 3) {
  console.error(`WARM_PASSES must be an integer of at least 3 (got ${process.env.WARM_PASSES}).`);
  process.exit(2);
}

// The widest vector extension the CPU offers, which sets how fast the browser's code runs here.
function vectorIsa() {
  try {
    const flags = new Set(readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1].trim().split(/\s+/));
    return ['avx512f', 'avx2', 'avx', 'sse4_2'].find((f) => flags.has(f)) ?? 'no AVX';
  } catch {
    return 'ISA unknown';
  }
}

const ms = (x) => x.toFixed(1);
const p95 = (xs) => percentile(xs, 0.95);
const server = await serveStatic(STATIC, 0);
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launchChromium();
const rows = [];
const machine = `${cpus().length} x ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${vectorIsa()}), Chromium ${browser.version()} ` +
  `(headless, software raster), CPU slowdown ${cpuSlowdown}x` + (cpuSlowdown > 1 ? ' (Emulation.setCPUThrottlingRate)' : '');
console.log(`Machine: ${machine}\n`);
// One load of a figure's page: a cold pass, the warm passes and the floor, each interaction's kind
// and warm pass kept.
async function measureOnce({ name, path, sweep }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base + path, { waitUntil: 'networkidle' });
  if (cpuSlowdown > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  const times = await sweepTimes(page, sweep, warmPasses);
  const floor = await sweepTimes(page, floorSweep);
  await context.close();
  if (errors.length) throw new Error(`${name}: ${errors.join('; ')}`);
  return { ...times, floor: floor.warm };
}

try {
  const figures = SWEEPS.filter((s) => !wanted.length || wanted.includes(s.name));
  // Rounds outermost, so that one figure's loads are spread over the run rather than all falling
  // in one slow or fast spell of a shared machine.
  const runs = figures.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, figure] of figures.entries()) runs[i].push(await measureOnce(figure));
  }
  for (const [i, { name }] of figures.entries()) {
    const all = (key) => runs[i].flatMap((r) => r[key]);
    const warm = all('warm'), cold = all('cold'), floor = all('floor');
    // A pass is named by its round and its number in the round.
    const warmPass = runs[i].flatMap((r, k) => r.warmPass.map((p) => `${k}.${p}`));
    const kinds = p95By(warm, all('warmKinds')).map(([kind, x]) => `${kind} ${ms(x)}`);
    const passes = p95By(warm, warmPass).map(([, x]) => ms(x));
    const perRound = runs[i].map((r) => ms(p95(r.warm)));
    rows.push([name, String(warm.length), ms(percentile(warm, 0.5)), ms(p95(warm)), kinds.join(', '), passes.join(', '),
      ...(rounds > 1 ? [perRound.join(', ')] : []), ms(p95(cold)), p95(warm) <= FRAME_MS ? 'yes' : 'no', ms(p95(floor))]);
  }
  const head = ['figure', 'warm interactions', 'median ms', 'p95 ms', 'p95 by kind', 'p95 by warm pass', ...(rounds > 1 ? ['p95 by round'] : []),
    'first pass p95', `p95 <= ${FRAME_MS} ms`, 'floor p95 ms'];
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => ' --- |').join('')}`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(`\nMeasured ${new Date().toISOString()} on ${machine}, ${rounds > 1 ? `${rounds} loads of each page, each with ` : ''}${warmPasses} warm passes after one cold pass. ` +
    'The floor is the same timing of an interaction that changes one text node of the page (floorSweep).');
} finally {
  await browser.close();
  server.close();
}
