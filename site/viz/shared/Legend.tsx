// The on-canvas legend: a figure must make sense without the surrounding prose.
export interface LegendItem {
  swatch: string;  // a CSS colour
  label: string;
  outline?: boolean;  // draw the swatch as an outline (for "current" frames)
}

export function Legend({ items }: { items: LegendItem[] }) {
  return (
    <ul class="legend" aria-label="Legend">
      {items.map((it) => (
        <li key={it.label}>
          <span class={it.outline ? 'swatch outline' : 'swatch'} style={it.outline ? { borderColor: it.swatch } : { background: it.swatch }} aria-hidden="true" />
          {it.label}
        </li>
      ))}
    </ul>
  );
}
