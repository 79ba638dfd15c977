#!/usr/bin/env python3
"""Independent float64 reference: BERT by hand from a generated model's weights.

    /usr/bin/python3 scripts/ref_forward.py MODEL TOKENS.json [--out OUT.json] [--check OTHER.json] [--tol 1e-5]

MODEL is a model.onnx, a .onnx.gz, or a folder holding model.onnx. TOKENS.json
is the output of scripts/jsref/tokens.mjs ({"items": [{"input_ids": [...]}, ...]}).
The graph is NOT executed: only its initializers are read (onnx.numpy_helper),
plus the number of heads and the LayerNorm epsilon, and the encoder is computed
here in float64 with numpy:

    x = LN(word[ids] + pos[0..n-1] + type[0])
    per layer: a = softmax(q k^T / sqrt(d)) v; x = LN(x + a Wo + bo)
               x = LN(x + gelu_erf(x W1 + b1) W2 + b2)
    embedding = normalise(mean over tokens of x)

Each text is run alone (no padding), so the result is what every backend must
reproduce for a batch of one. --check compares with another embeddings JSON
({"vectors": [[...]]}, e.g. from scripts/jsref/embed.mjs) and exits 1 when any
component differs by more than --tol.
Output: {"source": "...", "model_sha256": "...", "dims": D, "vectors": [[...], ...]}
"""

import argparse
import gzip
import hashlib
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return _erf(x).astype(np.float64)


def load_model(path):
    if os.path.isdir(path):
        path = os.path.join(path, "model.onnx")
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return onnx.load_from_string(data), hashlib.sha256(data).hexdigest()


class Bert:
    def __init__(self, model):
        self.w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
        self.layers = 0
        while f"encoder.layer.{self.layers}.attention.self.query.weight" in self.w:
            self.layers += 1
        shape = self.w.get("const.split_heads_shape")
        if shape is None:
            raise SystemExit("not a gen_bert_onnx.py model: no const.split_heads_shape initializer")
        self.heads, self.head_dim = int(shape[2]), int(shape[3])
        eps = [a.f for n in model.graph.node if n.op_type == "LayerNormalization" for a in n.attribute if a.name == "epsilon"]
        if not eps or len(set(eps)) != 1:
            raise SystemExit("cannot find a single LayerNormalization epsilon in the graph")
        self.eps = float(np.float32(eps[0]))
        self.hidden = self.w["embeddings.word_embeddings.weight"].shape[1]

    def ln(self, x, prefix):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def lin(self, x, prefix):
        return x @ self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def forward(self, ids):
        ids = np.asarray(ids, dtype=np.int64)
        n = len(ids)
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
        x = self.ln(x, "embeddings.LayerNorm")
        h, d = self.heads, self.head_dim
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q = self.lin(x, p + "attention.self.query").reshape(n, h, d).transpose(1, 0, 2)
            k = self.lin(x, p + "attention.self.key").reshape(n, h, d).transpose(1, 0, 2)
            v = self.lin(x, p + "attention.self.value").reshape(n, h, d).transpose(1, 0, 2)
            s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(1, 0, 2).reshape(n, h * d)
            x = self.ln(x + self.lin(a, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            u = self.lin(x, p + "intermediate.dense")
            u = 0.5 * u * (1.0 + erf(u / math.sqrt(2.0)))
            x = self.ln(x + self.lin(u, p + "output.dense"), p + "output.LayerNorm")
        return x

    def embed(self, ids):
        v = self.forward(ids).mean(0)
        norm = np.linalg.norm(v)
        if not np.isfinite(norm) or norm == 0:
            raise ValueError(f"bad norm {norm}")
        return v / norm


def main(argv=None):
    ap = argparse.ArgumentParser(description="float64 numpy reference forward pass of a gen_bert_onnx.py model")
    ap.add_argument("model")
    ap.add_argument("tokens")
    ap.add_argument("--out", help="write embeddings JSON here (default: stdout unless --check)")
    ap.add_argument("--check", help="embeddings JSON to compare with")
    ap.add_argument("--tol", type=float, default=1e-5)
    args = ap.parse_args(argv)

    model, digest = load_model(args.model)
    bert = Bert(model)
    with open(args.tokens, encoding="utf-8") as f:
        items = json.load(f)["items"]
    vectors = np.array([bert.embed(it["input_ids"]) for it in items])

    out = {
        "source": f"scripts/ref_forward.py (numpy {np.__version__}, float64)",
        "model_sha256": digest,
        "dims": bert.hidden,
        "vectors": [[float(x) for x in v] for v in vectors],
    }
    if args.out or not args.check:
        text = json.dumps(out).replace("], [", "],\n[") + "\n"
        if args.out:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)

    if args.check:
        with open(args.check, encoding="utf-8") as f:
            other = json.load(f)
        if other.get("model_sha256") not in (None, digest):
            print(f"ref_forward: {args.check} is for model {other['model_sha256']}, not {digest}", file=sys.stderr)
            return 1
        theirs = np.array(other["vectors"], dtype=np.float64)
        if theirs.shape != vectors.shape:
            print(f"ref_forward: shape {theirs.shape} in {args.check}, want {vectors.shape}", file=sys.stderr)
            return 1
        diff = np.abs(theirs - vectors)
        worst = np.unravel_index(diff.argmax(), diff.shape)
        ok = diff.max() <= args.tol
        print(
            f"ref_forward: {args.check}: max |diff| = {diff.max():.3g} (text {worst[0]}, component {worst[1]}), "
            f"tolerance {args.tol:g}: {'ok' if ok else 'FAIL'}",
            file=sys.stderr,
        )
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
