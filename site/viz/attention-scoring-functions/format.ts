// The figure's number formats, shared by the drawing, the narration and (as the same rules) its test.
import { fmt } from '../shared/format';

/** A variance with three significant figures or so: 506, 63.8, 0.987. */
export const fmtVariance = (v: number) => fmt(v, v >= 100 ? 0 : v >= 10 ? 1 : 3);
/** A weight or a norm: two decimals (three above 0.99, so a nearly one-hot 0.998 does not read as 1),
 *  or two significant figures below 0.01 (1.2e-5 as 0.0000120 would not fit). */
export const fmtSmall = (x: number) => (x > 0.99 ? fmt(x, 3) : x >= 0.01 || x === 0 ? fmt(x, 2) : x.toPrecision(2));
