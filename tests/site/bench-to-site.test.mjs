// scripts/bench-to-site.mjs names a run's data file after the hardware: two CPUs that a virtual
// machine calls by one name must not overwrite each other's file, and BENCH_MACHINE chooses the name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = new URL('../../scripts/bench-to-site.mjs', import.meta.url).pathname;

// Converts a run with this context block (and no benchmarks) into a fresh directory; returns the
// converter's exit status, the files it wrote and the first file's contents.
function convert(context, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-to-site-'));
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ context, benchmarks: [] }));
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ratios: [], predictions: [] }));
  const out = join(dir, 'out');
  const { status, stderr } = spawnSync(process.execPath, [script, join(dir, 'run.json'), join(dir, 'summary.json'), out], {
    env: { ...process.env, BENCH_MACHINE: '', ...env }, encoding: 'utf8',
  });
  let files = [];
  try { files = readdirSync(out); } catch { /* nothing written */ }
  return { status, stderr, files, data: files.length ? JSON.parse(readFileSync(join(out, files[0]), 'utf8')) : null };
}

const zen4 = { cpu_model: 'AMD EPYC', cpu_id: 'AuthenticAMD family 25 model 17 stepping 1', hardware_threads: '2' };
const zen5 = { cpu_model: 'AMD EPYC', cpu_id: 'AuthenticAMD family 26 model 2 stepping 1', hardware_threads: '2' };

test('a CPU run is named by model, x86 family and model, and thread count', () => {
  const { status, files, data } = convert(zen4);
  assert.equal(status, 0);
  assert.deepEqual(files, ['cpu-amd-epyc-family25-model17-2t.json']);
  assert.equal(data.provenance.cpu_id, zen4.cpu_id);
});

test('two CPUs sold under one name get two files', () => {
  assert.notDeepEqual(convert(zen4).files, convert(zen5).files);
});

test('a run without the CPU identity keeps the model-and-threads name', () => {
  assert.deepEqual(convert({ cpu_model: 'Intel(R) Xeon(R) Processor', hardware_threads: '2' }).files, ['cpu-intel-xeon-processor-2t.json']);
});

test('BENCH_MACHINE names the file, and a label outside [a-z0-9-] is refused', () => {
  assert.deepEqual(convert(zen4, { BENCH_MACHINE: 'zen4-lab' }).files, ['zen4-lab.json']);
  const bad = convert(zen4, { BENCH_MACHINE: 'Zen 4' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /BENCH_MACHINE must be lower-case letters, digits and '-'/);
  assert.deepEqual(bad.files, []);
});
