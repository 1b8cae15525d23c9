// The loop being traced, as pseudo-code with the current step's line lit and the loop counters
// filled in: FlashAttention-2 (Q blocks outer, Algorithm 1 of the FA2 paper), FlashAttention-1
// (K/V blocks outer, Algorithm 1 of the FA1 paper) or standard attention (Algorithm 0).
import type { ComponentChildren } from 'preact';
import type { AnyStep, Run } from './model';

type Counter = 'i' | 'j';
interface Line { indent: number; text: string; kinds: string[]; loop?: Counter[] }

const FA2: Line[] = [
  { indent: 0, text: 'for each Q block i:', kinds: [], loop: ['i'] },
  { indent: 1, text: 'load Qᵢ to SRAM; m ← −∞, ℓ ← 0, acc ← 0', kinds: ['load_q'] },
  { indent: 1, text: 'for each K/V block j:', kinds: [], loop: ['j'] },
  { indent: 2, text: 'load Kⱼ, Vⱼ; S = QᵢKⱼᵀ; rescale and update m, ℓ, acc', kinds: ['tile'] },
  { indent: 2, text: 'causal: skip blocks whose keys all follow the queries', kinds: ['skip'] },
  { indent: 1, text: 'write Oᵢ = acc / ℓ and lse to HBM, once', kinds: ['write_o'] },
];
const FA1: Line[] = [
  { indent: 0, text: 'write O ← 0, ℓ ← 0, m ← −∞ to HBM', kinds: ['init_o'] },
  { indent: 0, text: 'for each K/V block j:', kinds: [], loop: ['j'] },
  { indent: 1, text: 'load Kⱼ, Vⱼ to SRAM', kinds: ['load_kv'] },
  { indent: 1, text: 'for each Q block i:', kinds: [], loop: ['i'] },
  { indent: 2, text: 'read Qᵢ, Oᵢ, ℓᵢ, mᵢ; S = QᵢKⱼᵀ; update; write Oᵢ, ℓᵢ, mᵢ back', kinds: ['tile'] },
  { indent: 2, text: 'causal: skip blocks whose keys all follow the queries', kinds: ['skip'] },
];
const STANDARD: Line[] = [
  { indent: 0, text: 'for each Q block i: read Qᵢ', kinds: ['load_q'], loop: ['i'] },
  { indent: 1, text: 'for each K block j: Sᵢⱼ = QᵢKⱼᵀ, write to HBM', kinds: ['score_tile'], loop: ['j'] },
  { indent: 0, text: 'for each Q block i: read Sᵢ, Pᵢ = softmax(Sᵢ), write to HBM', kinds: ['softmax_rows'], loop: ['i'] },
  { indent: 0, text: 'for each Q block i, K/V block j: read Pᵢⱼ, Vⱼ; Oᵢ += PᵢⱼVⱼ', kinds: ['pv_tile'], loop: ['i', 'j'] },
  { indent: 1, text: 'write Oᵢ to HBM', kinds: ['write_o'] },
];

// Which blocks a step is at, for the loop lines' counters (only those the step names).
const counters = (s: AnyStep) => ({
  i: s.rowEnd > s.rowBegin ? s.qBlock + 1 : null,
  j: s.colEnd > s.colBegin || s.kind === 'load_kv' ? s.kBlock + 1 : null,
});

export function Algorithm({ run, at, caption }: { run: Run; at: number; caption: ComponentChildren }) {
  const s = run.steps[at];
  const lines = run.config.mode === 'standard' ? STANDARD : run.config.order === 'fa2' ? FA2 : FA1;
  const c = counters(s);
  const total = { i: run.tr, j: run.tc };
  const title = run.config.mode === 'standard' ? 'Standard attention (FlashAttention paper, Algorithm 0)'
    : run.config.order === 'fa2' ? 'FlashAttention-2 loop order (FA2 paper, Algorithm 1)' : 'FlashAttention-1 loop order (FA1 paper, Algorithm 1)';
  return (
    <section class="card algorithm" aria-label="The algorithm, current line highlighted">
      <h2>{title}</h2>
      <ol class="code">
        {lines.map((line, k) => {
          const active = line.kinds.includes(s.kind);
          const shown = (line.loop ?? []).filter((v) => c[v] !== null);
          return (
            <li key={k} class={active ? 'active' : ''} style={{ paddingLeft: `${line.indent * 1.2 + 0.4}rem` }} aria-current={active ? 'step' : undefined}>
              <span>{line.text}</span>
              {shown.length > 0 && <span class="counter">{shown.map((v) => `${v} = ${c[v]} of ${total[v]}`).join(', ')}</span>}
            </li>
          );
        })}
      </ol>
      <p class="step-caption">{caption}</p>
    </section>
  );
}
