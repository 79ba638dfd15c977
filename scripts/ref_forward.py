#!/usr/bin/env python3
"""Independent float64 reference: BERT by hand from a model's weights.

    /usr/bin/python3 scripts/ref_forward.py MODEL TOKENS.json [--out OUT.json] [--check OTHER.json] [--tol 1e-5]
        [--raw] [--gelu erf|tanh]

MODEL is one of
  - a generated model (scripts/gen_bert_onnx.py): a model.onnx, a .onnx.gz,
    or a folder holding model.onnx. The graph is NOT executed: only its
    initializers are read (onnx.numpy_helper), plus the number of heads and
    the LayerNorm epsilon;
  - a Hugging Face BertModel's weights: a model.safetensors file, or a folder
    holding one (and no model.onnx), with the config.json beside it giving
    num_attention_heads and layer_norm_eps. The file is parsed here with numpy
    alone (an 8-byte little-endian header length, a JSON header, then raw
    little-endian arrays); tensor names may carry a "bert." prefix, and
    nn.Linear weights, stored [out, in], are transposed.
TOKENS.json is the output of scripts/jsref/tokens.mjs
({"items": [{"input_ids": [...]}, ...]}). The encoder is computed here in
float64 with numpy:

    x = LN(word[ids] + pos[0..n-1] + type[0])
    per layer: a = softmax(q k^T / sqrt(d)) v; x = LN(x + a Wo + bo)
               x = LN(x + gelu_erf(x W1 + b1) W2 + b2)
    embedding = normalise(mean over tokens of x)

--raw leaves out the normalisation; --gelu tanh uses the tanh approximation of
GELU instead of erf (to reproduce runtimes that use it, e.g. candle's gelu).
Each text is run alone (no padding), so the result is what every backend must
reproduce for a batch of one. --check compares with another embeddings JSON
({"vectors": [[...]]}, e.g. from scripts/jsref/embed.mjs) and exits 1 when any
component differs by more than --tol.
Output: {"source": "...", "model_sha256": "...", "dims": D, "vectors": [[...], ...]}
(plus "gelu": "tanh" and "normalized": false when those options are given)
"""

import argparse
import gzip
import hashlib
import json
import math
import os
import sys

import numpy as np

_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return _erf(x).astype(np.float64)


def load_model(path):
    """Returns (weights, heads, eps, sha256 of the file read)."""
    if os.path.isdir(path):
        onnx_file = os.path.join(path, "model.onnx")
        st_file = os.path.join(path, "model.safetensors")
        path = onnx_file if os.path.exists(onnx_file) or not os.path.exists(st_file) else st_file
    if path.endswith(".safetensors"):
        return load_safetensors(path)
    return load_onnx(path)


def load_onnx(path):
    import onnx
    from onnx import numpy_helper

    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    model = onnx.load_from_string(data)
    w = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    shape = w.get("const.split_heads_shape")
    if shape is None:
        raise SystemExit("not a gen_bert_onnx.py model: no const.split_heads_shape initializer")
    eps = [a.f for n in model.graph.node if n.op_type == "LayerNormalization" for a in n.attribute if a.name == "epsilon"]
    if not eps or len(set(eps)) != 1:
        raise SystemExit("cannot find a single LayerNormalization epsilon in the graph")
    return w, int(shape[2]), float(np.float32(eps[0])), hashlib.sha256(data).hexdigest()


# safetensors dtypes this reader accepts (all little-endian).
_ST_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}

# nn.Linear weights: stored [out, in], used here as x @ W with W [in, out].
_LINEAR = ("attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense")


def read_safetensors(path):
    """Returns ({name: array}, sha256) for a safetensors file, parsed by hand."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise SystemExit(f"{path}: too short to be a safetensors file")
    n = int.from_bytes(data[:8], "little")
    if n > len(data) - 8:
        raise SystemExit(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _ST_DTYPES.get(info["dtype"])
        if dtype is None:
            if info["dtype"] == "BF16":
                start, end = info["data_offsets"]
                raw = np.frombuffer(body[start:end], dtype="<u2").astype(np.uint32) << 16
                out[name] = raw.view(np.float32).reshape(info["shape"])
                continue
            raise SystemExit(f"{path}: tensor {name} has dtype {info['dtype']}, which this reader does not know")
        start, end = info["data_offsets"]
        arr = np.frombuffer(body[start:end], dtype=dtype)
        if arr.size != int(np.prod(info["shape"], dtype=np.int64)):
            raise SystemExit(f"{path}: tensor {name} has {arr.size} values for shape {info['shape']}")
        out[name] = arr.reshape(info["shape"])
    return out, hashlib.sha256(data).hexdigest()


def load_safetensors(path):
    tensors, digest = read_safetensors(path)
    config_file = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
    try:
        with open(config_file, encoding="utf-8") as f:
            config = json.load(f)
    except OSError as e:
        raise SystemExit(f"{config_file}: {e}: the safetensors weights need their config.json beside them")
    w = {}
    for name, arr in tensors.items():
        if name.startswith("bert."):
            name = name[len("bert."):]
        if not np.issubdtype(arr.dtype, np.floating):
            continue  # embeddings.position_ids
        arr = arr.astype(np.float64)
        if name.endswith(".weight") and name[: -len(".weight")].split(".", 3)[-1] in _LINEAR and arr.ndim == 2:
            arr = np.ascontiguousarray(arr.T)  # a transposed view would make every matmul 2-3x slower
        w[name] = arr
    if config.get("hidden_act", "gelu") != "gelu":
        raise SystemExit(f"{config_file}: hidden_act {config.get('hidden_act')!r}: only gelu (erf) is implemented")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit(f"{config_file}: only absolute position embeddings are implemented")
    heads = int(config["num_attention_heads"])
    return w, heads, float(config["layer_norm_eps"]), digest


class Bert:
    def __init__(self, w, heads, eps, gelu="erf"):
        self.w = w
        self.gelu = gelu
        self.layers = 0
        while f"encoder.layer.{self.layers}.attention.self.query.weight" in self.w:
            self.layers += 1
        if self.layers == 0:
            raise SystemExit("no encoder.layer.0.attention.self.query.weight: not a BERT encoder's weights")
        self.hidden = self.w["embeddings.word_embeddings.weight"].shape[1]
        if self.hidden % heads:
            raise SystemExit(f"hidden size {self.hidden} is not a multiple of {heads} heads")
        self.heads, self.head_dim = heads, self.hidden // heads
        self.eps = eps

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
            if self.gelu == "tanh":
                u = 0.5 * u * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u**3)))
            else:
                u = 0.5 * u * (1.0 + erf(u / math.sqrt(2.0)))
            x = self.ln(x + self.lin(u, p + "output.dense"), p + "output.LayerNorm")
        return x

    def embed(self, ids, normalize=True):
        v = self.forward(ids).mean(0)
        if not normalize:
            return v
        norm = np.linalg.norm(v)
        if not np.isfinite(norm) or norm == 0:
            raise ValueError(f"bad norm {norm}")
        return v / norm


def main(argv=None):
    ap = argparse.ArgumentParser(description="float64 numpy reference forward pass of a BERT encoder (gen_bert_onnx.py model or model.safetensors)")
    ap.add_argument("model")
    ap.add_argument("tokens")
    ap.add_argument("--out", help="write embeddings JSON here (default: stdout unless --check)")
    ap.add_argument("--check", help="embeddings JSON to compare with")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--raw", action="store_true", help="output the mean-pooled vectors without L2 normalisation")
    ap.add_argument(
        "--gelu", choices=("erf", "tanh"), default="erf",
        help="GELU form: erf (exact, what BERT's hidden_act gelu means) or tanh (the approximation some runtimes use)",
    )
    args = ap.parse_args(argv)

    w, heads, eps, digest = load_model(args.model)
    bert = Bert(w, heads, eps, args.gelu)
    with open(args.tokens, encoding="utf-8") as f:
        items = json.load(f)["items"]
    vectors = np.array([bert.embed(it["input_ids"], not args.raw) for it in items])

    out = {
        "source": f"scripts/ref_forward.py (numpy {np.__version__}, float64)",
        "model_sha256": digest,
        "dims": bert.hidden,
        "vectors": [[float(x) for x in v] for v in vectors],
    }
    if args.gelu != "erf":
        out["gelu"] = args.gelu
    if args.raw:
        out["normalized"] = False
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
