// One colour per score function, shared by the bars, the gradient chart and the legend: the plain
// dot product in the palette's red (the one that breaks), the scaled one in green (the fix),
// Bahdanau's additive score in the first head colour.
import { colors } from '../shared/theme';
import type { Method } from './model';

export const METHOD_COLORS: Record<Method, string> = { additive: colors.heads[0], dot: colors.hbm, scaled: colors.sram };
