// node embed.mjs [--batch N] [--check-pipeline] [--ids] MODEL_DIR TEXTS.json > embeddings.json
//
// Mean-pooled, L2-normalised embeddings computed by Transformers.js on
// onnxruntime-node from MODEL_DIR/onnx/model.onnx, with the token ids of
// tokens.mjs (truncation at 256 keeping [SEP]). Texts are run one at a time by
// default (--batch N pads batches of N to their longest text).
// --check-pipeline also runs Transformers.js' own
// pipeline('feature-extraction', {pooling: 'mean', normalize: true}) on the
// texts that are not truncated (where its 512-token truncation cannot differ) and
// fails if it disagrees by more than 1e-6.
// --ids also writes the token ids each text was run with ("ids": [[...], ...]).
// Output: {"source": {...}, "model_sha256": "...", "dims": D, "vectors": [[...], ...]}
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from '@huggingface/transformers';
import { loadModel, tokenize, embedIds, readTexts, versions, usage } from './lib.mjs';

const args = process.argv.slice(2);
let batchSize = 1;
let checkPipeline = false;
let withIds = false;
while (args.length && args[0].startsWith('--')) {
  const a = args.shift();
  if (a === '--batch') batchSize = Number(args.shift());
  else if (a === '--check-pipeline') checkPipeline = true;
  else if (a === '--ids') withIds = true;
  else usage(`unknown option ${a}`);
}
const [modelDir, textsFile] = args;
if (!modelDir || !textsFile || !(batchSize >= 1)) usage('usage: node embed.mjs [--batch N] [--check-pipeline] [--ids] MODEL_DIR TEXTS.json');

const { tokenizer, model } = await loadModel(modelDir);
const texts = readTexts(textsFile);
const ids = texts.map((t) => tokenize(tokenizer, t));
const vectors = [];
for (let i = 0; i < ids.length; i += batchSize) {
  vectors.push(...(await embedIds(model, ids.slice(i, i + batchSize))));
}

if (checkPipeline) {
  const extractor = await pipeline('feature-extraction', path.basename(path.resolve(modelDir)), {
    local_files_only: true,
    device: 'cpu',
    dtype: 'fp32',
  });
  let worst = 0;
  let n = 0;
  for (let i = 0; i < texts.length; i++) {
    if (ids[i].length >= 256) continue;
    const t = await extractor(texts[i], { pooling: 'mean', normalize: true });
    for (let k = 0; k < t.data.length; k++) worst = Math.max(worst, Math.abs(t.data[k] - vectors[i][k]));
    n++;
  }
  console.error(`embed.mjs: pipeline('feature-extraction') vs by-hand pooling on ${n} texts: max |diff| = ${worst.toExponential(2)}`);
  if (worst > 1e-6) {
    console.error('embed.mjs: FAIL: the pipeline disagrees with the by-hand pooling');
    process.exit(1);
  }
}

const modelFile = path.join(path.resolve(modelDir), 'onnx', 'model.onnx');
const out = {
  source: versions(),
  model_sha256: crypto.createHash('sha256').update(fs.readFileSync(modelFile)).digest('hex'),
  dims: vectors[0]?.length ?? 0,
  vectors,
};
if (withIds) out.ids = ids;
process.stdout.write(JSON.stringify(out).replace(/\],\[/g, '],\n[') + '\n');
