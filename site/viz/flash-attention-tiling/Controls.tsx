// The configuration. Mode and causal stay in view; on narrow screens the loop order, N, d and the
// block sizes fold behind "More controls". Values go to the core as chosen: it enforces the caps.
import { useState } from 'preact/hooks';
import { NumberSelect } from '../shared/NumberSelect';
import { BLOCK_CHOICES, D_CHOICES, N_CHOICES, type Config } from './model';

function Segmented<T extends string>({ label, value, options, onChange, class: className = '', disabled, title }: {
  label: string; value: T; options: [T, string][]; onChange: (v: T) => void; class?: string; disabled?: boolean; title?: string;
}) {
  return (
    <div class={`segmented ${className}`} role="group" aria-label={label} title={title}>
      {options.map(([v, text]) => (
        <button key={v} type="button" aria-pressed={value === v} class={value === v ? 'selected' : ''} disabled={disabled} onClick={() => onChange(v)}>{text}</button>
      ))}
    </div>
  );
}

// A labelled number choice.
function NumberField({ label, name, value, choices, onChange }: {
  label: string; name: string; value: number; choices: number[]; onChange: (v: number) => void;
}) {
  return (
    <label class="select">
      <span>{label}</span>
      <NumberSelect name={name} value={value} choices={choices} onChange={onChange} />
    </label>
  );
}

export function Controls({ config, onChange }: { config: Config; onChange: (patch: Partial<Config>) => void }) {
  const [more, setMore] = useState(false);
  return (
    <div class="controls">
      <div class="primary-controls">
        <Segmented label="Algorithm" class="mode-toggle" value={config.mode} onChange={(mode) => onChange({ mode })}
          options={[['flash', 'FlashAttention'], ['standard', 'Standard attention']]} />
        <label class="check">
          <input type="checkbox" checked={config.causal} onChange={(e) => onChange({ causal: e.currentTarget.checked })} />
          <span>Causal mask</span>
        </label>
        <NumberField label="N" name="n" value={config.n} choices={N_CHOICES} onChange={(n) => onChange({ n })} />
        <button type="button" class="more-toggle" aria-expanded={more} aria-controls="secondary-controls" onClick={() => setMore(!more)}>
          {more ? 'Fewer controls' : 'More controls'}
        </button>
      </div>
      <div id="secondary-controls" class={more ? 'secondary-controls open' : 'secondary-controls'}>
        <Segmented label="Loop order" value={config.order} onChange={(order) => onChange({ order })} disabled={config.mode === 'standard'}
          title={config.mode === 'standard' ? 'The loop order is FlashAttention’s: standard attention runs its three passes either way' : undefined}
          options={[['fa2', 'FA2: Q blocks outer'], ['fa1', 'FA1: K/V blocks outer']]} />
        <NumberField label="d" name="d" value={config.d} choices={D_CHOICES} onChange={(d) => onChange({ d })} />
        <NumberField label="Br" name="br" value={config.br} choices={BLOCK_CHOICES} onChange={(br) => onChange({ br })} />
        <NumberField label="Bc" name="bc" value={config.bc} choices={BLOCK_CHOICES} onChange={(bc) => onChange({ bc })} />
      </div>
    </div>
  );
}
