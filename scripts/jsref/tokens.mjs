// node tokens.mjs MODEL_DIR TEXTS.json > tokens.json
//
// For each text, the input_ids exactly as sentence-transformers feeds
// all-MiniLM-L6-v2: the folder's tokenizer.json (BERT WordPiece, lower-cased),
// [CLS] … [SEP], truncated at 256 tokens (max_seq_length), no padding.
// Local files only. Output:
//   {"source": {...versions}, "max_seq_length": 256, "tokenizer_sha256": "...",
//    "items": [{"text": "...", "input_ids": [101, ..., 102]}, ...]}
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadTokenizer, tokenize, readTexts, versions, usage, MAX_SEQ_LENGTH } from './lib.mjs';

const [modelDir, textsFile] = process.argv.slice(2);
if (!modelDir || !textsFile) usage('usage: node tokens.mjs MODEL_DIR TEXTS.json');

const tokenizer = await loadTokenizer(modelDir);
const texts = readTexts(textsFile);
const tokJson = fs.readFileSync(path.join(path.resolve(modelDir), 'tokenizer.json'));
const out = {
  source: versions(),
  max_seq_length: MAX_SEQ_LENGTH,
  tokenizer_sha256: crypto.createHash('sha256').update(tokJson).digest('hex'),
  items: texts.map((text) => ({ text, input_ids: tokenize(tokenizer, text) })),
};
process.stdout.write(JSON.stringify(out, null, 1).replace(/\[\n\s+([\d,\s]+?)\n\s+\]/g, (_, ids) => '[' + ids.replace(/\s+/g, '') + ']') + '\n');
