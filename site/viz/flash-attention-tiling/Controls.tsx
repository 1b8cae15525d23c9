// The configuration. Mode, causal and N stay in view; on narrow screens the loop order, d and the
// block sizes fold behind "More controls". The block sizes offered are those the core traces at
// the chosen N (at most TRACE_TILE_LIMIT tiles); a larger N takes larger blocks (model.ts, fitted).
import { MoreControls } from '../shared/MoreControls';
import { NumberSelect } from '../shared/NumberSelect';
import { Segmented } from '../shared/Segmented';
import { BLOCK_CHOICES, D_CHOICES, N_CHOICES, TRACE_TILE_LIMIT, tileCount, type Config } from './model';

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
  const fits = (br: number, bc: number) => tileCount({ n: config.n, br, bc }) <= TRACE_TILE_LIMIT;
  const brChoices = BLOCK_CHOICES.filter((br) => fits(br, config.bc));
  const bcChoices = BLOCK_CHOICES.filter((bc) => fits(config.br, bc));
  return (
    <div class="controls">
      <Segmented label="Algorithm" class="segmented mode-toggle" value={config.mode} onChange={(mode) => onChange({ mode })}
        choices={[{ value: 'flash', text: 'FlashAttention' }, { value: 'standard', text: 'Standard attention' }]} />
      <label class="check">
        <input type="checkbox" checked={config.causal} onChange={(e) => onChange({ causal: e.currentTarget.checked })} />
        <span>Causal mask</span>
      </label>
      <NumberField label="N" name="n" value={config.n} choices={N_CHOICES} onChange={(n) => onChange({ n })} />
      <MoreControls>
        <Segmented label="Loop order" value={config.order} onChange={(order) => onChange({ order })} disabled={config.mode === 'standard'}
          title={config.mode === 'standard' ? 'The loop order is FlashAttention’s: standard attention runs its three passes either way' : undefined}
          choices={[{ value: 'fa2', text: 'FA2: Q blocks outer' }, { value: 'fa1', text: 'FA1: K/V blocks outer' }]} />
        <NumberField label="d" name="d" value={config.d} choices={D_CHOICES} onChange={(d) => onChange({ d })} />
        <NumberField label="Br" name="br" value={config.br} choices={brChoices} onChange={(br) => onChange({ br })} />
        <NumberField label="Bc" name="bc" value={config.bc} choices={bcChoices} onChange={(bc) => onChange({ bc })} />
      </MoreControls>
    </div>
  );
}
