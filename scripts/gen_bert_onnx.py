#!/usr/bin/env python3
"""Write a BERT ONNX graph with seeded random weights: a fixture model.

By default the architecture is exactly sentence-transformers/all-MiniLM-L6-v2
(vocab 30522, hidden 384, 6 layers, 12 heads, intermediate 1536, 512 positions,
2 token types, erf GELU, LayerNorm eps 1e-12). The graph has the same inputs and
output as the Hugging Face ONNX export, so hugot, onnxruntime and
Transformers.js all accept it:

    inputs   input_ids, attention_mask, token_type_ids   int64 [batch_size, sequence_length]
    output   last_hidden_state                           float32 [batch_size, sequence_length, hidden]

Only standard opset-17 ops are used (Gather, Shape, Slice, Add, Mul, Sub, Div,
MatMul, Reshape, Transpose, Softmax, Erf, Cast, Unsqueeze, LayerNormalization),
all of which ONNX Runtime, onnx-gomlx (hugot's pure-Go backend) and
onnxruntime-web/node implement. The attention mask is applied additively as
(1 - mask) * -10000, so masked scores underflow to exactly 0 after softmax:
a padded batch equals the same texts run one by one, and a row that is all
padding gives a finite (uniform) softmax instead of NaN.

Weights: numpy.random.default_rng(seed), drawn in a fixed order (see
`build_weights`), normal with std 0.02 like BERT's initialiser; biases and
LayerNorm beta are N(0, 0.02) too and LayerNorm gamma is 1 + N(0, 0.02), so every
parameter takes part in the computation. With --quantize-levels N each random
draw is clipped to [-0.05, 0.05] and snapped to N evenly spaced levels, which
makes the file compress well (used for the small fixture committed in the repo).

With --out DIR it writes DIR/model.onnx, DIR/onnx/model.onnx (a hard link, for
Transformers.js), DIR/fixture.json (how it was made), and with --tokenizer-dir
the tokenizer files plus a config.json matching the chosen sizes.

Needs only onnx and numpy (Debian: python3-onnx python3-numpy; run with
/usr/bin/python3).
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8  # opset 17 needs IR >= 8; 8 keeps older runtimes happy
QUANT_RANGE = 0.05
MASK_VALUE = -10000.0
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "tokenizer_config.json",
    "special_tokens_map.json",
)


class Sizes:
    def __init__(self, vocab, hidden, layers, heads, intermediate, max_position, type_vocab, eps):
        if hidden % heads:
            raise SystemExit(f"--hidden {hidden} is not a multiple of --heads {heads}")
        self.vocab = vocab
        self.hidden = hidden
        self.layers = layers
        self.heads = heads
        self.head_dim = hidden // heads
        self.intermediate = intermediate
        self.max_position = max_position
        self.type_vocab = type_vocab
        self.eps = eps


def build_weights(s, seed, quantize_levels):
    """Return an ordered dict name -> float32 array. The draw order is part of the format."""
    rng = np.random.default_rng(seed)
    if quantize_levels:
        if quantize_levels < 2:
            raise SystemExit("--quantize-levels must be at least 2")
        step = 2 * QUANT_RANGE / (quantize_levels - 1)

    def noise(*shape):
        x = rng.normal(0.0, 0.02, size=shape)
        if quantize_levels:
            x = np.clip(x, -QUANT_RANGE, QUANT_RANGE)
            x = np.round((x + QUANT_RANGE) / step) * step - QUANT_RANGE
        return x.astype(np.float32)

    def gamma(n):
        return (np.float32(1.0) + noise(n)).astype(np.float32)

    w = {}
    h, i = s.hidden, s.intermediate
    w["embeddings.word_embeddings.weight"] = noise(s.vocab, h)
    w["embeddings.position_embeddings.weight"] = noise(s.max_position, h)
    w["embeddings.token_type_embeddings.weight"] = noise(s.type_vocab, h)
    w["embeddings.LayerNorm.weight"] = gamma(h)
    w["embeddings.LayerNorm.bias"] = noise(h)
    for layer in range(s.layers):
        p = f"encoder.layer.{layer}."
        # MatMul weights are stored [in, out] (x @ W), as in the HF export.
        for name in ("query", "key", "value"):
            w[p + f"attention.self.{name}.weight"] = noise(h, h)
            w[p + f"attention.self.{name}.bias"] = noise(h)
        w[p + "attention.output.dense.weight"] = noise(h, h)
        w[p + "attention.output.dense.bias"] = noise(h)
        w[p + "attention.output.LayerNorm.weight"] = gamma(h)
        w[p + "attention.output.LayerNorm.bias"] = noise(h)
        w[p + "intermediate.dense.weight"] = noise(h, i)
        w[p + "intermediate.dense.bias"] = noise(i)
        w[p + "output.dense.weight"] = noise(i, h)
        w[p + "output.dense.bias"] = noise(h)
        w[p + "output.LayerNorm.weight"] = gamma(h)
        w[p + "output.LayerNorm.bias"] = noise(h)
    return w


class GraphBuilder:
    def __init__(self):
        self.nodes = []
        self.initializers = []
        self._n = 0

    def const(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, name=None, **attrs):
        self._n += 1
        out = name or f"/{op_type}_{self._n}_output_0"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"/{op_type}_{self._n}", **attrs))
        return out


def build_graph(s, weights):
    g = GraphBuilder()
    for name, arr in weights.items():
        g.const(name, arr)

    f32 = np.float32
    i64 = np.int64
    c_one = g.const("const.one", np.array(1.0, dtype=f32))
    c_mask = g.const("const.mask_value", np.array(MASK_VALUE, dtype=f32))
    c_sqrt_hd = g.const("const.sqrt_head_dim", np.array(np.sqrt(s.head_dim), dtype=f32))
    c_sqrt2 = g.const("const.sqrt2", np.array(np.sqrt(2.0), dtype=f32))
    c_half = g.const("const.half", np.array(0.5, dtype=f32))
    c_zero_1d = g.const("const.zero_1d", np.array([0], dtype=i64))
    c_mask_axes = g.const("const.mask_axes", np.array([1, 2], dtype=i64))
    c_split_heads = g.const("const.split_heads_shape", np.array([0, 0, s.heads, s.head_dim], dtype=i64))
    c_merge_heads = g.const("const.merge_heads_shape", np.array([0, 0, s.hidden], dtype=i64))

    def layer_norm(x, prefix):
        return g.op("LayerNormalization", [x, prefix + ".weight", prefix + ".bias"], axis=-1, epsilon=s.eps)

    def linear(x, prefix):
        return g.op("Add", [g.op("MatMul", [x, prefix + ".weight"]), prefix + ".bias"])

    # Embeddings: word + position (rows 0..seq-1 of the table) + token type, then LayerNorm.
    seq_len = g.op("Shape", ["input_ids"], start=1, end=2)  # [seq] as a 1-D int64 tensor
    pos = g.op("Slice", ["embeddings.position_embeddings.weight", c_zero_1d, seq_len, c_zero_1d])  # [seq, h]
    words = g.op("Gather", ["embeddings.word_embeddings.weight", "input_ids"], axis=0)  # [b, seq, h]
    types = g.op("Gather", ["embeddings.token_type_embeddings.weight", "token_type_ids"], axis=0)
    x = g.op("Add", [g.op("Add", [words, types]), pos])
    x = layer_norm(x, "embeddings.LayerNorm")

    # Additive mask [b, 1, 1, seq]: 0 where attended, -10000 where padded.
    m = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", c_mask_axes])], to=TensorProto.FLOAT)
    mask = g.op("Mul", [g.op("Sub", [c_one, m]), c_mask])

    for layer in range(s.layers):
        p = f"encoder.layer.{layer}."

        def heads(t, perm):
            return g.op("Transpose", [g.op("Reshape", [t, c_split_heads])], perm=perm)

        q = heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])  # [b, nh, seq, hd]
        k = heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])  # [b, nh, hd, seq]
        v = heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])  # [b, nh, seq, hd]
        scores = g.op("Add", [g.op("Div", [g.op("MatMul", [q, k]), c_sqrt_hd]), mask])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])  # [b, seq, nh, hd]
        ctx = g.op("Reshape", [ctx, c_merge_heads])  # [b, seq, h]
        attn = linear(ctx, p + "attention.output.dense")
        x = layer_norm(g.op("Add", [attn, x]), p + "attention.output.LayerNorm")

        inter = linear(x, p + "intermediate.dense")
        # GELU, erf form: x * 0.5 * (1 + erf(x / sqrt(2)))
        erf = g.op("Erf", [g.op("Div", [inter, c_sqrt2])])
        gelu = g.op("Mul", [g.op("Mul", [inter, g.op("Add", [erf, c_one])]), c_half])
        out = linear(gelu, p + "output.dense")
        name = "last_hidden_state" if layer == s.layers - 1 else None
        x = g.op(
            "LayerNormalization",
            [g.op("Add", [out, x]), p + "output.LayerNorm.weight", p + "output.LayerNorm.bias"],
            name=name,
            axis=-1,
            epsilon=s.eps,
        )
    if s.layers == 0:
        x = g.op("Identity", [x], name="last_hidden_state")

    dims = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [s.hidden])]
    graph = helper.make_graph(g.nodes, "bert", inputs, outputs, initializer=g.initializers)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="lexsona-gen_bert_onnx",
        producer_version="1",
    )
    model.ir_version = IR_VERSION
    return model


def bert_config(base, s, args):
    cfg = dict(base)
    cfg.update(
        {
            "_name_or_path": f"lexsona/random-bert-h{s.hidden}-l{s.layers}-seed{args.seed}",
            "architectures": ["BertModel"],
            "model_type": "bert",
            "hidden_act": "gelu",
            "hidden_size": s.hidden,
            "num_hidden_layers": s.layers,
            "num_attention_heads": s.heads,
            "intermediate_size": s.intermediate,
            "vocab_size": s.vocab,
            "max_position_embeddings": s.max_position,
            "type_vocab_size": s.type_vocab,
            "layer_norm_eps": s.eps,
            "position_embedding_type": "absolute",
            "pad_token_id": cfg.get("pad_token_id", 0),
        }
    )
    return cfg


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


def link_or_copy(src, dst):
    if os.path.lexists(dst):
        os.remove(dst)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def copy_tokenizer(tok_dir, out_dir, s, args):
    if not os.path.isdir(tok_dir):
        raise SystemExit(f"{tok_dir} not found: the tokenizer files are needed to build fixture models")
    for name in TOKENIZER_FILES:
        src = os.path.join(tok_dir, name)
        if not os.path.isfile(src):
            raise SystemExit(f"{src} not found: the tokenizer files are needed to build fixture models")
        dst = os.path.join(out_dir, name)
        if os.path.lexists(dst):
            os.remove(dst)
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o644)
    base = {}
    cfg_path = os.path.join(tok_dir, "config.json")
    if os.path.isfile(cfg_path):
        with open(cfg_path, encoding="utf-8") as f:
            base = json.load(f)
    write_json(os.path.join(out_dir, "config.json"), bert_config(base, s, args))
    # The sentence-transformers metadata of the real model: mean pooling, L2
    # normalisation, max_seq_length 256.
    write_json(os.path.join(out_dir, "sentence_bert_config.json"), {"max_seq_length": 256, "do_lower_case": False})
    write_json(
        os.path.join(out_dir, "modules.json"),
        [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ],
    )
    os.makedirs(os.path.join(out_dir, "1_Pooling"), exist_ok=True)
    write_json(
        os.path.join(out_dir, "1_Pooling", "config.json"),
        {
            "word_embedding_dimension": s.hidden,
            "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--hidden", type=int, default=384)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--intermediate", type=int, default=1536)
    ap.add_argument("--max-position", type=int, default=512)
    ap.add_argument("--type-vocab", type=int, default=2)
    ap.add_argument("--eps", type=float, default=1e-12)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--quantize-levels", type=int, default=0, help="snap weights to N levels over [-0.05, 0.05] (0: off)")
    ap.add_argument("--out", required=True, help="output folder (model.onnx and onnx/model.onnx)")
    ap.add_argument("--tokenizer-dir", help="copy tokenizer files from here and write a matching config.json")
    args = ap.parse_args(argv)

    s = Sizes(args.vocab, args.hidden, args.layers, args.heads, args.intermediate, args.max_position, args.type_vocab, args.eps)
    t0 = time.monotonic()
    os.makedirs(os.path.join(args.out, "onnx"), exist_ok=True)
    if args.tokenizer_dir:
        copy_tokenizer(args.tokenizer_dir, args.out, s, args)

    model = build_graph(s, build_weights(s, args.seed, args.quantize_levels))
    onnx.checker.check_model(model)
    path = os.path.join(args.out, "model.onnx")
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, path)
    link_or_copy(path, os.path.join(args.out, "onnx", "model.onnx"))

    digest = sha256_file(path)
    n_params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    info = {
        "generator": "scripts/gen_bert_onnx.py",
        "generator_sha256": sha256_file(os.path.abspath(__file__)),
        "numpy": np.__version__,
        "onnx": onnx.__version__,
        "opset": OPSET,
        "seed": args.seed,
        "quantize_levels": args.quantize_levels,
        "vocab": s.vocab,
        "hidden": s.hidden,
        "layers": s.layers,
        "heads": s.heads,
        "intermediate": s.intermediate,
        "max_position": s.max_position,
        "type_vocab": s.type_vocab,
        "layer_norm_eps": s.eps,
        "parameters": n_params,
        "model_sha256": digest,
        "model_bytes": os.path.getsize(path),
    }
    write_json(os.path.join(args.out, "fixture.json"), info)
    print(
        f"wrote {path} ({info['model_bytes']} bytes, {n_params} parameters, sha256 {digest}) in {time.monotonic() - t0:.1f}s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
