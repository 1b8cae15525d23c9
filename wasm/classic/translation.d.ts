// Hand-written declaration of the Part 1 translation API bound in
// wasm/classic/bind_translation.cpp (the alignment figure). The page fetches a weight file
// (/models/bahdanau-rnnsearch.bin or bahdanau-rnnenc.bin, written by `make train`) and passes its
// bytes to each call; calls are stateless, so there is nothing to delete. Every function throws a
// JavaScript Error naming the bad argument (model, sentence; a weight file that is not well formed:
// "bytes: ..." with what is wrong) and the allowed range; the module keeps
// working afterwards.
import type { MatrixInfo } from './classic';

/** The int8 weight file's bytes (format in core/include/attn/classic/encoder_decoder_file.hpp), at most 4 MiB. */
export type ModelBytes = Uint8Array | ArrayBuffer;

export interface TranslationVocabulary {
  /** Every English word the grammar (and so the model) knows, sorted, without the special tokens. */
  source: string[];
  /** Every French word it can produce. */
  target: string[];
  /** Tokens a sentence may hold, its full stop included (100). */
  maxWords: number;
}

export interface TranslationModelInfo {
  kind: 'rnn_search' | 'rnn_enc';
  /** Vocabulary sizes, the three special tokens <pad>, <bos>, <eos> included. */
  sourceVocab: number;
  targetVocab: number;
  embedDim: number;
  hiddenDim: number;
  /** The alignment MLP's width n' (0 for rnn_enc, which has none). */
  attentionDim: number;
  outputDim: number;
  parameters: number;
  /** Command, seed and commit that produced the weights. */
  provenance: string;
}

/**
 * sentence: English as a reader types it (any case, punctuation attached, the final full stop
 * optional: one is added), at most 4096 characters and 100 tokens. Words outside the vocabulary
 * are refused with a message naming each (up to three) and the closest known words:
 * "sentence: 'agrement' is not in this model's vocabulary of 237 English words; try 'agreement'".
 * Work: greedy decoding of at most 2 x tokens + 10 words; measured in Node on a 2-core VM, about
 * 1 ms for the Fig. 3 sentence and 20 ms (up to 0.4 s when the host was loaded) at the 100-token cap,
 * under the 1 s bound.
 */
export interface TranslateSentenceInput {
  model: ModelBytes;
  sentence: string;
}

/** Greedy decoding with its trace. Tx = source.length, Ty = target.length (one row per decoder step i). */
export interface TranslateSentenceResult {
  kind: 'rnn_search' | 'rnn_enc';
  /** The tokens read, then "<eos>": the alignment's columns. */
  source: string[];
  /** The words emitted, ending in "<eos>" unless the step cap was reached: its rows. */
  target: string[];
  /** alpha_ij = softmax_j(e_ij), [Ty, Tx]; [0, 0] for rnn_enc. */
  alignment: MatrixInfo;
  /** e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j), [Ty, Tx]; [0, 0] for rnn_enc. */
  scores: MatrixInfo;
  /** s_{i-1}, the decoder state that queries the annotations at step i, [Ty, hiddenDim]. */
  queries: MatrixInfo;
  /** c_i = sum_j alpha_ij h_j, [Ty, stateWidth] (rnn_enc: h_Tx on every row). */
  contexts: MatrixInfo;
  /** The annotations h_j = [forward; backward] encoder states, [Tx, stateWidth] (2 x hiddenDim for rnn_search). */
  annotations: MatrixInfo;
  /** p(y_i) of each emitted word, [Ty]. */
  probabilities: Float64Array;
}

export interface TranslationApi {
  translationVocabulary(): TranslationVocabulary;
  translationModelInfo(input: { model: ModelBytes }): TranslationModelInfo;
  translateSentence(input: TranslateSentenceInput): TranslateSentenceResult;
}
