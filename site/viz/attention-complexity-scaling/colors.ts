// One colour per method, from the theme: dense in HBM red (it is the matrix that lives in HBM),
// FlashAttention in SRAM green (it keeps its tile on chip), the approximations in the head colours.
import type { ComplexityMethodName } from '../../../wasm/classic/sparse';
import { colors } from '../shared/theme';

export const METHOD_COLORS: Record<ComplexityMethodName, string> = {
  dense: colors.hbm,
  sparse: colors.heads[0],
  lsh: colors.heads[1],
  linformer: colors.heads[3],
  performer: colors.heads[2],
  flash: colors.sram,
};
