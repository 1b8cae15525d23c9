// The memory levels, nearest the tensor cores first, with capacity and bandwidth from the preset
// ("not published" where no primary source gives one), a log-scale capacity ruler that places this layer's S and P
// and FlashAttention's on-chip tile among them, and the sources of the level in focus.
import { fmtBytes } from '../shared/format';
import type { SourcedNumber } from '../../../wasm/load';
import { levels, fmtDecimal, type Figure, type Level } from './model';

const LOG_MIN = 10, LOG_MAX = 40;  // the ruler spans 1 KiB .. 1 TiB (log2 bytes)
// Where `bytes` sits on the ruler, in percent of its width.
const share = (bytes: number) => (100 * (Math.min(Math.max(Math.log2(bytes), LOG_MIN), LOG_MAX) - LOG_MIN)) / (LOG_MAX - LOG_MIN);
const pos = (bytes: number) => `${share(bytes)}%`;
// A marker glides along the ruler by a transform in units of the track's width (cqw; the track is
// a size container), not by `left`: a transition of `left` lays the panel out on every frame for
// half a second after each change of N, d or GPU.
const at = (bytes: number) => ({ transform: `translateX(${share(bytes)}cqw)` });

// A missing value says why: unpublished by any primary source, or not a property of the GPU.
export const missing = (s: SourcedNumber) => (s.source.startsWith('not published') ? 'not published' : '—');

function capacityText(l: Level, sms: number): string {
  if (l.capacity.value === null) return missing(l.capacity);
  if (l.id === 'hbm') return fmtDecimal(l.capacity.value, 'B');
  return l.perSm ? `${fmtBytes(l.capacity.value, 0)} × ${sms} SMs` : fmtBytes(l.capacity.value, 0);
}

const bandwidthText = (l: Level) => (l.bandwidth.value === null ? missing(l.bandwidth) : fmtDecimal(l.bandwidth.value, 'B/s'));

const sources = (l: Level) => [`Capacity: ${l.capacity.source}`, `Bandwidth (${l.link}): ${l.bandwidth.source}`];

export function Levels({ fig, active, onLevel }: { fig: Figure; active: string; onLevel: (id: string) => void }) {
  const ls = levels(fig.preset);
  const sms = fig.preset.smCount.value ?? 0;
  const sp = 2 * fig.scoreBytes;  // S and P of every head of the layer
  const tile = fig.flash.blockQ * fig.flash.blockK * 2;  // one FP16 S_ij tile (Br x Bc)
  const hbm = fig.preset.hbmBytes.value;
  const sram = fig.preset.sramPerSmBytes.value;
  const focused = ls.find((l) => l.id === active) ?? ls[3];
  const markers = [
    ...ls.filter((l) => l.id !== 'registers' && l.capacity.value).map((l) => ({ id: l.id, bytes: l.capacity.value!, label: l.id === 'sram' ? 'SRAM/SM' : l.id === 'l2' ? 'L2' : 'HBM', cls: 'cap' })),
  ];
  return (
    <section class="levels" aria-label="Memory levels">
      <ol class="level-list">
        {ls.map((l) => (
          <li key={l.id} class={`level ${l.id}${l.id === active ? ' active' : ''}`} tabIndex={0} data-testid={`level-${l.id}`}
            onFocus={() => onLevel(l.id)} onMouseEnter={() => onLevel(l.id)} aria-describedby="level-sources" title={sources(l).join('\n')}>
            <span class="level-name">{l.name}<span class="level-where">{l.where}</span></span>
            <span class="level-cap" data-testid={`cap-${l.id}`}>{capacityText(l, sms)}</span>
            <span class={`level-bw${l.bandwidth.value === null ? ' none' : ''}`} data-testid={`bw-${l.id}`}>{bandwidthText(l)}</span>
          </li>
        ))}
      </ol>
      <div class="ruler" aria-label="Capacities on a log scale">
        <div class="ruler-track">
          {[10, 20, 30, 40].map((e) => <span key={e} class="tick" style={{ left: pos(2 ** e) }}>{fmtBytes(2 ** e, 0)}</span>)}
          {markers.map((m) => (
            <span key={m.id} class="mark-at" style={at(m.bytes)}>
              <span class={`mark ${m.cls} ${m.id}`} title={`${m.label}: ${fmtBytes(m.bytes)}`}><i>{m.label}</i></span>
            </span>
          ))}
          <span class="mark-at" style={at(tile)}>
            <span class="mark tile" title={`FlashAttention's S tile, ${fig.flash.blockQ} × ${fig.flash.blockK} FP16: ${fmtBytes(tile)}`}><i>tile</i></span>
          </span>
          <span class="mark-at" style={at(sp)}>
            <span class={`mark sp${hbm !== null && sp > hbm ? ' over' : ''}`} title={`S + P of this layer: ${fmtBytes(sp)}`}><i>S+P</i></span>
          </span>
        </div>
        <p class="ruler-note">
          Log scale. Standard attention's S + P for this layer: <b class="sp-text" data-testid="sp-bytes">{fmtBytes(sp)}</b>
          {hbm !== null && sp > hbm ? <> — more than the whole HBM: it cannot run at this size</> : <> — far beyond SRAM, so it lives in HBM</>};
          FlashAttention's S tile ({fig.flash.blockQ} × {fig.flash.blockK}): <b class="tile-text">{fmtBytes(tile)}</b>,
          {sram !== null && tile <= sram ? ' small enough to stay in one SM’s SRAM.' : ' larger than one SM’s SRAM.'}
        </p>
      </div>
      <p class="level-sources" id="level-sources" data-testid="sources">
        <b>{focused.name}</b> — {sources(focused).join(' · ')}
      </p>
    </section>
  );
}
