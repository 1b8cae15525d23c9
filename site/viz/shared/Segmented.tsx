// Segmented: a one-of-several setting (GPU, algorithm, loop order, schedule) as a row of buttons,
// joined into one control by `.segmented` in base.css unless `class` names another look.
//   label            the group's accessible name
//   value, choices   the chosen value and the values offered, each with its text and an optional title
//   onChange         called with the value a reader picks
//   disabled, title  for the whole group (e.g. a setting that does not apply in the current mode)
// It is a radio group: one radio in the tab order (the chosen one), and the arrow keys move the
// choice along the row, so a keyboard reader changes the setting without tabbing through it.
export interface Choice<T extends string> { value: T; text: string; title?: string }

const STEPS: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

export function Segmented<T extends string>({ label, value, choices, onChange, class: className = 'segmented', disabled, title }: {
  label: string; value: T; choices: readonly Choice<T>[]; onChange: (value: T) => void; class?: string; disabled?: boolean; title?: string;
}) {
  // The radio in the tab order: the chosen one, or the first while the value is none of them.
  const focusable = choices.some((c) => c.value === value) ? value : choices[0]?.value;
  const onKeyDown = (e: KeyboardEvent & { currentTarget: HTMLDivElement }) => {
    const step = STEPS[e.key];
    if (!step) return;
    e.preventDefault();
    const at = choices.findIndex((c) => c.value === value);
    const next = (at + step + choices.length) % choices.length;
    onChange(choices[next].value);
    e.currentTarget.querySelectorAll<HTMLButtonElement>('[role="radio"]')[next]?.focus();
  };
  return (
    <div class={className} role="radiogroup" aria-label={label} title={title} onKeyDown={onKeyDown}>
      {choices.map((c) => (
        <button key={c.value} type="button" role="radio" aria-checked={c.value === value} tabIndex={c.value === focusable ? 0 : -1}
          class={c.value === value ? 'selected' : ''} data-value={c.value} title={c.title} disabled={disabled}
          onClick={() => onChange(c.value)}>{c.text}</button>
      ))}
    </div>
  );
}
