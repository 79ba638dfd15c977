// node duel.mjs [--threads N] [--dtype fp32|q8|int8] MODEL_DIR
//
// The paper's stack — Transformers.js' feature-extraction pipeline on
// onnxruntime-node, loaded once from a local model folder — driven over
// stdin/stdout, so that a Go benchmark (models.BenchmarkVersusTransformersJS)
// can alternate it pass by pass with its own backend on the very same
// batches: both then see the same machine, which on a shared machine moves
// more between seconds than the two stacks differ. --dtype picks the graph
// Transformers.js loads (lib.mjs DTYPE_FILES; q8 is onnx/model_quantized.onnx).
//
// Protocol, one JSON object per line:
//   out: {"ready": true, "dtype": ..., "transformers_js": ..., "onnxruntime_node": ..., "node": ...}
//   in:  {"batches": [["text", ...], ...]}   one pass: each batch is one call
//   out: {"vectors": N, "ms": T}             T: wall time of the calls only
//   out: {"error": "..."}                    on a failed pass (the process goes on)
// It exits when stdin closes.
import readline from 'node:readline';
import { loadPipeline, versions, usage } from './lib.mjs';

const args = process.argv.slice(2);
let threads = 0;
let dtype = 'fp32';
while (args.length && args[0].startsWith('--')) {
  const a = args.shift();
  if (a === '--threads') threads = Number(args.shift());
  else if (a === '--dtype') dtype = args.shift();
  else usage(`unknown option ${a}`);
}
const [modelDir] = args;
if (!modelDir || args.length !== 1) usage('usage: node duel.mjs [--threads N] [--dtype fp32|q8|int8] MODEL_DIR');

const run = await loadPipeline(modelDir, { threads, dtype });
const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
reply({ ready: true, dtype, ...versions() });

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
