// NumberSelect: a <select> over numbers, for the figures' numeric settings.
//   value, choices   the current number and the numbers offered, in ascending order; a value off
//                    the list (say, from a URL) is offered too, in its place, so the select shows it
//   format           an option's text (default: the number as it is)
//   onChange         called with the chosen number
//   name, label      the select's name and aria-label (optional: a wrapping <label> names it too)
// Values go to the DOM as strings: Preact compares `value` with the element's (string) value, so a
// number would be written again on every render, restyling the control each time. Range and number
// inputs pass theirs as strings for the same reason.
export function NumberSelect({ value, choices, format = String, onChange, name, label }: {
  value: number; choices: readonly number[]; format?: (v: number) => string; onChange: (v: number) => void; name?: string; label?: string;
}) {
  const options = choices.includes(value) || !Number.isFinite(value) ? choices : [...choices, value].sort((a, b) => a - b);
  return (
    <select name={name} aria-label={label} value={String(value)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
      {options.map((c) => <option key={c} value={String(c)}>{format(c)}</option>)}
    </select>
  );
}
