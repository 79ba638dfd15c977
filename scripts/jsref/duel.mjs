// node duel.mjs [--threads N] MODEL_DIR
//
// The paper's stack — Transformers.js' feature-extraction pipeline on
// onnxruntime-node, loaded once from a local model folder — driven over
// stdin/stdout, so that a Go benchmark (models.BenchmarkVersusTransformersJS)
// can alternate it pass by pass with its own backend on the very same
// batches: both then see the same machine, which on a shared machine moves
// more between seconds than the two stacks differ.
//
// Protocol, one JSON object per line:
//   out: {"ready": true, "transformers_js": ..., "onnxruntime_node": ..., "node": ...}
//   in:  {"batches": [["text", ...], ...]}   one pass: each batch is one call
//   out: {"vectors": N, "ms": T}             T: wall time of the calls only
//   out: {"error": "..."}                    on a failed pass (the process goes on)
// It exits when stdin closes.
import readline from 'node:readline';
import { loadPipeline, versions, usage } from './lib.mjs';

const args = process.argv.slice(2);
let threads = 0;
while (args.length && args[0].startsWith('--')) {
  const a = args.shift();
  if (a === '--threads') threads = Number(args.shift());
  else usage(`unknown option ${a}`);
}
const [modelDir] = args;
if (!modelDir || args.length !== 1) usage('usage: node duel.mjs [--threads N] MODEL_DIR');

const run = await loadPipeline(modelDir, { threads });
const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
reply({ ready: true, ...versions() });

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  try {
    const { batches } = JSON.parse(line);
    if (!Array.isArray(batches) || batches.some((b) => !Array.isArray(b) || b.some((t) => typeof t !== 'string'))) {
      throw new Error('want {"batches": [[string, ...], ...]}');
    }
    let vectors = 0;
    const t0 = now();
    for (const batch of batches) vectors += await run(batch);
    reply({ vectors, ms: now() - t0 });
  } catch (err) {
    reply({ error: String(err?.message ?? err) });
  }
}
