// Published results, not ours: Long Range Arena, Tay et al. 2020, "Long Range Arena: A Benchmark
// for Efficient Transformers", arXiv:2011.04006, Table 1 (test accuracy, %, on ListOps, Text,
// Retrieval, Image, Pathfinder; every model failed Path-X). The benchmark's leaderboard,
// github.com/google-research/long-range-arena README, "as of 8th November 2020", has the same values
// except the Sinkhorn Transformer's average, 51.29 there against the paper's 51.39.
export const LRA_SOURCE = 'Tay et al. 2020, Long Range Arena, arXiv:2011.04006, Table 1';
export const LRA_URL = 'https://arxiv.org/abs/2011.04006';
export const LRA_TASKS = ['ListOps', 'Text', 'Retrieval', 'Image', 'Path', 'Avg'] as const;

export interface LraRow { model: string; scores: readonly number[] }

export const LRA_ROWS: readonly LraRow[] = [
  { model: 'Transformer', scores: [36.37, 64.27, 57.46, 42.44, 71.40, 54.39] },
  { model: 'Local Attention', scores: [15.82, 52.98, 53.39, 41.46, 66.63, 46.06] },
  { model: 'Sparse Trans.', scores: [17.07, 63.58, 59.59, 44.24, 71.71, 51.24] },
  { model: 'Longformer', scores: [35.63, 62.85, 56.89, 42.22, 69.71, 53.46] },
  { model: 'BigBird', scores: [36.05, 64.02, 59.29, 40.83, 74.87, 55.01] },
  { model: 'Reformer', scores: [37.27, 56.10, 53.40, 38.07, 68.50, 50.67] },
  { model: 'Linformer', scores: [35.70, 53.94, 52.27, 38.56, 76.34, 51.36] },
  { model: 'Performer', scores: [18.01, 65.40, 53.82, 42.77, 77.05, 51.41] },
  { model: 'Linear Trans.', scores: [16.13, 65.90, 53.09, 42.34, 75.30, 50.55] },
  { model: 'Synthesizer', scores: [36.99, 61.68, 54.67, 41.61, 69.45, 52.88] },
  { model: 'Sinkhorn Trans.', scores: [33.67, 61.20, 53.83, 41.23, 67.45, 51.39] },
];
