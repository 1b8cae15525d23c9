// The finish: the tiled result next to the dense softmax (sdpa), both computed by the core.
import { fmt } from '../shared/format';
import { VALUE_DIM, type Example } from './model';

const sci = (x: number) => (x === 0 ? '0' : x.toExponential(1).replace('-', '−'));

export function Comparison({ ex }: { ex: Example }) {
  const online = ex.steps.at(-1)!.output;
  const rows = [
    ...Array.from({ length: VALUE_DIM }, (_, c) => [`O[${c + 1}]`, online[c], ex.dense.output[c]] as const),
    ['log-sum-exp', ex.finalLse, ex.dense.lse[0]] as const,
  ];
  return (
    <table class="comparison" data-testid="comparison">
      <caption>Tiled (one pass, two tiles of 4 keys) vs dense softmax over all 8 keys</caption>
      <thead><tr><td></td><th scope="col">online, tiled</th><th scope="col">dense</th><th scope="col">|difference|</th></tr></thead>
      <tbody>
        {rows.map(([name, a, b]) => (
          <tr key={name}><th scope="row">{name}</th><td>{fmt(a, 5)}</td><td>{fmt(b, 5)}</td><td>{sci(Math.abs(a - b))}</td></tr>
        ))}
      </tbody>
    </table>
  );
}
