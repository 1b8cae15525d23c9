// Checks the built Part 2 post (content/posts/attention-approximation-era/) in an already-built site
// (SITE_DIR, default public/): every post's checks (post-checks.mjs), then its own: the measured
// crossover table carries its run's provenance, the Long Range Arena scores are quoted as the paper
// gives them, and the series plan's wrong figures stay corrected.
//
//   hugo --source site --minify && node --test tests/site/approximation-post.test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkPost, loadPost, textOf } from './post-checks.mjs';

const post = loadPost('attention-approximation-era', 'part2');

checkPost(post, {
  number: 2,
  title: 'Escaping N²: The Approximate-Attention Era (2019–2021)',
  figures: ['attention-pattern-zoo', 'lsh-attention-bucketing', 'attention-complexity-scaling', 'approximation-price'],
  dataScript: 'scripts/post-data/part2.mjs',
  quoted: [
    'wall.8192.model', 'wall.32768.model', 'complexity.dense.65536.flops', 'complexity.sparse.65536.flops', 'assoc.quadratic.flops', 'assoc.linear.flops',
    'crossover.performer', 'crossover.linformer', 'crossover.linear', 'crossover.sliding_window', 'crossover.lsh',
  ],
  minTables: 5,
  maxMinutes: 25,
  maxWords: 5000,
  minReferences: 12,
});

test('the measured crossover table names the machine, commit and command of its run', () => {
  const figure = post.tableFigure('crossover');
  assert.ok(figure, 'no crossover table');
  assert.match(textOf(figure), /Measured: machine \S+ \(.+\), .+ commit \S+, .+ command/);
});

test('the Long Range Arena scores are the paper\'s (Tay et al. 2021, Table 1)', () => {
  // Average over the tasks: Transformer 54.39, BigBird 55.01, Performer 51.41, Linformer 51.36,
  // Reformer 50.67, Linear Transformer 50.55; retrieval: Transformer 57.46, Performer 53.82.
  for (const score of ['54.39', '55.01', '51.41', '51.36', '50.67', '50.55', '57.46', '53.82', '52.27', '53.40']) {
    assert.ok(post.visibleText.includes(score), `LRA score ${score} missing`);
  }
});

test('the plan\'s wrong figures stay corrected', () => {
  // The plan's N^2 table prints binary sizes with decimal units ("0.5 MB", "~770 GB").
  assert.doesNotMatch(post.visibleText, /0\.5 MB|770 GB|~190 MB|~50 GB/);
});
