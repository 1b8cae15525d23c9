// One or two sentences per step, from the step's events in both replays and the states the stepper
// returned for it: arrivals the contiguous pool refuses and the paged pool admits, forks that share
// a prompt's blocks, copy-on-write, preemption, finishes; otherwise what the step cost each pool.
import { eventRange, timelineIndex, type Figure, type StepState } from './model';
import { fmtInt as n } from '../shared/format';

const pct = (x: number) => `${Math.round(100 * x)} %`;
const plural = (k: number, word: string) => `${n(k)} ${word}${k === 1 ? '' : 's'}`;

/** Blocks the paged pool holds for request r in this state (shared blocks once). */
function blocksOf(st: StepState, r: number): number {
  const blocks = new Set<number>();
  for (const q of st.paged.sequences ?? []) if (q.request === r) q.blockTable.forEach((b) => blocks.add(b));
  return blocks.size;
}

/** The slots one contiguous range of request r takes: its admit event, whenever that happens. */
function reservationOf(f: Figure, r: number): number | null {
  const e = f.contiguous.events;
  for (let i = 0; i < e.kind.length; i++) if (e.kind[i] === 'admit' && e.request[i] === r) return e.reservedSlots[i];
  return null;
}

interface StepEvents { kind: string[]; request: number[]; sample: number[]; tokens: number[]; physicalBlock: number[]; copiedFrom: number[]; appendKind: (string | null)[] }

function eventsOf(f: Figure, which: 'paged' | 'contiguous', step: number): StepEvents {
  const replay = which === 'paged' ? f.paged : f.contiguous;
  const [a, b] = eventRange(which === 'paged' ? f.pagedStart : f.contiguousStart, step);
  const e = replay.events;
  return {
    kind: e.kind.slice(a, b), request: [...e.request.subarray(a, b)], sample: [...e.sample.subarray(a, b)], tokens: [...e.tokens.subarray(a, b)],
    physicalBlock: [...e.physicalBlock.subarray(a, b)], copiedFrom: [...e.copiedFrom.subarray(a, b)], appendKind: e.appendKind.slice(a, b),
  };
}

const has = (ev: StepEvents, kind: string, r: number) => ev.kind.some((k, i) => k === kind && ev.request[i] === r);

/** First step the contiguous pool admits each request (Infinity if it never does). */
function contiguousAdmitStep(f: Figure, r: number): number {
  const e = f.contiguous.events;
  for (let i = 0; i < e.kind.length; i++) if (e.kind[i] === 'admit' && e.request[i] === r) return e.step[i];
  return Infinity;
}

// Why the contiguous pool does not admit request r on arrival: an earlier request still waits at
// the head of its first-come-first-served queue, or its ranges do not fit the holes there are.
function whyContiguousWaits(f: Figure, st: StepState, r: number): string {
  const step = st.step;
  const ahead = f.contiguous.requests.filter((q) => q.id < r && q.arrivalStep <= step && contiguousAdmitStep(f, q.id) > step
    && !f.contiguous.events.kind.some((k, i) => k === 'reject' && f.contiguous.events.request[i] === q.id));
  if (ahead.length) return `the contiguous queue is held by request ${ahead[0].id} (first come, first served)`;
  const need = reservationOf(f, r) ?? 0, samples = f.contiguous.requests[r].outputTokens.length;
  const free = st.contiguous.stats.freeSlots, largest = st.contiguous.stats.largestHoleSlots;
  if (largest < need) return `the contiguous pool has ${n(free)} free slots but no run of ${n(need)}`;
  if (samples * need > free) return `the contiguous pool has ${n(free)} free slots, too few for ${samples} ranges of ${n(need)}`;
  return `the contiguous pool's holes cannot take ${samples} ranges of ${n(need)} slots`;
}

export function narration(f: Figure, st: StepState): string {
  const step = st.step;
  const p = eventsOf(f, 'paged', step), c = eventsOf(f, 'contiguous', step);
  const capacity = f.paged.capacitySlots;
  const said: string[] = [];

  p.kind.forEach((k, i) => {
    if (k !== 'arrive') return;
    const r = p.request[i], q = f.paged.requests[r];
    const samples = q.outputTokens.length;
    const what = `request ${r} arrives (${q.promptTokens}-token prompt${samples > 1 ? `, ${samples} samples` : ''})`;
    const blocks = blocksOf(st, r);
    const paging = !has(p, 'admit', r) ? 'the paged pool queues it too'
      : blocks > 0 ? `paging gives it ${plural(blocks, 'block')}` : 'paging admits it at once (and it finishes within the step)';
    if (has(c, 'reject', r)) {
      said.push(`${what}; its ${samples} max-length ranges exceed the whole ${n(capacity)}-slot contiguous pool — rejected; ${paging}`);
    } else if (!has(c, 'admit', r)) {
      said.push(`${what}; ${whyContiguousWaits(f, st, r)} — it must wait; ${paging}`);
    } else {
      said.push(`${what}; the contiguous pool reserves ${samples > 1 ? `${samples} ranges` : 'a range'} of ${n(reservationOf(f, r) ?? 0)} slots; ${paging}`);
    }
  });
  c.kind.forEach((k, i) => {
    const r = c.request[i];
    if (k === 'admit' && c.sample[i] === 0 && !has(c, 'arrive', r)) {
      said.push(`after ${step - f.contiguous.requests[r].arrivalStep} steps of waiting, request ${r} fits the contiguous pool`);
    }
  });
  const forks = new Map<number, number>();
  p.kind.forEach((k, i) => { if (k === 'fork') forks.set(p.request[i], (forks.get(p.request[i]) ?? 1) + 1); });
  for (const [r, samples] of forks) {
    const prompt = f.paged.requests[r].promptTokens;
    said.push(`request ${r}'s ${samples} samples share its prompt's ${plural(Math.ceil(prompt / f.paged.blockSize), 'block')} (${samples} tables, the same physical blocks)`);
  }
  p.appendKind.forEach((a, i) => {
    if (a === 'copy_on_write') {
      said.push(`sample ${p.sample[i]} of request ${p.request[i]} writes into a shared block, so block ${p.copiedFrom[i]} is first copied to block ${p.physicalBlock[i]} (copy-on-write)`);
    }
  });
  const preempted = new Map<number, number>();
  p.kind.forEach((k, i) => { if (k === 'preempt') preempted.set(p.request[i], (preempted.get(p.request[i]) ?? 0) + p.tokens[i]); });
  for (const [r, tokens] of preempted) {
    said.push(`no free block for the next token: request ${r}, the latest admitted, is preempted (${plural(tokens, 'token')} to recompute)`);
  }
  const finished = (ev: StepEvents) => [...new Set(ev.request.filter((_, i) => ev.kind[i] === 'finish'))];
  const pf = finished(p), cf = finished(c);
  if (pf.length || cf.length) {
    const list = (rs: number[]) => rs.map((r) => `request ${r}`).join(' and ');
    if (pf.length) said.push(`${list(pf)} ${pf.length > 1 ? 'finish' : 'finishes'} in the paged pool`);
    if (cf.length) said.push(`${list(cf)} ${cf.length > 1 ? 'finish' : 'finishes'} in the contiguous pool, returning ${cf.length > 1 ? 'their ranges' : 'its range'}`);
  }

  if (said.length === 0) {
    const ct = timelineIndex(f.contiguous, step), pt = timelineIndex(f.paged, step);
    const cl = f.contiguous.timeline, pl = f.paged.timeline;
    const waste = (cl.reservedFutureSlots[ct] + cl.internalFragmentationSlots[ct] + cl.externalFragmentationSlots[ct]) / capacity;
    return `Step ${step}: ${plural(cl.runningRequests[ct], 'request')} decode in the contiguous pool and ${n(pl.runningRequests[pt])} in the paged pool, one token per sample. ` +
      `Contiguous reservations waste ${pct(waste)} of the memory; paging wastes ${pct(pl.internalFragmentationSlots[pt] / capacity)} (unfilled last blocks).`;
  }
  const text = said.slice(0, 2).join('; ');
  return `Step ${step}: ${text}.${said.length > 2 ? ` (+${said.length - 2} more event${said.length > 3 ? 's' : ''})` : ''}`;
}
