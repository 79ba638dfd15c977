// node bench.mjs [--seconds S] [--threads N] [--mode pipeline|byhand] MODEL_DIR TEXTS.json
//
// Throughput of the paper's own stack, Transformers.js on onnxruntime-node, on
// a model folder and a JSON array of texts. Prints one JSON object on stdout:
//   {"stack": "transformers.js", ..., "batch1": {"sentences_per_sec", ...},
//    "batch32": {...}, "p50_ms": ..., "p90_ms": ...}
// Each setting warms up first, then runs for about S seconds (default 10),
// cycling through the texts: batch 1 takes one text per call (its per-call
// times give p50/p90 single-text latency), batch 32 takes consecutive slices
// of 32 padded to their longest text (no sorting, as the pipeline does).
// --mode pipeline (default): pipeline('feature-extraction', {pooling: 'mean',
//   normalize: true}), the way the paper used it, truncating at 256 tokens.
// --mode byhand: tokens.mjs' tokenisation + lib.mjs' pooling (what embed.mjs computes).
// cpu_seconds / sentences_per_cpu_sec (user+system time of this process) help
// to read results taken on a busy machine.
// --threads N sets onnxruntime's intra-op threads (default: onnxruntime's own
// default, one per physical core).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel, loadPipeline, tokenize, embedIds, readTexts, versions, usage } from './lib.mjs';

const args = process.argv.slice(2);
let seconds = 10;
let threads = 0;
let mode = 'pipeline';
while (args.length && args[0].startsWith('--')) {
  const a = args.shift();
  if (a === '--seconds') seconds = Number(args.shift());
  else if (a === '--threads') threads = Number(args.shift());
  else if (a === '--mode') mode = args.shift();
  else usage(`unknown option ${a}`);
}
const [modelDir, textsFile] = args;
if (!modelDir || !textsFile || !(seconds > 0) || !['pipeline', 'byhand'].includes(mode)) {
  usage('usage: node bench.mjs [--seconds S] [--threads N] [--mode pipeline|byhand] MODEL_DIR TEXTS.json');
}
const texts = readTexts(textsFile);
if (texts.length === 0) usage(`${textsFile}: no texts`);

let run;
if (mode === 'pipeline') {
  run = await loadPipeline(modelDir, { threads });
} else {
  const { tokenizer, model } = await loadModel(modelDir, { threads });
  run = async (batch) => (await embedIds(model, batch.map((t) => tokenize(tokenizer, t)))).length;
}

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

async function measure(batchSize) {
  let next = 0;
  const take = () => {
    const batch = [];
    for (let i = 0; i < batchSize; i++) batch.push(texts[(next + i) % texts.length]);
    next = (next + batchSize) % texts.length;
    return batch;
  };
  // Warm-up: one pass over the texts (at least 3 calls, at most ~2 s).
  const warmEnd = now() + Math.min(2000, seconds * 200);
  for (let i = 0; i < Math.max(3, Math.ceil(texts.length / batchSize)) && (i < 3 || now() < warmEnd); i++) await run(take());
  next = 0;
  const lat = [];
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = now();
  const end = start + seconds * 1000;
  while (now() < end || lat.length < 3) {
    const t0 = now();
    n += await run(take());
    lat.push(now() - t0);
  }
  const elapsed = (now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return {
    batch_size: batchSize,
    sentences: n,
    calls: lat.length,
    seconds: +elapsed.toFixed(3),
    sentences_per_sec: +(n / elapsed).toFixed(1),
    p50_ms: +q(0.5).toFixed(3),
    p90_ms: +q(0.9).toFixed(3),
    cpu_seconds: +cpuSeconds.toFixed(3),
    sentences_per_cpu_sec: +(n / cpuSeconds).toFixed(1),
  };
}

const b1 = await measure(1);
const b32 = await measure(32);
const modelFile = path.join(path.resolve(modelDir), 'onnx', 'model.onnx');
const result = {
  stack: 'transformers.js',
  mode,
  ...versions(),
  model_dir: path.resolve(modelDir),
  model_sha256: crypto.createHash('sha256').update(fs.readFileSync(modelFile)).digest('hex'),
  texts: texts.length,
  cpus: os.cpus().length,
  intra_op_threads: threads || 'default',
  batch1: b1,
  batch32: b32,
  p50_ms: b1.p50_ms,
  p90_ms: b1.p90_ms,
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
