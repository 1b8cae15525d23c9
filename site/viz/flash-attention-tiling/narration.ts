// One sentence per step saying what just happened, with the step's own numbers from the trace.
// Blocks and rows are numbered from 1, as in the FlashAttention papers' algorithms.
import type { FlashStep, StandardStep } from '../../../wasm/load';
import { fmt, fmtBytes } from '../shared/format';
import { focusRow, isFlashStep, rowState, stepBytes, type Run } from './model';

const f2 = (x: number) => fmt(x, 2);
const rows = (a: number, b: number) => (b - a === 1 ? `row ${a + 1}` : `rows ${a + 1}–${b}`);

export function narration(run: Run, at: number): string {
  const s = run.steps[at];
  return isFlashStep(s) ? flashSentence(run, at, s) : standardSentence(run, at, s);
}

function flashSentence(run: Run, at: number, s: FlashStep): string {
  const moved = stepBytes(s);
  const q = s.qBlock + 1, k = s.kBlock + 1;
  switch (s.kind) {
    case 'init_o':
      return `FlashAttention-1 starts by writing O = 0, ℓ = 0 and m = −∞ for all ${run.config.n} rows to HBM (${fmtBytes(moved.written)}): the outer loop runs over K/V blocks, so every Q block's state must wait in HBM between visits.`;
    case 'load_kv':
      return `K block ${k} and V block ${k} (keys ${s.colBegin + 1}–${s.colEnd}) are loaded into SRAM (${fmtBytes(moved.read)}) and stay there while every Q block streams past them.`;
    case 'load_q':
      return `Q block ${q} (${rows(s.rowBegin, s.rowEnd)}) is loaded into SRAM (${fmtBytes(moved.read)}). Its rows start empty: m = −∞, ℓ = 0, O = 0. It stays on chip while the K/V blocks stream past.`;
    case 'skip':
      return `Q block ${q} × K block ${k} is skipped: with the causal mask every key ${s.colBegin + 1}–${s.colEnd} comes after every query ${s.rowBegin + 1}–${s.rowEnd}, so nothing is loaded or computed.`;
    case 'write_o':
      return `Q block ${q} is finished: O = acc / ℓ and the log-sum-exp m + log ℓ are written to HBM once (${fmtBytes(moved.written)}). None of its scores or weights ever left SRAM.`;
    case 'tile': {
      const r = focusRow(s), local = r - s.rowBegin;
      const before = rowState(run, at - 1, r);
      const extra = run.config.order === 'fa1' ? ` FlashAttention-1 also re-read and re-wrote this block's O, ℓ, m in HBM (${fmtBytes(moved.written)} written).` : '';
      const head = `Q block ${q} × K block ${k}: `;
      if (!(before.m > -Infinity)) {
        return `${head}the first scores row ${r + 1} sees. Its running max is set to ${f2(s.m[local])} and ℓ to ${f2(s.l[local])}; there is nothing earlier to rescale.${extra}`;
      }
      if (s.rescale[local] < 1) {
        return `${head}running max of row ${r + 1} rises from ${f2(before.m)} to ${f2(s.m[local])}, previous output rescaled by ${f2(s.rescale[local])}; ℓ goes from ${f2(before.l)} to ${f2(s.l[local])}.${extra}`;
      }
      return `${head}no running max rises, so nothing is rescaled; the new weights add on (row ${r + 1}: ℓ from ${f2(before.l)} to ${f2(s.l[local])}).${extra}`;
    }
  }
}

function standardSentence(run: Run, at: number, s: StandardStep): string {
  const moved = stepBytes(s);
  const q = s.qBlock + 1, k = s.kBlock + 1;
  const stored = fmtBytes(run.nnBytes[at]);
  switch (s.kind) {
    case 'load_q':
      return `Standard attention, pass 1: Q block ${q} (${rows(s.rowBegin, s.rowEnd)}) is read from HBM (${fmtBytes(moved.read)}).`;
    case 'score_tile':
      return `S block (${q}, ${k}) = Q${q}·K${k}ᵀ is computed and written to HBM (${fmtBytes(moved.written)}). N×N intermediates in HBM so far: ${stored}.`;
    case 'softmax_rows': {
      const r = s.rowBegin;
      return `Pass 2: ${rows(s.rowBegin, s.rowEnd)} of S are read back (${fmtBytes(moved.read)}); row ${r + 1} has max ${f2(s.m[0])} and sum ${f2(s.l[0])}. P is written to HBM (${fmtBytes(moved.written)}); intermediates stored: ${stored}.`;
    }
    case 'pv_tile':
      return `Pass 3: P block (${q}, ${k}) and V block ${k} are read from HBM again (${fmtBytes(moved.read)}) to accumulate O for ${rows(s.rowBegin, s.rowEnd)}.`;
    case 'write_o':
      return `O for ${rows(s.rowBegin, s.rowEnd)} is written (${fmtBytes(moved.written)}). S and P (${stored}) still occupy HBM: 2 · N² values that FlashAttention never stores.`;
  }
}
