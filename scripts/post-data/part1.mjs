#!/usr/bin/env node
// Computes the tables and charts of the Part 1 post (content/posts/attention-history-bahdanau-to-transformer/)
// with the WebAssembly core the figures run, and writes them to site/data/generated/part1.json for
// the `data-table` and `data-chart` shortcodes.
//
//   node scripts/post-data/part1.mjs           rewrite site/data/generated/part1.json
//   node scripts/post-data/part1.mjs --check   exit 1 if the committed file differs from a fresh run
//
// The translation models' measurements come from `make train` (native/tools/train_translation.cpp),
// which writes site/data/generated/bahdanau_training.json; this script only formats them. The
// paper's own BLEU scores are quoted, with their table, in a table of their own.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { loadModule, reportErrorsBriefly, writeGenerated, bytes, fixed, integer, repoRoot } from './common.mjs';
import { encodePng } from './png.mjs';

reportErrorsBriefly('post-data/part1');

const classic = await loadModule('classic');
const flash = await loadModule('flash');
const theme = JSON.parse(await readFile(join(repoRoot, 'site', 'data', 'theme.json'), 'utf8')).colors;
const training = JSON.parse(await readFile(join(repoRoot, 'site', 'data', 'generated', 'bahdanau_training.json'), 'utf8'));
const tables = {};
const charts = {};
const values = {};

const BAHDANAU = 'Bahdanau, Cho and Bengio 2015 (arXiv:1409.0473)';
const TRAINING_SOURCE = `Measured by the project's core: \`make train\` (native/tools/train_translation.cpp, seed ${training.provenance.seed}, commit ${training.provenance.commit}); BLEU-4 with the standard brevity penalty (\`attn/classic/bleu.hpp\`), greedy decoding, int8 weights as the figure loads them.`;
const bleu = (x) => fixed(x, 1);

// --- Our two translation models ------------------------------------------------------------------
{
  const rows = training.bleu_by_source_length.map((b) => [`${b.min_tokens}–${b.max_tokens}`, integer(b.sentences), bleu(b.RNNenc), bleu(b.RNNsearch)]);
  rows.push(['all', integer(training.bleu_by_source_length.reduce((n, b) => n + b.sentences, 0)), bleu(training.bleu_all.RNNenc), bleu(training.bleu_all.RNNsearch)]);
  tables['bleu-by-length'] = {
    caption: 'Our recreation of Bahdanau et al.\'s Figure 2: BLEU of the two small models by source-sentence length, on held-out sentences of the synthetic corpus',
    columns: [{ label: 'Source length (tokens)' }, { label: 'Sentences', numeric: true }, { label: 'RNNenc (fixed vector)', numeric: true }, { label: 'RNNsearch (attention)', numeric: true }],
    rows,
    notes: ['These are our models on our synthetic English → French corpus, not the paper\'s: the scale differs by four orders of magnitude, so compare the shapes, not the numbers, with the paper\'s table below.'],
    source: TRAINING_SOURCE,
  };

  const byName = Object.fromEntries(training.models.map((m) => [m.name, m]));
  tables['our-models'] = {
    caption: 'The two models, trained the same way on the same 20,000 sentence pairs',
    columns: [{ label: 'Model' }, { label: 'Context the decoder sees' }, { label: 'Parameters', numeric: true }, { label: 'GRU width', numeric: true }, { label: 'Weights (int8)', numeric: true }, { label: 'Loss per word, last epoch', numeric: true }, { label: 'Training time', numeric: true }],
    rows: ['RNNenc', 'RNNsearch'].map((name) => {
      const m = byName[name];
      return [name, name === 'RNNenc' ? 'one vector c, the encoder\'s last state' : `c_i = Σ α_ij h_j over ${2 * m.hidden_dim}-wide annotations`, integer(m.parameters), integer(m.hidden_dim), bytes(m.file_bytes), fixed(m.loss_per_epoch[m.loss_per_epoch.length - 1], 3), `${Math.round(m.training_seconds)} s`];
    }),
    notes: [`Corpus: ${integer(training.corpus.train_pairs)} training pairs of up to ${training.corpus.max_source_tokens} tokens from a small grammar with adjective–noun inversion, dates and verb groups; ${training.corpus.source_vocab} English and ${training.corpus.target_vocab} French words. The paper's models had 1,000 hidden units, 30,000-word vocabularies and 348 million words of training text.`],
    source: `${TRAINING_SOURCE} Training times on a 2-core machine, the two models in parallel.`,
  };
  // Bahdanau's Fig. 3 sentence, held out of training: what each model makes of it.
  const words = (list) => list.filter((w) => w !== '<eos>').join(' ').replace(/' /g, "'");
  values['canonical.source'] = words(training.canonical.source);
  values['canonical.search'] = words(training.canonical.RNNsearch);
  values['canonical.enc'] = words(training.canonical.RNNenc);
  // The worked example: the two reordered words, each row's three largest weights.
  const { source, RNNsearch: output, alignment } = training.canonical;
  for (const word of ['économique', 'européenne']) {
    const row = alignment[output.indexOf(word)];
    const top = row.map((w, j) => [w, source[j]]).sort((x, y) => y[0] - x[0]).slice(0, 3);
    values[`alignment.${word}`] = top.map(([w, s]) => `${s} ${fixed(w, 3)}`).join(', ');
  }
  values['models.search.parameters'] = integer(byName.RNNsearch.parameters);
  values['models.search.file'] = bytes(byName.RNNsearch.file_bytes);
}

// The paper's Table 1, quoted (test set of WMT'14 English → French).
tables['bahdanau-reported'] = {
  caption: 'What the paper reported: BLEU on the WMT\'14 English → French test set',
  columns: [{ label: 'Model' }, { label: 'Trained on sentences up to', numeric: true }, { label: 'All sentences', numeric: true }, { label: 'No unknown words', numeric: true }],
  rows: [
    ['RNNencdec-30', '30 words', '13.93', '24.19'],
    ['RNNsearch-30', '30 words', '21.50', '31.44'],
    ['RNNencdec-50', '50 words', '17.82', '26.71'],
    ['RNNsearch-50', '50 words', '26.75', '34.16'],
    ['RNNsearch-50* (trained longer)', '50 words', '28.45', '36.15'],
    ['Moses (phrase-based baseline)', '—', '33.30', '35.63'],
  ],
  notes: ['RNNencdec is the paper\'s name for the fixed-vector model (our RNNenc). Moses was also trained on an extra 418 million words of monolingual text.'],
  source: `${BAHDANAU}, Table 1 (quoted, not computed).`,
};

// --- Chart: BLEU against source length -------------------------------------------------------------
{
  const bins = training.bleu_by_source_length;
  const W = 360, H = 230, left = 40, right = 14, top = 30, bottom = 44;
  const x = (i) => left + ((i + 0.5) / bins.length) * (W - left - right);
  const y = (b) => top + (1 - b / 100) * (H - top - bottom);
  const series = [
    { key: 'RNNsearch', color: theme.heads[0], label: 'RNNsearch (attention)' },
    { key: 'RNNenc', color: theme.heads[3], label: 'RNNenc (fixed vector)' },
  ];
  const parts = [`<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" class="data-chart__svg">`];
  for (const tick of [0, 25, 50, 75, 100]) {
    parts.push(`<line x1="${left}" x2="${W - right}" y1="${y(tick)}" y2="${y(tick)}" class="data-chart__grid"/>`);
    parts.push(`<text x="${left - 6}" y="${y(tick) + 4}" text-anchor="end" class="data-chart__tick">${tick}</text>`);
  }
  bins.forEach((b, i) => parts.push(`<text x="${x(i)}" y="${H - bottom + 16}" text-anchor="middle" class="data-chart__tick">${b.min_tokens}–${b.max_tokens}</text>`));
  parts.push(`<text x="${(left + W - right) / 2}" y="${H - 8}" text-anchor="middle" class="data-chart__label">source sentence length (tokens)</text>`);
  parts.push(`<text x="12" y="${top - 14}" class="data-chart__label">BLEU</text>`);
  series.forEach((s, k) => {
    const points = bins.map((b, i) => `${fixed(x(i), 1)},${fixed(y(b[s.key]), 1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2.5"/>`);
    bins.forEach((b, i) => parts.push(`<circle cx="${fixed(x(i), 1)}" cy="${fixed(y(b[s.key]), 1)}" r="3.5" fill="${s.color}"/>`));
    parts.push(`<rect x="${left + 24 + k * 150}" y="${top - 22}" width="12" height="4" fill="${s.color}"/><text x="${left + 40 + k * 150}" y="${top - 16}" class="data-chart__tick">${s.label}</text>`);
  });
  parts.push('</svg>');
  charts['bleu-by-length'] = {
    caption: 'BLEU by source length for our two models (the data of the table below)',
    description: `Line chart. RNNsearch scores ${bins.map((b) => bleu(b.RNNsearch)).join(', ')} BLEU for source lengths ${bins.map((b) => `${b.min_tokens}–${b.max_tokens}`).join(', ')}; RNNenc scores ${bins.map((b) => bleu(b.RNNenc)).join(', ')}.`,
    svg: parts.join(''),
    source: TRAINING_SOURCE,
  };
}

// --- Why divide by √dₖ ----------------------------------------------------------------------------
const SCALING = { dims: [4, 16, 64, 256, 512], numKeys: 16, trials: 200, seed: 1 };
{
  const rows = classic.scalingExperiment(SCALING);
  tables['sqrt-d'] = {
    caption: `Dot-product scores of random unit-variance vectors against ${SCALING.numKeys} keys: unscaled, the softmax saturates as dₖ grows; divided by √dₖ, it does not`,
    columns: [
      { label: 'dₖ' }, { label: 'Variance of q·k', numeric: true }, { label: 'Variance of q·k/√dₖ', numeric: true },
      { label: 'Top weight, unscaled', numeric: true }, { label: 'Top weight, scaled', numeric: true },
      { label: 'Entropy, unscaled', numeric: true }, { label: 'Entropy, scaled', numeric: true },
    ],
    rows: rows.map((r) => [String(r.dim), fixed(r.raw.variance, 1), fixed(r.scaled.variance, 2), fixed(r.raw.maxWeight, 2), fixed(r.scaled.maxWeight, 2), fixed(r.raw.entropyNormalized, 2), fixed(r.scaled.entropyNormalized, 2)]),
    notes: [`Entropy is divided by ln ${SCALING.numKeys}, its value for uniform weights: 1 means attention spread evenly, 0 means all weight on one key. Each row averages ${SCALING.trials} queries.`],
    source: `Computed by the core: \`scalingExperiment\` (\`attn/classic/scaling_experiment.hpp\`), q and k ~ N(0, I), seed ${SCALING.seed}.`,
  };
  const at = (d) => rows.find((r) => r.dim === d);
  values['sqrtd.64.raw.variance'] = fixed(at(64).raw.variance, 1);
  values['sqrtd.64.scaled.variance'] = fixed(at(64).scaled.variance, 2);
}

// The worked example: one query against 16 keys at d = 64, the same draw scored both ways.
{
  const d = 64, n = 16, seed = 7;
  const draw = classic.randomNormal([1, 1, n + 1, d], seed, 1);
  const query = draw.slice(0, d), keys = draw.slice(d);
  const score = (kind) => classic.scoreAttention({ kind, queries: query, queryShape: [1, d], keys, keyShape: [n, d] });
  const dot = score('dot'), scaled = score('scaled_dot');
  const summary = (r) => {
    const s = Array.from(r.scores);
    return { min: Math.min(...s), max: Math.max(...s), top: Math.max(...r.weights), entropy: r.entropies[0] / Math.log(n) };
  };
  const a = summary(dot), b = summary(scaled);
  tables['sqrt-d-example'] = {
    caption: `One query against ${n} keys, dₖ = ${d}: the same vectors scored with and without the √dₖ`,
    columns: [{ label: 'Score' }, { label: 'Lowest score', numeric: true }, { label: 'Highest score', numeric: true }, { label: 'Top softmax weight', numeric: true }, { label: 'Entropy (÷ ln 16)', numeric: true }],
    rows: [['q·k', fixed(a.min, 2), fixed(a.max, 2), fixed(a.top, 3), fixed(a.entropy, 3)], ['q·k / 8', fixed(b.min, 2), fixed(b.max, 2), fixed(b.top, 3), fixed(b.entropy, 3)]],
    source: `Computed by the core: \`randomNormal\` (seed ${seed}) and \`scoreAttention\` with kind dot and scaled_dot.`,
  };
  Object.assign(values, {
    'example.dot.max': fixed(a.max, 2), 'example.dot.min': fixed(a.min, 2), 'example.dot.top': fixed(a.top, 3),
    'example.scaled.max': fixed(b.max, 2), 'example.scaled.top': fixed(b.top, 3),
  });
}

// --- Cost of the score functions at the paper's sizes ----------------------------------------------
{
  const dim = 1000, n = 50;
  const kinds = [
    ['additive', 'Additive (Bahdanau)', 'v_a^T tanh(W_a s + U_a h)'],
    ['general', 'General (Luong)', 's^T W_a h'],
    ['dot', 'Dot (Luong)', 's^T h'],
    ['scaled_dot', 'Scaled dot (Vaswani)', 'q^T k / √dₖ'],
  ];
  const rows = kinds.map(([kind, label, formula]) => {
    const f = classic.scoreFlops({ kind, queryDim: dim, attentionDim: dim, numQueries: n, numKeys: n });
    return [label, `\`${formula}\``, integer(f.perPair), integer(f.perQuery + f.perKey), `${fixed(f.total / 1e6, 1)} M`];
  });
  tables['score-cost'] = {
    caption: `FLOPs to score ${n} decoder states against ${n} encoder states, all vectors ${integer(dim)}-dimensional (the paper's width)`,
    columns: [{ label: 'Score function' }, { label: 'Formula' }, { label: 'Per (i, j) pair', numeric: true }, { label: 'Hoisted per query or key', numeric: true }, { label: `Total for ${n} × ${n}`, numeric: true }],
    rows,
    notes: ['Counting a multiply, an add or a tanh as one FLOP each. The matrix products that touch only one side (W_a s once per query, U_a h and W_a h once per key) are computed once and reused; what is left per pair is a dot product, plus a tanh layer for the additive score. The products with one side are what make additive and general scoring dear at these widths.'],
    source: 'Computed by the core: `scoreFlops` (`attn/classic/scoring.hpp`).',
  };
}

// --- The N × N matrix, 2017 to 2020 --------------------------------------------------------------
{
  const lengths = [
    [512, 'BERT (2018)'],
    [1024, 'GPT-2 (2019)'],
    [2048, 'GPT-3 (2020)'],
    [4096, 'Longformer (2020)'],
    [16384, ''],
    [65536, ''],
  ];
  const rows = lengths.map(([N, example]) => {
    const fp16 = flash.scoreMatrixFootprint({ seqLen: N, heads: 12, layers: 12, elementBytes: 2 });
    const fp32 = flash.scoreMatrixFootprint({ seqLen: N, heads: 12, layers: 12, elementBytes: 4 });
    if ([512, 4096, 16384].includes(N)) values[`n2.${N}.model`] = bytes(fp16.perModelBytes);
    return [integer(N), example, bytes(fp16.perHeadBytes), bytes(fp16.perLayerBytes), bytes(fp16.perModelBytes), bytes(fp32.perModelBytes)];
  });
  values['n2.512.entries'] = `${fixed((512 * 512 * 144) / 1e6, 1)} million`;
  tables['n2-memory'] = {
    caption: 'One N × N attention matrix per head, per layer and for a BERT-base-shaped model (12 layers × 12 heads), per sequence',
    columns: [{ label: 'N (tokens)' }, { label: 'Where this length appeared' }, { label: 'One head, FP16', numeric: true }, { label: 'One layer (12 heads), FP16', numeric: true }, { label: '12 layers, FP16', numeric: true }, { label: '12 layers, FP32', numeric: true }],
    rows,
    notes: ['One matrix of softmax weights per head, the part that grows as N². Training keeps it for the backward pass; real frameworks often keep more than one such matrix (scores before the softmax, a dropout mask), so this is a floor.'],
    source: 'Computed by the core: `scoreMatrixFootprint` (`attn/cost/attention_cost.hpp`), binary units (1 MiB = 2^20 bytes).',
  };
}

// --- Sinusoidal positional encodings as a heatmap --------------------------------------------------
{
  const positions = 64, dModel = 128;
  const pe = classic.positionalEncoding({ numPositions: positions, dModel });
  const hex = (c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
  const [neg, mid, pos] = [hex(theme.active), hex(theme.panel), hex(theme.heads[0])];
  const rgb = new Uint8Array(positions * dModel * 3);
  for (let p = 0; p < positions; ++p) {
    for (let i = 0; i < dModel; ++i) {
      const v = pe.data[p * dModel + i];
      const end = v < 0 ? neg : pos, t = Math.min(1, Math.abs(v));
      for (let c = 0; c < 3; ++c) rgb[(p * dModel + i) * 3 + c] = Math.round(mid[c] + t * (end[c] - mid[c]));
    }
  }
  const png = encodePng(dModel, positions, rgb).toString('base64');
  const W = 360, H = 250, left = 40, top = 12, width = 300, height = 180;
  const svg = [
    `<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" class="data-chart__svg">`,
    `<image x="${left}" y="${top}" width="${width}" height="${height}" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,${png}"/>`,
    `<rect x="${left}" y="${top}" width="${width}" height="${height}" fill="none" class="data-chart__frame"/>`,
    ...[0, 32, 63].map((p) => `<text x="${left - 6}" y="${fixed(top + ((p + 0.5) / positions) * height + 4, 1)}" text-anchor="end" class="data-chart__tick">${p}</text>`),
    ...[0, 64, 127].map((i) => `<text x="${fixed(left + ((i + 0.5) / dModel) * width, 1)}" y="${top + height + 15}" text-anchor="middle" class="data-chart__tick">${i}</text>`),
    `<text x="${left + width / 2}" y="${top + height + 30}" text-anchor="middle" class="data-chart__label">dimension i of the encoding (d_model = ${dModel})</text>`,
    `<text transform="translate(12 ${top + height / 2}) rotate(-90)" text-anchor="middle" class="data-chart__label">position</text>`,
    `<rect x="${left}" y="${H - 12}" width="10" height="10" fill="${theme.active}"/><text x="${left + 14}" y="${H - 3}" class="data-chart__tick">−1</text>`,
    `<rect x="${left + 46}" y="${H - 12}" width="10" height="10" fill="${theme.panel}" class="data-chart__frame"/><text x="${left + 60}" y="${H - 3}" class="data-chart__tick">0</text>`,
    `<rect x="${left + 84}" y="${H - 12}" width="10" height="10" fill="${theme.heads[0]}"/><text x="${left + 98}" y="${H - 3}" class="data-chart__tick">+1</text>`,
    '</svg>',
  ].join('');
  charts['positional-encoding'] = {
    caption: `Sinusoidal positional encodings for positions 0–${positions - 1}, d_model = ${dModel}: each row is the vector added to that position's word embedding`,
    description: `Heatmap of ${positions} positions by ${dModel} dimensions. The left columns oscillate quickly from one position to the next; columns further right change ever more slowly, so each position gets a distinct pattern of values between −1 and +1.`,
    svg,
    source: 'Computed by the core: `positionalEncoding` (Vaswani et al. 2017, Sec. 3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos of the same).',
  };
}

await writeGenerated('part1', 'scripts/post-data/part1.mjs', { tables, charts, values });
