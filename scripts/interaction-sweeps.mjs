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
    name: 'attention-bahdanau-alignment',
    label: 'attention-bahdanau-alignment',
    path: '/visualizations/attention-bahdanau-alignment/',
    sweep: async (time, { setValue, step }) => {
      const radio = (value) => document.querySelector(`[role="radio"][data-value="${value}"]`);
      const translate = (text) => {
        setValue(document.querySelector('#own-text'), text);
        document.querySelector('.own-sentence button[type="submit"]').click();
      };
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 8; i++) await time(() => step('forward'), 'step');
        for (const v of [4, 14, 0]) await time(() => setValue(document.querySelector('.scrubber input'), v), 'step');
        await time(() => radio('short').click(), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        await time(() => radio('own').click(), 'setting');
        await time(() => translate('the economic area was signed'), 'setting');
        await time(() => translate('the agrement was signed'), 'setting');  // refused: the message, the figure kept
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        await time(() => radio('canonical').click(), 'setting');
      }
    },
  },
  {
    name: 'attention-scoring-functions',
    label: 'attention-scoring-functions',
    path: '/visualizations/attention-scoring-functions/',
    sweep: async (time, { step }) => {
      const resample = () => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Resample').click();
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 7; i++) await time(() => step('forward'), 'step');
        await time(resample, 'setting');
        for (let i = 0; i < 7; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'attention-multihead-self',
    label: 'attention-multihead-self',
    path: '/visualizations/attention-multihead-self/',
    sweep: async (time, { setValue, step }) => {
      const toggles = () => document.querySelectorAll('.head-toggle');
      const select = document.querySelector('.token-pick select');
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        for (const h of [0, 2, 0, 2]) await time(() => toggles()[h].click(), 'setting');
        for (const t of ['8', '2', '11', '']) await time(() => setValue(select, t), 'setting');
        await time(() => document.querySelector('[data-testid="from-4"]').dispatchEvent(new MouseEvent('click', { bubbles: true })), 'setting');
        await time(() => document.querySelector('[data-testid="from-4"]').dispatchEvent(new MouseEvent('click', { bubbles: true })), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'kv-cache-evolution',
    label: 'kv-cache-evolution',
    path: '/visualizations/kv-cache-evolution/',
    sweep: async (time, { setValue, step }) => {
      const q = (sel) => document.querySelector(sel);
      const radio = (name) => [...document.querySelectorAll('[role="radio"]')].find((r) => r.textContent === name);
      for (let round = 0; round < 2; round++) {
        for (const c of [0, 8, 24, 40, 56, 16]) await time(() => setValue(q('input[aria-label="Context tokens"]'), c), 'setting');
        for (const m of ['deepseek-v2', 'llama3-8b', 'mistral-7b', 'llama3-70b']) await time(() => setValue(q('select[aria-label="Model"]'), m), 'setting');
        for (const w of ['Cache + weights', 'Cache only']) await time(() => radio(w).click(), 'setting');
        for (let i = 0; i < 3; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 3; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'decode-roofline',
    label: 'decode-roofline',
    path: '/visualizations/decode-roofline/',
    sweep: async (time, { setValue, step }) => {
      const q = (sel) => document.querySelector(sel);
      const radio = (name) => [...document.querySelectorAll('[role="radio"]')].find((r) => r.textContent === name);
      for (let round = 0; round < 2; round++) {
        for (const b of [0, 6, 12, 18, 19, 8]) await time(() => setValue(q('input[aria-label="Batch"]'), b), 'setting');
        for (const c of [0, 12, 28, 12]) await time(() => setValue(q('input[aria-label="Context tokens"]'), c), 'setting');
        for (const g of ['a100-sxm-80gb', 'b200', 'h100-sxm']) await time(() => setValue(q('select[aria-label="GPU"]'), g), 'setting');
        for (const m of ['deepseek-v2', 'llama3-8b', 'llama3-70b']) await time(() => setValue(q('select[aria-label="Model"]'), m), 'setting');
        for (const w of ['KV only', 'KV + weights']) await time(() => radio(w).click(), 'setting');
        for (let i = 0; i < 7; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 7; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'ring-attention-rotation',
    label: 'ring-attention-rotation',
    path: '/visualizations/ring-attention-rotation/',
    sweep: async (time, { setValue, step }) => {
      const select = (label) => document.querySelector(`select[aria-label^="${label}"]`);
      const devices = (p) => document.querySelector(`[role="radiogroup"][aria-label="Devices"] [data-value="${p}"]`);
      for (let round = 0; round < 3; round++) {
        for (const n of ['262144', '16384', '65536']) await time(() => setValue(select('Sequence length'), n), 'setting');
        for (const b of ['25', '450', '100']) await time(() => setValue(select('Link bandwidth'), b), 'setting');
        for (const p of ['8', '2', '4']) await time(() => devices(p).click(), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 4; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'attention-pattern-zoo',
    label: 'attention-pattern-zoo (N = 256 .. 8,192)',
    path: '/visualizations/attention-pattern-zoo/',
    sweep: async (time, { setValue, step }) => {
      const slider = document.querySelector('.pattern-zoo .controls input[type="range"]');
      const cells = [...document.querySelectorAll('.zoo .cell')];
      for (let round = 0; round < 2; round++) {
        for (const i of [5, 4, 3, 2, 1, 0, 5, 3]) await time(() => setValue(slider, i), 'setting');
        for (let i = 0; i < 5; i++) await time(() => step('forward'), 'step');
        for (const c of [cells[1], cells[4]]) await time(() => c.click(), 'step');
        for (let i = 0; i < 3; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'attention-complexity-scaling',
    label: 'attention-complexity-scaling',
    path: '/visualizations/attention-complexity-scaling/',
    sweep: async (time, { setValue, step }) => {
      const slider = document.querySelector('.complexity-scaling .controls input[type="range"]');
      const radios = [...document.querySelectorAll('[role="radio"]')];
      const boxes = [...document.querySelectorAll('.marks input')];
      for (let round = 0; round < 2; round++) {
        for (const v of [3, 3.5, 4.2, 5, 5.7, 6, 2.5]) await time(() => setValue(slider, v), 'setting');
        for (const r of [radios[1], radios[0]]) await time(() => r.click(), 'setting');
        for (const b of [...boxes, ...boxes]) await time(() => b.click(), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        for (let i = 0; i < 4; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'lsh-attention-bucketing',
    label: 'lsh-attention-bucketing',
    path: '/visualizations/lsh-attention-bucketing/',
    sweep: async (time, { setValue, step }) => {
      const radio = (group, value) => document.querySelector(`[role="radiogroup"][aria-label="${group}"] [data-value="${value}"]`);
      const chunk = document.querySelector('select[aria-label="Chunk length"]');
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 4; i++) await time(() => step('forward'), 'step');
        for (const b of ['8', '16', '2', '4']) await time(() => radio('Buckets', b).click(), 'setting');
        for (const r of ['2', '4', '1']) await time(() => radio('Hash rounds', r).click(), 'setting');
        for (const c of ['32', '4', '8']) await time(() => setValue(chunk, c), 'setting');
        for (let i = 0; i < 4; i++) await time(() => step('back'), 'step');
      }
    },
  },
  {
    name: 'approximation-price',
    label: 'approximation-price (new settings run in a worker)',
    path: '/visualizations/approximation-price/',
    sweep: async (time, { step }) => {
      const radio = (value) => document.querySelector(`[role="radiogroup"][aria-label="Input"] [data-value="${value}"]`);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 8; i++) await time(() => step('forward'), 'step');
        for (const input of ['random', 'retrieval']) await time(() => radio(input).click(), 'setting');
        for (let i = 0; i < 8; i++) await time(() => step('back'), 'step');
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
