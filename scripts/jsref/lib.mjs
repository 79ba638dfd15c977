// Shared helpers for the Transformers.js reference: load a local model folder
// (no network), tokenize exactly as sentence-transformers feeds all-MiniLM-L6-v2,
// and embed (mean pooling over the attention mask, L2 normalisation).
//
// Differences from Transformers.js defaults that matter here, and why:
//  - sentence-transformers truncates at max_seq_length = 256 *including* [CLS]
//    and [SEP] (Python tokenizers keep the trailing [SEP]); Transformers.js'
//    truncation just cuts the array (dropping [SEP]) and uses model_max_length
//    (512). So we encode untruncated and truncate by hand: [CLS] w1..w254 [SEP].
//  - tokenizer.json asks for fixed padding to 128 and truncation at 128; neither
//    Transformers.js nor this code applies those settings. Batches are padded
//    to their longest text only.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, pipeline, AutoTokenizer, AutoModel, Tensor } from '@huggingface/transformers';

export const MAX_SEQ_LENGTH = 256;

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.useBrowserCache = false;

const here = path.dirname(fileURLToPath(import.meta.url));

function pkgVersion(name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

export function versions() {
  return {
    transformers_js: env.version,
    tokenizers_js: pkgVersion('@huggingface/tokenizers'),
    onnxruntime_node: pkgVersion('onnxruntime-node'),
    node: process.version,
  };
}

// localModel splits MODEL_DIR into env.localModelPath + model id, so that
// Transformers.js resolves every file inside MODEL_DIR and nowhere else.
function localModel(modelDir) {
  const abs = path.resolve(modelDir);
  if (!fs.existsSync(path.join(abs, 'tokenizer.json'))) {
    throw new Error(`${abs}/tokenizer.json not found: MODEL_DIR must be a model folder with the tokenizer files`);
  }
  env.localModelPath = path.dirname(abs) + path.sep;
  return path.basename(abs);
}

export async function loadTokenizer(modelDir) {
  const id = localModel(modelDir);
  return AutoTokenizer.from_pretrained(id, { local_files_only: true });
}

// DTYPE_FILES is the graph Transformers.js loads for each dtype this
// reference runs: fp32 onnx/model.onnx, q8 onnx/model_quantized.onnx (its
// quantized default), int8 onnx/model_int8.onnx.
export const DTYPE_FILES = { fp32: 'model.onnx', q8: 'model_quantized.onnx', int8: 'model_int8.onnx' };

// onnxFile checks that MODEL_DIR has the graph of dtype and returns its path.
function onnxFile(modelDir, dtype) {
  const name = DTYPE_FILES[dtype];
  if (!name) throw new Error(`dtype ${dtype}: want one of ${Object.keys(DTYPE_FILES).join(', ')}`);
  const file = path.join(path.resolve(modelDir), 'onnx', name);
  if (!fs.existsSync(file)) throw new Error(`${file} not found (dtype ${dtype})`);
  return file;
}

export async function loadModel(modelDir, { threads, dtype = 'fp32' } = {}) {
  const tokenizer = await loadTokenizer(modelDir);
  const id = localModel(modelDir);
  onnxFile(modelDir, dtype);
  const session_options = {};
  if (threads) session_options.intraOpNumThreads = threads;
  const model = await AutoModel.from_pretrained(id, {
    local_files_only: true,
    device: 'cpu',
    dtype,
    session_options,
  });
  return { tokenizer, model };
}

// loadPipeline builds the paper's stack as it used it — pipeline('feature-
// extraction') with mean pooling and normalisation, truncating at 256 tokens —
// on a local model folder, and returns run(batch) → the number of vectors.
// threads sets onnxruntime's intra-op threads (0: onnxruntime's default, one
// per physical core); dtype picks the graph (DTYPE_FILES).
export async function loadPipeline(modelDir, { threads, dtype = 'fp32' } = {}) {
  localModel(modelDir); // validates the folder and sets env.localModelPath
  onnxFile(modelDir, dtype);
  const session_options = threads ? { intraOpNumThreads: threads } : {};
  const extractor = await pipeline('feature-extraction', path.basename(path.resolve(modelDir)), {
    local_files_only: true,
    device: 'cpu',
    dtype,
    session_options,
  });
  // sentence-transformers' max_seq_length (the pipeline would use model_max_length, 512).
  Object.defineProperty(extractor.tokenizer, 'model_max_length', { value: MAX_SEQ_LENGTH });
  return async (batch) => {
    const out = await extractor(batch, { pooling: 'mean', normalize: true });
    return out.dims[0];
  };
}

// tokenize returns the input_ids sentence-transformers would feed the model for
// one text: [CLS] + wordpieces[:maxLen-2] + [SEP].
export function tokenize(tokenizer, text, maxLen = MAX_SEQ_LENGTH) {
  const enc = tokenizer(text, { add_special_tokens: false, padding: false, truncation: false, return_tensor: false });
  const pieces = enc.input_ids.map(Number);
  const cls = tokenizer.cls_token_id ?? tokenizer.convert_tokens_to_ids('[CLS]');
  const sep = tokenizer.sep_token_id ?? tokenizer.convert_tokens_to_ids('[SEP]');
  return [cls, ...pieces.slice(0, maxLen - 2), sep];
}

// embedIds runs one padded batch of token id lists and returns mean-pooled,
// L2-normalised vectors (pooling and normalisation in float64).
export async function embedIds(model, batch, padId = 0) {
  const b = batch.length;
  const s = Math.max(...batch.map((x) => x.length));
  const ids = new BigInt64Array(b * s);
  const mask = new BigInt64Array(b * s);
  const types = new BigInt64Array(b * s);
  batch.forEach((row, i) => {
    for (let j = 0; j < s; j++) {
      ids[i * s + j] = BigInt(j < row.length ? row[j] : padId);
      mask[i * s + j] = j < row.length ? 1n : 0n;
    }
  });
  const out = await model({
    input_ids: new Tensor('int64', ids, [b, s]),
    attention_mask: new Tensor('int64', mask, [b, s]),
    token_type_ids: new Tensor('int64', types, [b, s]),
  });
  const h = out.last_hidden_state;
  const [, , d] = h.dims;
  const data = h.data;
  return batch.map((row, i) => {
    const v = new Float64Array(d);
    for (let j = 0; j < row.length; j++) {
      const off = (i * s + j) * d;
      for (let k = 0; k < d; k++) v[k] += data[off + k];
    }
    let norm = 0;
    for (let k = 0; k < d; k++) {
      v[k] /= row.length;
      norm += v[k] * v[k];
    }
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) throw new Error(`bad embedding norm ${norm} for batch row ${i}`);
    return Array.from(v, (x) => x / norm);
  });
}

export function readTexts(file) {
  const texts = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    throw new Error(`${file}: expected a JSON array of strings`);
  }
  return texts;
}

export function usage(msg) {
  console.error(msg);
  process.exit(2);
}
