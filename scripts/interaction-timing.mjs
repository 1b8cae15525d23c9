// Interaction latency over a scripted sweep of a figure's controls, as the browser tests print it
// and `make interaction-times` reports it.
//
// `sweep` runs in the page and receives `time(act, kind)` and the helpers interaction-sweeps.mjs
// describes (`setValue`, `step`; a sweep is page code, so it cannot import them). `time` performs
// one interaction the way a reader's click arrives, between two frames, and records the
// main-thread time it costs until the result is on screen: the recompute (the handler, the re-render, which Preact runs after a
// microtask, and style and layout, forced right away so that no task in between can take them out
// of the count) plus the frame that shows it (animation callbacks, paint and commit, from the
// frame's start to the end of its task). The idle wait for the next frame is not counted, nor is
// rasterisation, which runs on other threads. The sweep starts once the page's entry animations
// (its finite ones) have finished, as a reader's first click would. `cold` is the first pass,
// which also pays one-off costs (JavaScript and WebAssembly functions compiled on first use, first
// results computed); `warm` is `warmPasses` more passes (at least three, so that the 95th
// percentile rests on more than two or three samples), the steady state of a reader working the
// controls. Returns both, in milliseconds, with `warmKinds`, the `kind` each warm interaction was
// timed under (e.g. 'step' or 'setting'; 'interaction' when not given), so a summary can say
// which kind of interaction sets the p95, and `warmPass`, the pass each warm interaction belongs
// to, so it can show whether the tail shrinks as the browser's compilers catch up.
export async function sweepTimes(page, sweep, warmPasses = 3) {
  return page.evaluate(`(async () => {
    await Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished));
    // A message posted now is delivered after the current task (and any frame that task runs).
    const afterTask = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
    // The next frame's main-thread time: from its animation callbacks to the end of its paint and commit.
    const nextFrame = () => new Promise((r) => requestAnimationFrame(() => { const t0 = performance.now(); afterTask().then(() => r(performance.now() - t0)); }));
    // A control's new value with the event a reader's input sends: change for a select, input otherwise.
    const setValue = (el, value) => { el.value = String(value); el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true })); };
    const step = (direction) => document.querySelector('button[aria-label^="Step ' + direction + '"]').click();
    const pass = async () => {
      const out = [];
      const time = async (act, kind = 'interaction') => {
        await nextFrame();
        const t0 = performance.now();
        act();
        await afterTask();
        document.body.getBoundingClientRect();
        const recompute = performance.now() - t0;
        out.push({ ms: recompute + await nextFrame(), kind });
      };
      await (${sweep.toString()})(time, { setValue, step });
      return out;
    };
    const cold = await pass();
    const warm = [];
    for (let p = 0; p < ${Math.max(3, warmPasses)}; p++) warm.push(...(await pass()).map((t) => ({ ...t, pass: p })));
    return { cold: cold.map((t) => t.ms), warm: warm.map((t) => t.ms), warmKinds: warm.map((t) => t.kind), warmPass: warm.map((t) => t.pass) };
  })()`);
}

// This machine's floor, timed the same way: an interaction that changes one text node of the page
// (a full stop after its title) and nothing else. A shared VM's speed varies with its host's load,
// and the figures' times rise and fall with this floor, so printing both lets times measured at
// different moments, or on different machines, be compared.
export const floorSweep = async (time) => {
  const title = document.querySelector('h1').firstChild;
  for (let i = 0; i < 20; i++) await time(() => { title.data = title.data.endsWith('.') ? title.data.slice(0, -1) : `${title.data}.`; });
};

export const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

/** The 95th percentile of `xs` per group, `groups[i]` naming the group of `xs[i]`: [group, p95] in first-seen order. */
export const p95By = (xs, groups) => [...new Set(groups)].map((g) => [g, percentile(xs.filter((_, i) => groups[i] === g), 0.95)]);

// One line for the log: how many interactions, median and p95 of the warm passes, and the cold
// pass's; the p95 of each warm pass on its own; then, when the sweep timed more than one kind of
// interaction, the warm figures per kind.
export function timingSummary(name, { cold, warm, warmKinds, warmPass }) {
  const stats = (xs) => `median ${percentile(xs, 0.5).toFixed(1)} ms, p95 ${percentile(xs, 0.95).toFixed(1)} ms`;
  const passes = p95By(warm, warmPass).map(([, ms]) => ms.toFixed(1));
  const kinds = [...new Set(warmKinds)];
  const byKind = kinds.length < 2 ? '' : '; warm, by kind: ' + kinds.map((k) => {
    const xs = warm.filter((_, i) => warmKinds[i] === k);
    return `${k} (${xs.length}) ${stats(xs)}`;
  }).join(', ');
  return `${name}: ${warm.length} interactions, ${stats(warm)} (first pass: ${stats(cold)}; p95 by warm pass: ${passes.join(', ')} ms)${byKind}`;
}
