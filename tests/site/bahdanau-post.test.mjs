// Checks the built Part 1 post (content/posts/attention-history-bahdanau-to-transformer/) in an
// already-built site (SITE_DIR, default public/): every post's checks (post-checks.mjs), then its
// own: the BLEU table is the training run's, the worked alignment is the trained model's, and the
// series plan's wrong figures stay corrected.
//
//   hugo --source site --minify && node --test tests/site/bahdanau-post.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkPost, loadPost, repoRoot, textOf } from './post-checks.mjs';

const post = loadPost('attention-history-bahdanau-to-transformer', 'part1');
const training = JSON.parse(readFileSync(join(repoRoot, 'site', 'data', 'generated', 'bahdanau_training.json'), 'utf8'));

checkPost(post, {
  number: 1,
  title: 'From Alignment to Attention: How Transformers Replaced the RNN (2014–2017)',
  figures: ['attention-bahdanau-alignment', 'attention-scoring-functions', 'attention-multihead-self'],
  dataScript: 'scripts/post-data/part1.mjs',
  quoted: [
    'models.search.parameters', 'models.search.file', 'canonical.source', 'canonical.search', 'canonical.enc',
    'alignment.économique', 'alignment.européenne', 'sqrtd.64.raw.variance', 'sqrtd.64.scaled.variance',
    'example.dot.min', 'example.dot.max', 'example.dot.top', 'example.scaled.max', 'example.scaled.top',
    'n2.512.entries', 'n2.512.model', 'n2.4096.model', 'n2.16384.model',
  ],
  minTables: 7,
  maxMinutes: 25,
  maxWords: 5000,
  minReferences: 10,
});

test('the BLEU table is the training run\'s, bin by bin', () => {
  const body = textOf(post.tableFigure('bleu-by-length'));
  for (const bin of training.bleu_by_source_length) {
    const row = `${bin.min_tokens}–${bin.max_tokens} ${bin.sentences} ${bin.RNNenc.toFixed(1)} ${bin.RNNsearch.toFixed(1)}`;
    assert.ok(body.includes(row), `row "${row}" not in the table`);
  }
  assert.match(body, new RegExp(`commit ${training.provenance.commit}`));
});

test('the plan\'s wrong figures stay corrected', () => {
  // BERT-base at 512 tokens holds 37.7 million weights per sequence (72 MiB in FP16), not "38 MB".
  assert.doesNotMatch(post.visibleText, /38 MB/);
  // The Transformer's translation inputs were sentences; 512 tokens was BERT's window, not the Transformer's N.
  assert.doesNotMatch(post.visibleText, /N was ~?512/);
});
