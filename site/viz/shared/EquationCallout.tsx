// A formula typeset at build time (formula-prerender.ts) as one SVG image, with its live values
// drawn over the places its \slot marks keep free, on every render.
//
// The image is a single element however long the formula: KaTeX's markup, which the figures used
// before, was a few hundred boxes per formula that the browser restyled, laid out and painted again
// whenever a card holding them was shown (a mode switch in the tiling figure). The values are drawn
// with the formula's own TeX glyphs (virtual:value-glyphs) in a second SVG laid over the image with
// the same viewBox, each centred on its slot at the formula's baseline. Both scale together, so a
// formula narrowed to its column keeps every value on its place, and nothing is measured at run
// time. A slot keeps the room of its template value, so the formula never moves as the values
// change; a value wider than that is narrowed to fit it.
import glyphs from 'virtual:value-glyphs';
import type { FormulaSlot, TypesetFormula } from '../../../scripts/formula-svg.mjs';

// A character no glyph was made for is drawn as a question mark.
const glyphOf = (c: string) => glyphs[c] ?? glyphs['?'];

// `value` in the slot, as one path: its glyphs' outlines from the left edge of its box, the box
// centred in the slot and squeezed horizontally if wider than the slot. Glyph outlines have y
// growing upwards, hence the flip.
function Value({ slot, value }: { slot: FormulaSlot; value: string }) {
  const scale = slot.size / 1000;
  let pen = 0, d = '';
  for (const c of value) {
    const glyph = glyphOf(c);
    if (glyph.rest) d += `M${glyph.start[0] + pen} ${glyph.start[1]}${glyph.rest}`;
    pen += glyph.width;
  }
  const squeeze = Math.min(1, slot.width / (pen * scale));
  const left = slot.x + (slot.width - pen * scale * squeeze) / 2;
  return <path data-value-of={slot.name} data-value={value} d={d} transform={`translate(${left} ${slot.baseline}) scale(${scale * squeeze} ${-scale})`} />;
}

export function EquationCallout({ formula, values, caption }: { formula: TypesetFormula; values: Record<string, string>; caption?: string }) {
  const [, , width, height] = formula.viewBox;
  return (
    <figure class="equation">
      <div class="equation-body" style={{ width: `${width / 1000}em`, aspectRatio: `${width} / ${height}` }}>
        <img src={formula.image} alt="" />
        {/* Hidden from assistive technology, as the formula's image is. */}
        <svg class="slot-values" viewBox={formula.viewBox.join(' ')} aria-hidden="true">
          {formula.slots.map((slot, i) => {
            const value = values[slot.name];
            if (value === undefined) throw new Error(`EquationCallout: no value for slot "${slot.name}"`);
            return <Value key={i} slot={slot} value={value} />;
          })}
        </svg>
      </div>
      {caption && <figcaption>{caption}</figcaption>}
    </figure>
  );
}
