// Hand-written declaration of the GPU and model presets, bound by the flash and the inference
// module from one implementation (wasm/common/presets_js.cpp): every number with its source.

/** A number from a primary source. */
export interface SourcedNumber {
  /** In the unit the field's name states; 0 = feature not supported; null = no primary source publishes it. */
  value: number | null;
  /** Document, table and page, or "not supported: …" / "not published: …". */
  source: string;
}

export interface GpuPresetInfo {
  /** Stable key: 'v100-sxm2-32gb' | 't4' | 'a100-sxm-40gb' | 'a100-sxm-80gb' | 'h100-sxm' | 'h100-pcie' | 'h200-sxm' | 'b200' | 'rtx-4090' | 'l40s'. */
  id: string;
  /** Marketing name, e.g. "NVIDIA A100 80GB SXM". */
  name: string;
  /** e.g. "Ampere (sm_80)". */
  architecture: string;
  /** Kind of device memory: "HBM2e", "GDDR6X", … */
  memoryType: string;
  smCount: SourcedNumber;
  /** The clock NVIDIA computes peak rates at, Hz (printed, or derived from the FP32 peak; the source says which). */
  boostClockHz: SourcedNumber;
  /** 32-bit registers of one SM, bytes (256 KB on every preset). */
  registerFilePerSmBytes: SourcedNumber;
  /** Largest shared memory one SM can give its thread blocks, bytes (binary KB). */
  sramPerSmBytes: SourcedNumber;
  /** Aggregate shared-memory bandwidth of all SMs, bytes per second: 128 bytes per clock per SM x smCount x boostClockHz (derived by the core). */
  sramBytesPerS: SourcedNumber;
  l2Bytes: SourcedNumber;
  /** Aggregate L2 bandwidth, bytes per second: no cited document publishes it (null on every preset). */
  l2BytesPerS: SourcedNumber;
  /** Device memory capacity, bytes (vendor GB = 1e9). */
  hbmBytes: SourcedNumber;
  /** Device memory bandwidth, bytes per second. */
  hbmBytesPerS: SourcedNumber;
  /** Link to host memory (PCIe) as the datasheet prints it, both directions together, bytes per second. */
  hostLinkBytesPerS: SourcedNumber;
  /** Dense FP32 on CUDA cores, FLOP/s. */
  fp32Flops: SourcedNumber;
  /** Dense TF32 tensor-core peak, FLOP/s. */
  tf32Flops: SourcedNumber;
  /** Dense FP16/BF16 tensor-core peak with FP32 accumulation, FLOP/s. */
  fp16Flops: SourcedNumber;
  /** Dense FP8 tensor-core peak, FLOP/s. */
  fp8Flops: SourcedNumber;
}

/** Multi-head latent attention dimensions (DeepSeek-V2/V3). */
export interface MlaDimsInfo {
  /** d_c: cached latent per token. */
  kvLoraRank: SourcedNumber;
  /** d_h^R: decoupled RoPE key per token. */
  qkRopeHeadDim: SourcedNumber;
  qkNopeHeadDim: SourcedNumber;
  vHeadDim: SourcedNumber;
  /** d'_c: query latent. */
  qLoraRank: SourcedNumber;
}

export interface ModelPresetInfo {
  /** 'bert-base' | 'bert-large' | 'gpt2' | 'gpt2-xl' | 'gpt3-175b' | 'opt-13b' | 'mistral-7b' | 'deepseek-v2' | 'llama3-8b' | 'llama3-70b' | 'llama3-405b' | 'deepseek-v3'. */
  id: string;
  name: string;
  layers: SourcedNumber;
  hiddenSize: SourcedNumber;
  qHeads: SourcedNumber;
  kvHeads: SourcedNumber;
  headDim: SourcedNumber;
  /** Tokens. */
  maxContext: SourcedNumber;
  /** Tokens a layer attends back to; 0 = full attention. */
  slidingWindow: SourcedNumber;
  /** Parameters one token's forward pass uses: all of a dense model's (embeddings included), the activated ones of a Mixture-of-Experts model. */
  activeParameters: SourcedNumber;
  /** Set for a Mixture-of-Experts model: all its parameters, of which a token activates activeParameters; null for a dense model. */
  totalParameters: SourcedNumber | null;
  /** Set for multi-head latent attention models, else null. */
  mla: MlaDimsInfo | null;
}

export interface PresetsApi {
  /** Every GPU preset, oldest architecture first, each number with its source. */
  gpuPresets(): GpuPresetInfo[];
  /** The preset with this id; throws listing the valid ids. */
  gpuPreset(id: string): GpuPresetInfo;
  /** Every model preset, oldest first, each number with its source. */
  modelPresets(): ModelPresetInfo[];
  /** The model preset with this id; throws listing the valid ids. */
  modelPreset(id: string): ModelPresetInfo;
}
