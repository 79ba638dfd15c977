"""Agreement between the first labelling pass (labels.jsonl) and the
independent second annotator (labels_pass3.jsonl), with bootstrap intervals.

The pass-3 sample holds every prompt the first pass calls a correction and a
seeded random draw of the prompts it calls ordinary, so each prompt's
stratum is its first-pass label and its weight is (prompts of that stratum
in labels.jsonl) / (prompts of that stratum in the sample). Weighted figures
count each prompt `weight` times and speak of the whole corpus; unweighted
ones speak of the enriched sample.

Intervals are 95% percentile intervals of a seeded bootstrap that resamples
prompts with replacement within each stratum (so the stratum sizes, and with
them the weights, stay those of the design).
"""
import random
from collections import Counter

C, O = "correction", "ordinary"
SEED = 20261129
ROUNDS = 2000


def strata(p1, rows, key):
    """Attach stratum and weight to each pass-3 row from the first pass.

    Raises ValueError when a row is not in the first pass, or when the
    sample does not hold every first-pass correction (the weights assume
    the correction stratum is complete)."""
    missing = [r for r in rows if key(r) not in p1]
    if missing:
        raise ValueError("%d pass-3 rows are not in labels.jsonl" % len(missing))
    pop = Counter(o["label"] for o in p1.values())
    got = Counter(p1[key(r)]["label"] for r in rows)
    if got[C] != pop[C]:
        raise ValueError("sample holds %d of the %d first-pass corrections" % (got[C], pop[C]))
    out = []
    for r in rows:
        s = p1[key(r)]["label"]
        out.append(dict(r, stratum=s, weight=pop[s] / got[s]))
    return out


def figures(pairs, kappa):
    """Point figures of one sample. pairs: (first-pass row, pass-3 row) with
    `weight` on the pass-3 row. Returns a dict of name -> value or None."""
    lab = [(a["label"], b["label"]) for a, b in pairs]
    w = [b["weight"] for _, b in pairs]
    po, k = kappa(lab)
    po_w, k_w = kappa(lab, w)
    both = [(a, b) for a, b in pairs if a["label"] == b["label"] == C]
    ruled = [(a, b) for a, b in both if a["rule"] and a["rule"] == b["rule"]]
    p1c = [b for a, b in pairs if a["label"] == C]
    p3c = [a for a, b in pairs if b["label"] == C]
    total_w = sum(w)

    def share(xs, pred):
        return sum(map(pred, xs)) / len(xs) if xs else None

    return {
        "agreement": po,
        "kappa": k,
        "agreement (weighted)": po_w,
        "kappa (weighted)": k_w,
        "same rule | both correction": share(both, lambda ab: ab[0]["rule"] == ab[1]["rule"]),
        "same stance | both correction": share(both, lambda ab: ab[0]["stance"] == ab[1]["stance"]),
        "same stance | same non-null rule": share(ruled, lambda ab: ab[0]["stance"] == ab[1]["stance"]),
        "pass 3 correction | pass 1 correction": share(p1c, lambda b: b["label"] == C),
        "pass 1 correction | pass 3 correction": share(p3c, lambda a: a["label"] == C),
        "correction share, pass 1 (weighted)": sum(wi for (a, _), wi in zip(pairs, w) if a["label"] == C) / total_w,
        "correction share, pass 3 (weighted)": sum(wi for (_, b), wi in zip(pairs, w) if b["label"] == C) / total_w,
    }


def bootstrap(pairs, kappa, rounds=ROUNDS, seed=SEED):
    """95% percentile interval of every figure, resampling within strata.
    A figure undefined in a resample (no prompt to average over, or kappa
    with one label only) is left out of that figure's interval."""
    rng = random.Random(seed)
    by = {}
    for p in pairs:
        by.setdefault(p[1]["stratum"], []).append(p)
    draws = {}
    for _ in range(rounds):
        sample = []
        for s in sorted(by):
            sample += [rng.choice(by[s]) for _ in by[s]]
        for name, v in figures(sample, kappa).items():
            if v is not None:
                draws.setdefault(name, []).append(v)
    out = {}
    for name, vs in draws.items():
        vs.sort()
        out[name] = (vs[int(0.025 * (len(vs) - 1))], vs[int(0.975 * (len(vs) - 1))])
    return out


def report(p1, rows, key, kappa):
    rows = strata(p1, rows, key)
    pairs = [(p1[key(r)], r) for r in rows]
    n = Counter(r["stratum"] for r in rows)
    w = {r["stratum"]: r["weight"] for r in rows}
    print("== pass 3 (independent annotator) vs first pass: %d prompts; strata %s; weights %s"
          % (len(rows), dict(n), {s: round(v, 3) for s, v in w.items()}))
    point = figures(pairs, kappa)
    ci = bootstrap(pairs, kappa)
    print("bootstrap: %d resamples within strata, seed %d; 95%% percentile intervals" % (ROUNDS, SEED))
    both = sum(a["label"] == b["label"] == C for a, b in pairs)
    ruled = sum(bool(a["label"] == b["label"] == C and a["rule"] and a["rule"] == b["rule"]) for a, b in pairs)
    for name, v in point.items():
        lo, hi = ci.get(name, (None, None))
        note = {"same rule | both correction": " (n=%d, null counts as a value)" % both,
                "same stance | both correction": " (n=%d, null counts as a value)" % both,
                "same stance | same non-null rule": " (n=%d)" % ruled}.get(name, "")
        print("  %-38s %s  [%s, %s]%s" % (name, "n/a" if v is None else "%.3f" % v,
                                         "n/a" if lo is None else "%.3f" % lo,
                                         "n/a" if hi is None else "%.3f" % hi, note))
    print("confusion (pass1 -> pass3):", dict(Counter((a["label"], b["label"]) for a, b in pairs)))
    rules = Counter((a["rule"], b["rule"]) for a, b in pairs
                    if a["label"] == b["label"] == C and a["rule"] != b["rule"])
    print("rule differs among both-correction (pass1 | pass3):")
    for (ra, rb), c in rules.most_common():
        print("  %2d  %s | %s" % (c, ra, rb))
    for side, lab in (("pass 1 correction, pass 3 ordinary", (C, O)), ("pass 1 ordinary, pass 3 correction", (O, C))):
        rs = Counter((a["rule"] if lab[0] == C else b["rule"]) for a, b in pairs if (a["label"], b["label"]) == lab)
        print("%s: %d; rule of the correcting pass: %s" % (side, sum(rs.values()), dict(rs.most_common())))
    print("prompts that differ in label or rule (sha256 prefix: pass1 label/rule | pass3 label/rule):")
    for a, b in pairs:
        if (a["label"], a["rule"]) != (b["label"], b["rule"]):
            print("  %s: %s/%s | %s/%s" % (b["sha256"][:12], a["label"], a["rule"], b["label"], b["rule"]))
    kinds = [(a, b) for a, b in pairs if a["label"] == b["label"]]
    for lab in (C, O):
        ks = [(a, b) for a, b in kinds if a["label"] == lab]
        same = sum(a["kind"] == b["kind"] for a, b in ks)
        print("both %s: %d; same kind %d (%.3f)" % (lab, len(ks), same, same / max(1, len(ks))))
