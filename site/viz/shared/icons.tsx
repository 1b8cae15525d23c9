// Playback icons as inline SVG: glyphs like ⏮ are missing from many system fonts.
const paths = {
  reset: 'M4 3h2v10H4zM14 3v10L7 8z',
  back: 'M12 3v10L5 8z',
  play: 'M5 3v10l8-5z',
  pause: 'M4 3h3v10H4zM9 3h3v10H9z',
  forward: 'M4 3v10l7-5zM11 3h2v10h-2z',
} as const;

export function Icon({ name }: { name: keyof typeof paths }) {
  return (
    <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d={paths[name]} fill="currentColor" />
    </svg>
  );
}
