// Node tests of the Part 1 translation API (wasm/classic/bind_translation.cpp,
// wasm/classic/translation.d.ts) on the committed weight files of `make train`
// (static/models/): the canonical sentence of Bahdanau et al.'s Fig. 3 translates in the module as
// the native core translated it when it wrote site/data/generated/bahdanau_training.json, the
// trace is consistent with its definitions (alpha = softmax(e), c_i = sum_j alpha_ij h_j), and bad
// bytes, unknown words and over-long sentences are refused with messages that name them.
// Run: node --test tests/wasm/translation.test.mjs   (needs static/wasm/attn_classic.* built)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadModule } from './load.mjs';

const core = await loadModule('classic');
const model = (name) => new Uint8Array(readFileSync(new URL(`../../static/models/bahdanau-${name}.bin`, import.meta.url)));
const search = model('rnnsearch'), enc = model('rnnenc');
const training = JSON.parse(readFileSync(new URL('../../site/data/generated/bahdanau_training.json', import.meta.url), 'utf8'));
const CANONICAL = 'the agreement on the european economic area was signed in august 1992';

const row = (m, i) => m.data.subarray(i * m.shape[1], (i + 1) * m.shape[1]);

function throwsThenRecovers(call, message) {
  assert.throws(call, (e) => e instanceof Error && message.test(e.message), String(message));
  assert.equal(core.translateSentence({ model: search, sentence: 'the treaty was signed' }).target[0], 'le');  // still works
}

test('translationModelInfo: both committed models, their shapes and provenance', () => {
  const s = core.translationModelInfo({ model: search });
  const summary = training.models.find((m) => m.name === 'RNNsearch');
  assert.equal(s.kind, 'rnn_search');
  assert.equal(s.parameters, summary.parameters);
  assert.deepEqual([s.embedDim, s.hiddenDim, s.attentionDim, s.outputDim],
    [summary.embed_dim, summary.hidden_dim, summary.attention_dim, summary.output_dim]);
  assert.deepEqual([s.sourceVocab, s.targetVocab], [training.corpus.source_vocab, training.corpus.target_vocab]);
  assert.match(s.provenance, new RegExp(`seed: ${training.provenance.seed}`));
  const e = core.translationModelInfo({ model: enc.buffer });  // an ArrayBuffer is read too
  assert.equal(e.kind, 'rnn_enc');
  assert.equal(e.attentionDim, 0);
  assert.equal(e.parameters, training.models.find((m) => m.name === 'RNNenc').parameters);
});

test('translationVocabulary: the words a reader can type, without special tokens', () => {
  const v = core.translationVocabulary();
  assert.equal(v.source.length, training.corpus.source_vocab - 3);
  assert.equal(v.target.length, training.corpus.target_vocab - 3);
  assert.equal(v.maxWords, 100);
  for (const w of training.canonical.source.slice(0, -1)) assert.ok(v.source.includes(w), w);
  for (const w of training.canonical.reference) assert.ok(v.target.includes(w), w);
  assert.ok(!v.source.some((w) => w.startsWith('<')));
});

test('translateSentence: the canonical sentence as the native core translated it', () => {
  const r = core.translateSentence({ model: search, sentence: CANONICAL });
  assert.equal(r.kind, 'rnn_search');
  assert.deepEqual(r.source, training.canonical.source);
  assert.deepEqual(r.target, training.canonical.RNNsearch);
  const Ty = r.target.length, Tx = r.source.length;
  assert.deepEqual(r.alignment.shape, [Ty, Tx]);
  // The training report printed alpha to 4 decimals from the native build's float decoding.
  for (let i = 0; i < Ty; i++) {
    for (let j = 0; j < Tx; j++) {
      assert.ok(Math.abs(r.alignment.data[i * Tx + j] - training.canonical.alignment[i][j]) <= 5e-5 + 1e-6,
        `alpha[${i}][${j}] = ${r.alignment.data[i * Tx + j]} vs ${training.canonical.alignment[i][j]}`);
    }
  }
  // Typed as a reader would: capitals and the full stop attached give the same translation.
  const typed = core.translateSentence({ model: search, sentence: 'The agreement on the European Economic Area was signed in August 1992.' });
  assert.deepEqual(typed.target, r.target);
  assert.deepEqual(Array.from(typed.alignment.data), Array.from(r.alignment.data));
  const e = core.translateSentence({ model: enc, sentence: CANONICAL });
  assert.deepEqual(e.target, training.canonical.RNNenc);
  assert.deepEqual(e.alignment.shape, [0, 0]);
  assert.deepEqual(e.scores.shape, [0, 0]);
});

test('translateSentence: each step\'s trace is consistent (alpha = softmax(e) sums to 1, c = sum alpha h)', () => {
  for (const sentence of [CANONICAL, 'the treaty was signed', 'the first big summit will not sign the agreement on 12 may 1995']) {
    const r = core.translateSentence({ model: search, sentence });
    const Ty = r.target.length, Tx = r.source.length, dh = r.annotations.shape[1];
    const info = core.translationModelInfo({ model: search });
    assert.deepEqual(r.scores.shape, [Ty, Tx]);
    assert.deepEqual(r.queries.shape, [Ty, info.hiddenDim]);
    assert.deepEqual(r.contexts.shape, [Ty, 2 * info.hiddenDim]);
    assert.deepEqual(r.annotations.shape, [Tx, 2 * info.hiddenDim]);
    assert.equal(r.probabilities.length, Ty);
    for (let i = 0; i < Ty; i++) {
      const e = row(r.scores, i), a = row(r.alignment, i);
      assert.ok(Math.abs(a.reduce((s, x) => s + x, 0) - 1) <= 1e-6, `row ${i} sums to 1`);
      const m = Math.max(...e), z = e.reduce((s, x) => s + Math.exp(x - m), 0);
      e.forEach((x, j) => assert.ok(Math.abs(a[j] - Math.exp(x - m) / z) <= 1e-6, `alpha[${i}][${j}]`));
      const c = row(r.contexts, i);
      for (let k = 0; k < dh; k++) {
        let sum = 0;
        for (let j = 0; j < Tx; j++) sum += a[j] * r.annotations.data[j * dh + k];
        assert.ok(Math.abs(c[k] - sum) <= 1e-5, `c[${i}][${k}]`);
      }
      assert.ok(r.probabilities[i] > 0 && r.probabilities[i] <= 1);
    }
    // s_0 is the first query; later queries differ (the state moves).
    assert.notDeepEqual(Array.from(row(r.queries, 0)), Array.from(row(r.queries, 1)));
  }
});

test('translateSentence: bounded (100 tokens, 4096 characters) and fast at the cap', () => {
  const words = Array.from({ length: 33 }, () => 'the treaty was').join(' ').split(' ');  // 99 words + '.'
  const t0 = performance.now();
  const r = core.translateSentence({ model: search, sentence: words.join(' ') });
  const ms = performance.now() - t0;
  assert.equal(r.source.length, 101);  // 100 tokens and <eos>
  assert.ok(r.target.length <= 2 * 100 + 10);
  assert.ok(ms < 1000, `${ms} ms at the cap`);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: [...words, 'signed'].join(' ') }),
    /^sentence: must hold 1 to 100 words \(the full stop counts\), got 101$/);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: 'a'.repeat(4097) }), /^sentence: must be at most 4096 characters/);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: '  ' }), /^sentence: must hold 1 to 100 words/);
});

test('translateSentence: out-of-vocabulary words are named with the nearest known words', () => {
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: 'the agrement was signed' }),
    /^sentence: 'agrement' is not in this model's vocabulary of 237 English words; try 'agreement'$/);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: 'the agrement was signd by zorblax' }),
    /^sentence: 'agrement', 'signd' and 'zorblax' are not in this model's vocabulary of 237 English words; try 'agreement' for 'agrement', 'sign' for 'signd', /);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: 'the treaty, was signed' }), /^sentence: ',' is not in/);
  throwsThenRecovers(() => core.translateSentence({ model: search, sentence: 42 }), /^sentence: must be a string$/);
});

test('weight bytes: refused with the reason, whatever is wrong with them', () => {
  const version = search.slice();
  version[7] = '2'.charCodeAt(0);
  const magic = search.slice();
  magic[0] = 0;
  const cases = [
    [new Uint8Array(0), /^bytes: the file ends inside its magic number/],
    [search.slice(0, 30), /^bytes: the file ends inside its header/],
    [search.slice(0, search.length - 1), /^bytes: the header's sizes need \d+ bytes of weights, the file holds \d+$/],
    [new Uint8Array([...search, 0]), /^bytes: the header's sizes need/],
    [magic, /^bytes: not an encoder-decoder weights file/],
    [version, /^bytes: weights file version "02" is not supported \(this build reads version "01"\)$/],
    [new Float32Array(4), /^model: must be a Uint8Array or an ArrayBuffer$/],
    [[1, 2, 3], /^model: must be a Uint8Array or an ArrayBuffer$/],
    [undefined, /^model: must be a Uint8Array or an ArrayBuffer$/],
    [new Uint8Array(4 * 2 ** 20 + 1), /^model: has 4194305 bytes, expected at most 4194304$/],
  ];
  for (const [bytes, message] of cases) {
    throwsThenRecovers(() => core.translateSentence({ model: bytes, sentence: CANONICAL }), message);
    throwsThenRecovers(() => core.translationModelInfo({ model: bytes }), message);
  }
  throwsThenRecovers(() => core.translateSentence(undefined), /^model: missing/);
  // A model of other vocabularies cannot translate the corpus's sentences.
  throwsThenRecovers(() => core.translateSentence({ model: other_vocab_model(), sentence: CANONICAL }), /^model: its vocabularies/);
});

// The committed RNNenc file with its source vocabulary size field changed and the weights resized to match.
function other_vocab_model() {
  const info = core.translationModelInfo({ model: enc });
  const bytes = enc.slice();
  const view = new DataView(bytes.buffer);
  const provenance = view.getUint32(8 + 7 * 4, true);
  const embeddingStart = 8 + 8 * 4 + provenance + 4;  // after the first tensor's scale
  // Drop the embedding row of the last source word: source_vocab - 1 rows.
  view.setUint32(8 + 4, info.sourceVocab - 1, true);
  const rowBytes = info.embedDim;
  const cut = embeddingStart + (info.sourceVocab - 1) * rowBytes;
  return new Uint8Array([...bytes.subarray(0, cut), ...bytes.subarray(cut + rowBytes)]);
}
