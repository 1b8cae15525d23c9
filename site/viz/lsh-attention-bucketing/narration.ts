// One paragraph per step, with the step's numbers from the core.
import { CLUSTERS, STEP, TOKENS, type Figure } from './model';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function narration(f: Figure, step: number): string {
  const { buckets, rounds } = f.config;
  switch (step) {
    case STEP.vectors:
      return `${TOKENS} query vectors in 2-D, drawn by the core around ${CLUSTERS} random directions. Dense attention would score all ${TOKENS} × ${TOKENS} pairs and give nearly all the weight to a token's own cluster; LSH attention tries to score only those pairs.`;
    case STEP.rotation:
      return `Reformer shares queries and keys: each key is its query scaled to length 1, so only the direction counts. A random matrix R (2 × ${buckets / 2}) gives ${buckets} directions, its columns and their negatives; a token's hash is the direction it points along most, argmax([xR ; −xR]).`;
    case STEP.buckets:
      return `Each direction wins a sector of the plane, and every token in it lands in that bucket (colour). The columns of R are not unit vectors, so a longer arrow wins a wider sector. Nearby tokens usually share a bucket — but a cluster cut by a sector edge is split.${rounds > 1 ? ` The rings show the ${rounds} rounds, each with its own random R: a pair split in one round may meet in another.` : ''}`;
    case STEP.connections:
      return `Only pairs in the same bucket are scored, and only within a chunk of ${f.chunkLength} sorted tokens or the chunk before it: ${f.pairs.length} token pairs connected, ${f.scoredPairs} of the ${f.allPairs} query–key pairs (${pct(f.scoredPairs / f.allPairs)}).`;
    default:
      return `The mask, sorted by bucket: blocks on the diagonal, cut by the chunks. Against dense shared-QK attention on the same vectors the output is off by ${pct(f.error.relativeFrobenius)} (relative Frobenius norm), because neighbours that a sector edge or a chunk boundary separated were never scored. More rounds or fewer buckets: fewer misses, more pairs.`;
  }
}
