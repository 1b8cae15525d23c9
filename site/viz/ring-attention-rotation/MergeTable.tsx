// The merge on one device for one query row, as Part 3's online-softmax figure shows it: each ring
// step brings a K/V shard whose partial state (m, ℓ) -- the row's largest score on that shard and
// the sum of e^(s − m) over it -- is merged into the running one. The running state after the last
// shard, divided out (O = acc / ℓ), is the dense output. Values from ringAttentionTrace.
import { fmt } from '../shared/format';
import { shardColor } from './Ring';
import { traceAt, type Figure } from './model';

export const WATCH_DEVICE = 0;
export const WATCH_ROW = 0;  // the first query row of the watched device's shard

export function MergeTable({ figure, step }: { figure: Figure; step: number }) {
  const P = figure.config.devices;
  const done = Math.min(step, P);  // ring steps merged at this stop
  const last = done > 0 ? traceAt(figure, done - 1, WATCH_DEVICE) : null;
  const q = traceAt(figure, 0, WATCH_DEVICE).qBegin + WATCH_ROW;
  const dv = figure.trace.outputShape[3];
  const o = last ? Array.from(last.output.subarray(WATCH_ROW * dv, WATCH_ROW * dv + 3)) : null;
  return (
    <div class="merge" data-testid="merge">
      <table class="merge-table">
        <caption>GPU {WATCH_DEVICE}, query {q}: merging each shard's (m, ℓ)</caption>
        <thead>
          <tr><th scope="col">step</th><th scope="col">K/V</th><th scope="col">shard m</th><th scope="col">shard ℓ</th><th scope="col">merged m</th><th scope="col">merged ℓ</th></tr>
        </thead>
        <tbody>
          {Array.from({ length: P }, (_, t) => {
            const e = traceAt(figure, t, WATCH_DEVICE), shown = t < done;
            return (
              <tr key={t} class={shown ? (t === done - 1 ? 'latest' : 'merged') : 'pending'} data-testid={`merge-row-${t}`}>
                <td>{t + 1}</td>
                <td><span class="kv-chip" style={{ background: shardColor(e.kvShard, P) }}>KV{e.kvShard}</span></td>
                <td data-testid="block-m">{shown ? fmt(e.blockM[WATCH_ROW]) : '·'}</td>
                <td data-testid="block-l">{shown ? fmt(e.blockL[WATCH_ROW]) : '·'}</td>
                <td data-testid="run-m">{shown ? fmt(e.m[WATCH_ROW]) : '·'}</td>
                <td data-testid="run-l">{shown ? fmt(e.l[WATCH_ROW]) : '·'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="merge-o" data-testid="merge-o">
        {o ? <>O = acc / ℓ after {done} of {P}: ({o.map((x) => fmt(x)).join(', ')}, …)</> : <>Nothing merged yet: m = −∞, ℓ = 0.</>}
      </p>
    </div>
  );
}
