// The scripted sweep of each visualization's controls that its interaction time is measured over
// (interaction-timing.mjs): the browser tests print the result, `make interaction-times` reports it.
// Each sweep runs inside the page (it is passed as source text), starting from `path`, and calls
// `time(act, kind)` once per interaction; `kind` is 'step' for a move through the algorithm and
// 'setting' for a change of a control, so a summary can say which sets the tail. Its second argument
// holds the page-side helpers every sweep uses (sweepTimes defines them): `setValue(el, value)`, a
// new value for an input or select with the event a reader's input sends, and `step(direction)`,
// a click on the 'forward' or 'back' step button.
export const SWEEPS = [
  {
    name: 'flash-attention-tiling',
    label: 'flash-attention-tiling (default size)',
    path: '/visualizations/flash-attention-tiling/#step=0',
    sweep: async (time, { setValue, step }) => {
      const q = (sel) => document.querySelector(sel);
      const byText = (text) => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === text);
      const next = () => step('forward');
      const prev = () => step('back');
      for (let i = 0; i < 12; i++) await time(next, 'step');
      await time(() => byText('Standard attention').click(), 'setting');
      for (const act of [next, next, prev]) await time(act, 'step');
      await time(() => byText('FlashAttention').click(), 'setting');
      await time(() => q('.check input').click(), 'setting');
      await time(next, 'step');
      await time(() => q('.check input').click(), 'setting');
      await time(() => byText('FA1: K/V blocks outer').click(), 'setting');
      await time(next, 'step');
      await time(() => byText('FA2: Q blocks outer').click(), 'setting');
      for (const [name, value] of [['br', '8'], ['br', '4'], ['bc', '2'], ['bc', '4'], ['d', '8'], ['d', '4'], ['n', '32'], ['n', '16']]) await time(() => setValue(q(`select[name="${name}"]`), value), 'setting');
      for (const v of [18, 5]) await time(() => setValue(q('.scrubber input'), v), 'step');
      for (let i = 0; i < 8; i++) await time(prev, 'step');
    },
  },
  {
    name: 'fa1-vs-fa2-parallelism',
    label: 'fa1-vs-fa2-parallelism (batch <= 8)',
    path: '/visualizations/fa1-vs-fa2-parallelism/',
    sweep: async (time, { setValue, step }) => {
      const batch = document.querySelector('input[aria-label="Batch size"]');
      const heads = document.querySelector('select[aria-label="Heads"]');
      for (let round = 0; round < 2; round++) {
        for (const b of [1, 2, 3, 4, 6, 8, 2, 1]) await time(() => setValue(batch, b), 'setting');
        for (const h of ['8', '12', '16']) await time(() => setValue(heads, h), 'setting');
        for (const r of document.querySelectorAll('[role="radio"]')) await time(() => r.click(), 'setting');
        for (let i = 0; i < 5; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 5; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'fa3-warp-specialization',
    label: 'fa3-warp-specialization',
    path: '/visualizations/fa3-warp-specialization/',
    sweep: async (time, { setValue, step }) => {
      const select = (label, value) =>
        setValue([...document.querySelectorAll('label')].find((l) => l.textContent.startsWith(label)).querySelector('select'), value);
      for (let round = 0; round < 3; round++) {
        for (const b of document.querySelectorAll('.schedules button')) await time(() => b.click(), 'setting');
        for (const d of ['64', '256', '128']) await time(() => select('Head dim', d), 'setting');
        for (const g of ['h100-pcie', 'h100-sxm']) await time(() => select('GPU', g), 'setting');
        for (let i = 0; i < 5; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'gpu-memory-hierarchy',
    label: 'gpu-memory-hierarchy',
    path: '/visualizations/gpu-memory-hierarchy/',
    sweep: async (time, { setValue, step }) => {
      const slider = document.querySelector('input[type="range"][aria-label="Sequence length N"]');
      const d = document.querySelector('select[aria-label="Head dimension d"]');
      const radios = [...document.querySelectorAll('[role="radio"]')];
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 8; i++) await time(() => setValue(slider, i), 'setting');
        for (const v of ['128', '256', '64']) await time(() => setValue(d, v), 'setting');
        for (const r of radios) await time(() => r.click(), 'setting');
        for (let i = 0; i < 5; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'sliding-window-receptive-field',
    label: 'sliding-window-receptive-field',
    path: '/visualizations/sliding-window-receptive-field/',
    sweep: async (time, { setValue, step }) => {
      const slider = (label) => [...document.querySelectorAll('label.slider')].find((l) => l.textContent.startsWith(label)).querySelector('input');
      for (let round = 0; round < 3; round++) {
        for (const l of [8, 6, 4, 1, 4]) await time(() => setValue(slider('Layers'), l), 'setting');
        for (const w of [6, 2, 4]) await time(() => setValue(slider('Window'), w), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 4; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'paged-attention-blocks',
    label: 'paged-attention-blocks (default workload, scrubbing)',
    path: '/visualizations/paged-attention-blocks/',
    sweep: async (time, { setValue, step }) => {
      const scrubber = document.querySelector('.scrubber input[type="range"]');
      const select = (label) => document.querySelector(`select[aria-label="${label}"]`);
      const max = () => Number(scrubber.max);
      for (let round = 0; round < 2; round++) {
        // Scrubbing: jumps back and forth across the whole replay, as a drag does.
        for (const f of [0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 1, 0, 0.6, 0.4, 0.8, 0.05]) await time(() => setValue(scrubber, f * max()), 'step');
        for (let i = 0; i < 6; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 3; i++) await time(() => step('back'), 'step');
        await time(() => document.querySelector('[data-testid="jump-refusal"]').click(), 'step');
        for (const b of ['48', '24', '32']) await time(() => setValue(select('Pool size in blocks'), b), 'setting');
        for (const r of ['16', '12']) await time(() => setValue(select('Requests'), r), 'setting');
        for (const seed of ['4', '3']) await time(() => setValue(select('Workload seed'), seed), 'setting');
      }
    },
  },
];

/** The sweep of the visualization called `name`. */
export const sweepFor = (name) => SWEEPS.find((s) => s.name === name);
