// The tables and quoted numbers of the Part 4 post (content/posts/attention-inference-optimizations/),
// computed with the inference module the post's figures run (KV-cache sizes, the MLA run, the paged
// allocator's replay, speculative decoding, ring attention) and the flash module's GPU and model
// presets, written to site/data/generated/part4.json.
//
//   node scripts/post-data/part4.mjs           rewrite site/data/generated/part4.json
//   node scripts/post-data/part4.mjs --check   exit 1 if the committed file differs from a fresh run
//
// As for Part 3: every number is returned by the core or quoted from a primary source with the place
// it appears; arithmetic here only combines core results (ratios, bytes ÷ bandwidth).

import {
  POSTS_CPU_RUN, bandwidth, benchRun, benchSource, bytes, decimalGB, fixed, integer, loadModule, perCent, reportErrorsBriefly, times, writeGenerated,
} from './common.mjs';

const CORE_KV = 'the core\'s KV-cache sizes (`kvCacheBytes`, `kvSchemeComparison`: core/include/attn/kvcache/kv_schemes.hpp)';
const CORE_MODELS = 'model presets of the project core (core/src/models/model_presets.cpp: each count from the paper or the model\'s config.json)';
const DSV2 = 'DeepSeek-AI 2024, DeepSeek-V2 (arXiv:2405.04434)';
const VLLM = 'Kwon et al. 2023, PagedAttention (arXiv:2309.06180)';

// The contexts the tables follow: 8k, 32k and 128k tokens.
const CONTEXTS = [8192, 32768, 131072];
const contextLabel = (n) => `${n / 1024}k`;

// Elements one token adds to one layer's cache, in words.
function cachedPerLayer(info) {
  if (info.scheme === 'mla') return `latent ${info.latentDim} + RoPE key ${info.ropeDim} = ${integer(info.elementsPerTokenPerLayer)}`;
  const heads = info.kvHeads === 1 ? '1 head' : `${info.kvHeads} heads`;
  return `K and V, ${heads} × ${info.headDim} = ${integer(info.elementsPerTokenPerLayer)}`;
}
const SCHEME_NAMES = { mha: 'MHA', mqa: 'MQA', gqa: 'GQA', mla: 'MLA' };

function part4Data(inference, flash) {
  const tables = {};
  const values = {};
  const gpus = Object.fromEntries(flash.gpuPresets().map((g) => [g.id, g]));
  const H100 = gpus['h100-sxm'];

  // --- The budget formula on Llama 3.1 70B ------------------------------------------------------
  {
    const model = inference.kvCacheBytes({ model: 'llama3-70b', contextTokens: 131072 });
    const preset = flash.modelPreset('llama3-70b');
    values['llama70b.layers'] = integer(model.layers);
    values['llama70b.qheads'] = integer(model.qHeads);
    values['llama70b.kvheads'] = integer(model.kvHeads);
    values['llama70b.headdim'] = integer(model.headDim);
    values['llama70b.per_token.exact'] = integer(model.bytesPerToken);
    values['llama70b.per_token'] = bytes(model.bytesPerToken);
    values['llama70b.128k'] = bytes(model.bytesPerRequest);
    values['llama70b.name'] = preset.name;
    values['h100.hbm'] = decimalGB(H100.hbmBytes.value);
    values['h100.bandwidth'] = bandwidth(H100.hbmBytesPerS.value);
    // TPOT's floor from the cache alone: every decode step reads the whole cache once.
    values['llama70b.128k.read_ms'] = `${fixed(model.bytesPerRequest / H100.hbmBytesPerS.value * 1e3, 1)} ms`;
    // How many 8k-token requests' caches one H100's memory holds, before any weights.
    const at8k = inference.kvCacheBytes({ model: 'llama3-70b', contextTokens: 8192 });
    values['llama70b.8k'] = bytes(at8k.bytesPerRequest);
  }

  // --- The scheme table: one Llama-3-70B-like shape under MHA, MQA, GQA-8, MLA ------------------
  {
    const byContext = CONTEXTS.map((contextTokens) => inference.kvSchemeComparison({ contextTokens }));
    const schemes = byContext[0];
    const mha = schemes.find((s) => s.scheme === 'mha');
    const rows = schemes.map((s, i) => [
      s.scheme === 'gqa' ? `GQA (G = ${s.kvHeads})` : s.scheme === 'mla' ? `MLA (\\(d_c\\) = ${s.latentDim}, \\(d_R\\) = ${s.ropeDim})` : SCHEME_NAMES[s.scheme],
      cachedPerLayer(s),
      bytes(s.bytesPerToken),
      ...byContext.map((c) => bytes(c[i].bytesPerRequest)),
      s.scheme === 'mha' ? '1×' : `${fixed(mha.bytesPerToken / s.bytesPerToken, 1)}× smaller`,
    ]);
    tables['kv-schemes'] = {
      caption: `One request's KV cache for a Llama-3-70B-like shape (${mha.layers} layers, ${mha.qHeads} query heads of ${mha.headDim}, FP16) under each scheme`,
      columns: [
        { label: 'Scheme' }, { label: 'Cached per token per layer (elements)' }, { label: 'Per token', numeric: true },
        ...CONTEXTS.map((n) => ({ label: `${contextLabel(n)} tokens`, numeric: true })),
        { label: 'vs MHA', numeric: true },
      ],
      rows,
      notes: [
        'Binary units (1 KiB = 1,024 bytes, 1 GiB = 1,024³ bytes). MHA, MQA and GQA: \\(2 \\times L \\times H_{kv} \\times d_h \\times 2\\) bytes. MLA: \\(L \\times (d_c + d_R) \\times 2\\) bytes, with DeepSeek-V2\'s latent width \\(d_c = 512\\) and RoPE key width \\(d_R = 64\\) put on this shape (a what-if: no Llama model uses MLA).',
      ],
      source: `Computed by ${CORE_KV}; the formulas follow ${DSV2}, Table 1.`,
    };
    const gqa = schemes.find((s) => s.scheme === 'gqa');
    const mla = schemes.find((s) => s.scheme === 'mla');
    const mqa = schemes.find((s) => s.scheme === 'mqa');
    const at128k = byContext[2];
    values['schemes.mha.per_token'] = bytes(mha.bytesPerToken);
    values['schemes.mha.128k'] = bytes(at128k.find((s) => s.scheme === 'mha').bytesPerRequest);
    // How many H100s' memory the multi-head cache of one 128k request fills.
    values['schemes.mha.128k.h100s'] = fixed(at128k.find((s) => s.scheme === 'mha').bytesPerRequest / H100.hbmBytes.value, 1);
    values['schemes.mqa.per_token'] = bytes(mqa.bytesPerToken);
    values['schemes.mla.per_token'] = bytes(mla.bytesPerToken);
    values['schemes.mla.128k'] = bytes(at128k.find((s) => s.scheme === 'mla').bytesPerRequest);
    values['schemes.gqa_over_mla'] = times(gqa.bytesPerToken / mla.bytesPerToken, 1);
    values['schemes.mla_equivalent_groups'] = fixed(mla.elementsPerTokenPerLayer / (2 * mha.headDim), 2);
  }

  // --- Real models --------------------------------------------------------------------------------
  {
    const ids = ['llama3-8b', 'llama3-70b', 'llama3-405b', 'mistral-7b', 'deepseek-v2', 'deepseek-v3'];
    const rows = ids.map((id) => {
      const name = flash.modelPreset(id).name;
      const at = CONTEXTS.map((contextTokens) => inference.kvCacheBytes({ model: id, contextTokens }));
      const s = at[0];
      const attention = s.scheme === 'mla' ? 'MLA' : s.scheme === 'gqa' ? `GQA, ${s.qHeads} query heads` : SCHEME_NAMES[s.scheme];
      const window = s.slidingWindow ? `, window ${integer(s.slidingWindow)}` : '';
      return [name, `${attention}${window}`, `${s.layers} × ${cachedPerLayer(s).replace(/^K and V, /, '2 × ')}`, bytes(s.bytesPerToken),
        ...at.map((r) => bytes(r.bytesPerRequest))];
    });
    tables['kv-presets'] = {
      caption: 'The KV cache of published models, per request, in BF16/FP16',
      columns: [
        { label: 'Model' }, { label: 'Attention' }, { label: 'Layers × elements per token per layer' }, { label: 'Per token', numeric: true },
        ...CONTEXTS.map((n) => ({ label: `${contextLabel(n)} tokens`, numeric: true })),
      ],
      rows,
      notes: [
        'Mistral 7B keeps only the last 4,096 tokens of each layer (a rolling buffer), so its cache stops growing there. Context lengths beyond a model\'s trained maximum are shown for comparison only.',
      ],
      source: `Computed by ${CORE_KV} from the ${CORE_MODELS}.`,
    };
    const mistral = inference.kvCacheBytes({ model: 'mistral-7b', contextTokens: 131072 });
    values['mistral.window'] = integer(mistral.slidingWindow);
    values['mistral.128k'] = bytes(mistral.bytesPerRequest);
    values['mistral.per_token'] = bytes(mistral.bytesPerToken);
    values['mistral.unwindowed.128k'] = bytes(mistral.bytesPerToken * mistral.contextTokens);
    const field = inference.slidingWindowReceptiveField({ layers: mistral.layers, window: mistral.slidingWindow });
    values['mistral.layers'] = integer(mistral.layers);
    values['mistral.reach'] = integer(field.reachTokens);
    values['mistral.paper_reach'] = integer(field.paperReachTokens);
  }

  // --- MLA: the 93.3 % in context, and the absorbed form ----------------------------------------
  {
    // DeepSeek 67B, the dense model DeepSeek-V2 is compared with: 95 layers, 64 heads, 8 K/V heads
    // (GQA), model dimension 8,192, so heads of 128 (DeepSeek LLM, arXiv:2401.02954, Table 2).
    const ds67 = inference.kvCacheBytes({ scheme: 'gqa', layers: 95, qHeads: 64, kvHeads: 8, headDim: 128, dtype: 'bf16', contextTokens: 1 });
    const v2 = inference.kvCacheBytes({ model: 'deepseek-v2', dtype: 'bf16', contextTokens: 1 });
    const v2preset = flash.modelPreset('deepseek-v2');
    // DeepSeek-V2 §3.2.3: deployed with its KV cache quantised to 6 bits per element on average.
    const DEPLOYED_BITS = 6;
    const v2deployed = v2.bytesPerToken * DEPLOYED_BITS / 16;
    // The same 60 layers of 128 heads of 128 with every head's K and V cached (MHA).
    const v2mha = inference.kvCacheBytes({ scheme: 'mha', layers: v2.layers, qHeads: v2preset.qHeads.value, headDim: v2preset.headDim.value, dtype: 'bf16', contextTokens: 1 });
    const reduction = (b) => perCent(1 - b / ds67.bytesPerToken, 1);
    tables['mla-context'] = {
      caption: 'What DeepSeek-V2\'s "93.3% less KV cache" compares: bytes per token against DeepSeek 67B',
      columns: [{ label: 'Model and cache' }, { label: 'Per token per layer' }, { label: 'Per token', numeric: true }, { label: 'Less than DeepSeek 67B', numeric: true }],
      rows: [
        ['DeepSeek 67B: GQA, 8 K/V heads, BF16', `${integer(ds67.elementsPerTokenPerLayer)} elements`, bytes(ds67.bytesPerToken), '—'],
        ['DeepSeek-V2 with MHA (what-if), BF16', `${integer(v2mha.elementsPerTokenPerLayer)} elements`, bytes(v2mha.bytesPerToken), `${fixed(v2mha.bytesPerToken / ds67.bytesPerToken, 1)}× more`],
        ['DeepSeek-V2: MLA, BF16', `${integer(v2.elementsPerTokenPerLayer)} elements`, bytes(v2.bytesPerToken), reduction(v2.bytesPerToken)],
        [`DeepSeek-V2 as deployed: MLA, ${DEPLOYED_BITS}-bit cache`, `${integer(v2.elementsPerTokenPerLayer)} elements`, bytes(v2deployed), reduction(v2deployed)],
      ],
      notes: [
        `DeepSeek 67B is dense (no mixture of experts) with ${ds67.layers} layers; DeepSeek-V2 has ${v2.layers} layers of ${v2preset.qHeads.value} heads of ${v2preset.headDim.value}. The what-if row caches every head's K and V on DeepSeek-V2's shape: against it, MLA caches ${perCent(1 - v2.bytesPerToken / v2mha.bytesPerToken, 1)} less. The paper's 93.3% is the last row, whose cache is quantised to ${DEPLOYED_BITS} bits per element on average: it also counts fewer layers (${v2.layers} against ${ds67.layers}) and ${DEPLOYED_BITS} bits against BF16's 16.`,
      ],
      source: `Bytes computed by ${CORE_KV}. Shapes: DeepSeek 67B from Bi et al. 2024, DeepSeek LLM (arXiv:2401.02954), Table 2; DeepSeek-V2 from the ${CORE_MODELS}. The ${DEPLOYED_BITS}-bit cache and the 93.3%: ${DSV2}, abstract and §3.2.3.`,
    };
    values['ds67.per_token'] = bytes(ds67.bytesPerToken);
    values['dsv2.per_token'] = bytes(v2.bytesPerToken);
    values['dsv2.deployed.per_token'] = bytes(v2deployed);
    values['dsv2.bf16.reduction'] = reduction(v2.bytesPerToken);
    values['dsv2.deployed.reduction'] = reduction(v2deployed);
    values['dsv2.vs_mha.reduction'] = perCent(1 - v2.bytesPerToken / v2mha.bytesPerToken, 1);
    values['dsv2.elements'] = integer(v2.elementsPerTokenPerLayer);
    values['dsv2.mha.elements'] = integer(v2mha.elementsPerTokenPerLayer);

    // The absorbed form computes the same attention as the explicit one: two seeded runs.
    const runs = [
      { modelDim: 64, heads: 8, latentDim: 32, nopeDim: 16, ropeDim: 8, valueDim: 16, seqLen: 33, queryLen: 1, seed: 7 },
      { modelDim: 64, heads: 16, latentDim: 64, nopeDim: 16, ropeDim: 8, valueDim: 16, seqLen: 33, queryLen: 0, seed: 7 },
    ];
    const rows = runs.map((r) => {
      const m = inference.mlaCompare(r);
      return [`${r.heads} heads, \\(d_c\\) = ${r.latentDim}, \\(d_R\\) = ${r.ropeDim}, ${r.seqLen} tokens, ${r.queryLen === 1 ? 'one decode query' : 'every token a query (causal)'}`,
        integer(m.explicitCacheElementsPerToken), integer(m.absorbedCacheElementsPerToken), m.maxAbsDiff.toExponential(1)];
    });
    tables['mla-absorbed'] = {
      caption: 'MLA computed two ways on seeded random weights: per-head K and V rebuilt from the latent (explicit), or attention taken against the latent itself with \\(W^{UK}\\) and \\(W^{UV}\\) absorbed',
      columns: [{ label: 'Layer' }, { label: 'Cached per token, explicit', numeric: true }, { label: 'Cached per token, absorbed', numeric: true }, { label: 'Largest output difference', numeric: true }],
      rows,
      notes: ['Both forms in double precision; the difference is rounding. Query and key heads have \\(d_h = 16\\) dimensions from the latent plus \\(d_R = 8\\) rotated by RoPE.'],
      source: `Computed by the core (\`mlaCompare\`: core/include/attn/attention/mla.hpp), following ${DSV2}, §2.1.`,
    };
  }

  // --- PagedAttention against contiguous reservations on the same seeded workload --------------
  {
    const defaults = inference.pagedWorkloadDefaults();
    const s = inference.pagedSummary({});
    const labels = {
      paged: 'Paged, blocks of 16 tokens',
      contiguousMaxLen: 'Contiguous: prompt + maximum output',
      contiguousPow2: 'Contiguous: next power of two',
      contiguousOracle: 'Contiguous: exact final length',
    };
    const rows = Object.entries(labels).map(([key, label]) => {
      const r = s[key];
      return [label, perCent(r.meanUtilisation, 1), perCent(r.meanReservedFutureFraction, 1), perCent(r.meanInternalFragmentationFraction, 1),
        perCent(r.meanExternalFragmentationFraction, 1), integer(r.peakRunningRequests),
        fixed(r.meanQueueDelaySteps, 1), integer(r.steps), integer(r.preemptions)];
    });
    const capacity = defaults.numBlocks * defaults.blockSize;
    tables.paged = {
      caption: `One seeded serving workload (${defaults.numRequests} requests, ${perCent(defaults.parallelFraction)} of them asking for several samples) in a pool of ${integer(capacity)} token slots, under each allocator`,
      columns: [
        { label: 'Allocator' }, { label: 'Memory utilisation', numeric: true }, { label: 'Reserved', numeric: true },
        { label: 'Internal fragmentation', numeric: true }, { label: 'External fragmentation', numeric: true },
        { label: 'Requests running (peak)', numeric: true }, { label: 'Mean wait (steps)', numeric: true },
        { label: 'Steps to serve all', numeric: true }, { label: 'Preemptions', numeric: true },
      ],
      rows,
      notes: [
        'Utilisation: live K/V slots ÷ slots taken, averaged over decoding steps (the measure of the paper\'s Figure 2). Reserved (for tokens not generated yet), internal and external fragmentation: shares of the whole pool, averaged over steps. A token shared by parallel samples is counted once. The exact-length policy needs each output\'s length in advance: a bound no server can reach. Mean wait: from arrival to admission.',
        `Workload: arrivals every ${defaults.meanInterarrivalSteps} steps on average, prompts of ${defaults.minPromptTokens}–${defaults.maxPromptTokens} tokens, outputs exponential with mean ${defaults.meanOutputTokens} (at most ${defaults.maxOutputTokens}), seed ${defaults.seed}. The paged allocator preempts the newest request when the pool runs out and recomputes it later (vLLM's policy).`,
      ],
      source: `Replayed by the core (\`pagedSummary\`: core/include/attn/kvcache/paged_kv_cache.hpp, contiguous_kv_cache.hpp, serving_workload.hpp), following ${VLLM}, §3–4.`,
    };
    values['paged.utilisation'] = perCent(s.paged.meanUtilisation, 1);
    values['paged.internal'] = perCent(s.paged.meanInternalFragmentationFraction, 1);
    values['paged.maxlen.utilisation'] = perCent(s.contiguousMaxLen.meanUtilisation, 1);
    values['paged.oracle.utilisation'] = perCent(s.contiguousOracle.meanUtilisation, 1);
    values['paged.steps'] = integer(s.paged.steps);
    values['paged.maxlen.steps'] = integer(s.contiguousMaxLen.steps);
    values['paged.preemptions'] = integer(s.paged.preemptions);
    values['paged.peak'] = integer(s.paged.peakRunningRequests);
    values['paged.maxlen.peak'] = integer(s.contiguousMaxLen.peakRunningRequests);
    values['paged.peak_ratio'] = fixed(s.paged.peakRunningRequests / s.contiguousMaxLen.peakRunningRequests, 1);
  }

  // --- Speculative decoding -------------------------------------------------------------------
  {
    const ALPHA = 0.8, GAMMA = 4, COST = 0.05, RUNS = 100000, SEED = 2023;
    const worked = inference.speculativeDecoding({ alpha: ALPHA, gamma: GAMMA, costRatio: COST });
    const sim = inference.simulateSpeculativeDecoding({ alpha: ALPHA, gamma: GAMMA, runs: RUNS, seed: SEED });
    values['spec.alpha'] = String(ALPHA);
    values['spec.gamma'] = String(GAMMA);
    values['spec.cost'] = String(COST);
    values['spec.expected'] = fixed(worked.expectedTokens, 2);
    values['spec.improvement'] = times(worked.walltimeImprovement, 2);
    values['spec.best_gamma'] = String(worked.bestGamma);
    values['spec.best_improvement'] = times(inference.speculativeDecoding({ alpha: ALPHA, gamma: worked.bestGamma, costRatio: COST }).walltimeImprovement, 2);
    values['spec.sim.mean'] = fixed(sim.meanTokens, 3);
    values['spec.sim.stderr'] = fixed(sim.stderrTokens, 3);
    values['spec.sim.runs'] = integer(RUNS);

    const gammas = [1, 2, 4, 8];
    const rows = [0.5, 0.6, 0.7, 0.8, 0.9].map((alpha) => {
      const best = inference.speculativeDecoding({ alpha, gamma: 1, costRatio: COST });
      const atBest = inference.speculativeDecoding({ alpha, gamma: best.bestGamma, costRatio: COST });
      return [String(alpha), ...gammas.map((gamma) => fixed(inference.speculativeDecoding({ alpha, gamma }).expectedTokens, 2)),
        String(best.bestGamma), times(atBest.walltimeImprovement, 2)];
    });
    tables.speculative = {
      caption: 'Speculative decoding: tokens produced per run of the large model, by acceptance rate α and draft length γ',
      columns: [
        { label: 'Acceptance rate α' }, ...gammas.map((g) => ({ label: `γ = ${g}`, numeric: true })),
        { label: `Best γ when a draft token costs c = ${COST} of a target run`, numeric: true }, { label: 'Speed-up at that γ', numeric: true },
      ],
      rows,
      notes: [
        `Expected tokens \\((1 - \\alpha^{\\gamma+1}) / (1 - \\alpha)\\) (the paper's Eq. 1); speed-up = that ÷ (cγ + 1) (its Theorem 3.8), with α taken as the same for every token. A Monte-Carlo run of the acceptance process at α = ${ALPHA}, γ = ${GAMMA} (${integer(RUNS)} runs, seed ${SEED}) gives ${fixed(sim.meanTokens, 3)} ± ${fixed(sim.stderrTokens, 3)} tokens.`,
      ],
      source: 'Computed by the core (`speculativeDecoding`, `simulateSpeculativeDecoding`: core/include/attn/attention/speculative.hpp), following Leviathan, Kalman & Matias 2023 (arXiv:2211.17192), §3.',
    };
  }

  // --- Ring attention: compute against the K/V hand-off ------------------------------------------
  {
    // The ring figure's model, precision and default ring (site/viz/ring-attention-rotation/model.ts),
    // so that the figure below the table opens on the 50 GB/s row.
    const DEVICES = 4, SEQ = 131072, MODEL = 'llama3-70b';
    const head = inference.kvCacheBytes({ model: MODEL, contextTokens: 1 });
    const shape = { devices: DEVICES, seqLen: SEQ, qHeads: head.qHeads, kvHeads: head.kvHeads, headDim: head.headDim, causal: 'none', gpu: 'h100-sxm', precision: 'bf16' };
    const links = [25e9, 50e9, 450e9];
    const ms = (s) => `${fixed(s * 1e3, 1)} ms`;
    const rows = links.map((linkBytesPerS) => {
      const t = inference.ringAttentionTiming({ ...shape, linkBytesPerS });
      return [bandwidth(linkBytesPerS), ms(t.steps[0].computeTimeS), ms(t.steps[0].sendTimeS), integer(Math.ceil(t.minShardTokensToHide)),
        t.commHidden ? 'yes' : 'no', ms(t.ringTimeS), ms(t.allgatherTimeS)];
    });
    const t50 = inference.ringAttentionTiming({ ...shape, linkBytesPerS: 50e9 });
    tables.ring = {
      caption: `Ring attention over ${DEVICES} ${H100.name.replace(/^NVIDIA /, '')} GPUs: one ${flash.modelPreset(MODEL).name} layer's attention for ${integer(SEQ)} tokens (${head.qHeads} query heads, ${head.kvHeads} K/V heads of ${head.headDim}, BF16, no mask)`,
      columns: [
        { label: 'Link bandwidth (a choice, not a spec)' }, { label: 'Compute per step', numeric: true }, { label: 'K/V hand-off per step', numeric: true },
        { label: 'Shard length that hides the hand-off (tokens)', numeric: true }, { label: 'Hidden?' },
        { label: 'Ring, total', numeric: true }, { label: 'All-gather first, total', numeric: true },
      ],
      rows,
      notes: [
        `Each device keeps ${integer(SEQ / DEVICES)} queries and receives one K/V shard of ${bytes(t50.kvShardBytes)} per step. All-gather: every device first receives the other ${DEVICES - 1} shards, then computes. The model takes the GPU's dense BF16 peak for compute and ignores latency.`,
      ],
      source: `Computed by the core (\`ringAttentionTiming\`: core/include/attn/attention/ring_attention.hpp) with the H100 SXM preset, following Liu, Zaharia & Abbeel 2023 (arXiv:2310.01889), §3.`,
    };
    values['ring.devices'] = integer(DEVICES);
    values['ring.compute'] = ms(t50.steps[0].computeTimeS);
    values['ring.send'] = ms(t50.steps[0].sendTimeS);
    values['ring.min_tokens'] = integer(Math.ceil(t50.minShardTokensToHide));
    values['ring.shard'] = bytes(t50.kvShardBytes);
    values['ring.shard_tokens'] = integer(SEQ / DEVICES);
    values['ring.kv_per_device'] = bytes(t50.ringKvBytesPerDevice);
    values['ring.allgather_kv_per_device'] = bytes(t50.allgatherKvBytesPerDevice);
  }

  // --- GQA's conversion, before uptraining: how much mean-pooling changes a layer -----------------
  {
    const shape = { modelDim: 64, heads: 8, headDim: 16, seqLen: 64, seed: 1 };
    const similarities = [0, 0.5, 0.9, 1];
    const runs = similarities.map((similarity) => inference.gqaConversion({ ...shape, similarity }));
    tables['gqa-conversion'] = {
      caption: `Mean-pooling a random ${shape.heads}-head layer's K/V heads into G groups, before any uptraining: how much the heads' attention outputs change`,
      columns: [{ label: 'K/V groups G' }, ...similarities.map((s) => ({ label: s === 0 ? 'independent heads' : s === 1 ? 'identical heads' : `heads ${s} alike`, numeric: true }))],
      rows: runs[0].map((e, i) => [
        e.groups === shape.heads ? `${e.groups} (MHA, unchanged)` : e.groups === 1 ? '1 (MQA)' : String(e.groups),
        ...runs.map((r) => perCent(r[i].relativeChange)),
      ]),
      notes: [`Relative change \\(\\lVert O_G - O \\rVert / \\lVert O \\rVert\\) of the ${shape.heads} heads' outputs on ${shape.seqLen} random tokens (model width ${shape.modelDim}, heads of ${shape.headDim}). "Alike" mixes one shared K/V block into every head: each head's projection is s × shared + √(1 − s²) × its own.`],
      source: 'Computed by the core: `gqaConversion` (`mean_pool_kv_heads`, `similar_head_projections` and `gqa_conversion_effects` in `attn/kvcache/gqa_conversion.hpp`), attention by `sdpa` in double.',
    };
    values['gqa.independent.g1'] = perCent(runs[0].at(-1).relativeChange);
    values['gqa.alike.g1'] = perCent(runs[2].at(-1).relativeChange);
  }

  return { tables, values };
}

// The measured CPU decode table: one layer of the Llama 3.1 70B shape, paged and contiguous, beside a
// streaming read of the same bytes, from the committed benchmark run.
function decodeTable(run, data) {
  const rows = run.decode.filter((r) => r.model === 'llama3-70b');
  const gbps = (x) => `${fixed(x / 1e9, 1)} GB/s`;
  data.tables['decode-cpu'] = {
    caption: 'Measured on a CPU: one decode step over one layer\'s KV cache, Llama 3.1 70B\'s attention shape (64 query heads, 8 K/V heads of 128), FP32',
    columns: [{ label: 'Context (tokens)' }, { label: 'K/V read', numeric: true }, { label: 'Paged (16-token blocks)', numeric: true }, { label: 'Contiguous', numeric: true }, { label: 'Streaming read of the same bytes', numeric: true }, { label: 'Paged / streaming', numeric: true }],
    rows: rows.map((r) => [integer(r.context), bytes(r.kv_bytes), gbps(r.paged_bytes_per_s), gbps(r.contiguous_bytes_per_s), gbps(r.stream_bytes_per_s), perCent(r.paged_percent_of_stream / 100)]),
    notes: ['The streaming read is the bandwidth this machine gives a simple loop over the same bytes, measured in the same run: the ceiling a decode kernel could approach. Blocks are shuffled in memory, as a paged allocator leaves them. Every timed call starts with the cache evicted from the CPU\'s caches, as a layer\'s cache is in a model whose other layers ran since.'],
    source: benchSource(run, 'native/bench/decode_benchmarks.cpp, attn::paged_decode_fast'),
  };
  const longest = rows[rows.length - 1];
  data.values['decodecpu.share.longest'] = perCent(longest.paged_percent_of_stream / 100);
  data.values['decodecpu.paged.longest'] = gbps(longest.paged_bytes_per_s);
  return data;
}

reportErrorsBriefly('post-data/part4');
const data = part4Data(await loadModule('inference'), await loadModule('flash'));
await writeGenerated('part4', 'scripts/post-data/part4.mjs', decodeTable(await benchRun(POSTS_CPU_RUN, 'decode'), data));
