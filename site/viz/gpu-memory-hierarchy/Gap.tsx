// The bandwidth gap made visible: one lane per link, from the cores out to host memory, with the
// preset's bandwidth (the core's derived SRAM aggregate, the datasheets' HBM and PCIe figures).
// A lane's length and its dots' speed are both proportional to log10(bandwidth / 1 GB/s), so a
// tenfold faster link is one fixed step longer and faster; the ratios are printed beside them.
// Unpublished bandwidths get an empty, hatched lane that says so. Under reduced motion the dots
// stand still (base.css), and the lengths and ratios still carry the comparison.
import { fmt } from '../shared/format';
import { missing } from './Levels';
import { fmtDecimal, gaps, laneSpeed, levels, type Figure } from './model';

const DECADES = 5;   // lane length spans 1 GB/s .. 100 TB/s
const DOT_GAP = 18;  // px between dots; must match the background period in style.css

export function Gap({ fig, active, onLevel }: { fig: Figure; active: string; onLevel: (id: string) => void }) {
  const p = fig.preset;
  const lanes = levels(p).filter((l) => l.id !== 'registers');
  const { sramOverHbm, hbmOverHost } = gaps(p);
  return (
    <section class="gap" aria-label="Bandwidth of each link">
      <h2 class="gap-title">Bandwidth per link <span class="muted">— length and dot speed ∝ log₁₀(bandwidth ÷ 1 GB/s)</span></h2>
      <ol class="lanes">
        {lanes.map((l) => {
          const v = l.bandwidth.value;
          const width = v === null ? 100 : (100 * Math.min(Math.max(Math.log10(v / 1e9), 0.3), DECADES)) / DECADES;
          const speed = v === null ? 0 : laneSpeed(v);
          return (
            <li key={l.id} class={`lane-row ${l.id}${l.id === active ? ' active' : ''}`} tabIndex={0} title={`${l.link}: ${l.bandwidth.source}`}
              onFocus={() => onLevel(l.id)} onMouseEnter={() => onLevel(l.id)} aria-describedby="level-sources">
              <span class="lane-label">{l.link}</span>
              <span class={v === null ? 'lane none' : 'lane'} style={{ width: `${width}%` }} data-testid={`lane-${l.id}`}
                data-speed={speed} aria-hidden="true">
                {v !== null && <i class="lane-dots" style={{ animationDuration: `${DOT_GAP / speed}s` }} />}
              </span>
              <span class={v === null ? 'lane-value none' : 'lane-value'}>{v === null ? missing(l.bandwidth) : fmtDecimal(v, 'B/s')}</span>
            </li>
          );
        })}
      </ol>
      <p class="gap-ratios">
        {sramOverHbm !== null
          ? <>SRAM, all SMs together, moves <b class="ratio-sram" data-testid="sram-hbm-ratio" data-ratio={sramOverHbm}>{fmt(sramOverHbm, 1)}×</b> the bytes per second of HBM </>
          : <>SRAM bandwidth is not published for this GPU </>}
        {hbmOverHost !== null
          ? <>and HBM <b class="ratio-host" data-testid="hbm-host-ratio" data-ratio={hbmOverHost}>{fmt(hbmOverHost, 0)}×</b> those of the PCIe link to the host.</>
          : <>; the host link's bandwidth is not published.</>}
        {' '}Every byte standard attention sends to HBM and back crosses the slower link.
      </p>
    </section>
  );
}
