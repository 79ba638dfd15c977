#!/usr/bin/env python3
"""Agreement between the first labelling pass (labels.jsonl) and the blind
second passes on stratified samples (labels_pass2.jsonl).

labels_pass2.jsonl holds one sample per labelling round, told apart by the
`sample` field (the round's number; README.md says which rows of
labels.jsonl each round added). Each row carries its
`stratum` (how it was drawn) and `weight` (prompts of that stratum in the
sampled population / prompts of that stratum in the sample).

For each sample, for the samples after the first together (the prompts added
after round 1) and for all of them, this prints Cohen's kappa on
correction vs ordinary and raw agreement, the same reweighted to the
population mix (each prompt counted `weight` times, since the samples are
enriched with corrections), the confusion matrix, and among prompts both
passes call a correction: agreement on the rule id (null counts as a value),
stance and kind; plus agreement on kind among prompts both call ordinary.

With --pass3 it prints instead the comparison of the first pass with the
independent second annotator (labels_pass3.jsonl; see agreement3.py).

usage: agreement.py [--sample N | --pass3]
"""
import argparse
import json
import os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
key = lambda o: (o["repo"], o["path"], o["commit"], o["turn"])


def kappa(pairs, w=None):
    w = w or [1.0] * len(pairs)
    n = sum(w)
    po = sum(wi for (a, b), wi in zip(pairs, w) if a == b) / n
    ca, cb = Counter(), Counter()
    for (a, b), wi in zip(pairs, w):
        ca[a] += wi
        cb[b] += wi
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    # kappa is undefined when chance agreement is certain (one label only)
    return po, (po - pe) / (1 - pe) if pe < 1 else None


def fmt(k):
    return "n/a (one label only)" if k is None else "%.3f" % k


def report(title, p1, p2):
    pairs = [(p1[key(o)]["label"], o["label"]) for o in p2]
    print("== %s: %d prompts (first pass: %d corrections; strata %s)" % (
        title, len(p2), sum(a == "correction" for a, _ in pairs), dict(Counter(o["stratum"] for o in p2))))
    po, k = kappa(pairs)
    print("correction vs ordinary: agreement %.3f, Cohen's kappa %s" % (po, fmt(k)))
    po_w, k_w = kappa(pairs, [o["weight"] for o in p2])
    print("  reweighted to the population mix: agreement %.3f, kappa %s" % (po_w, fmt(k_w)))
    print("confusion (pass1 -> pass2):", dict(Counter(pairs)))
    both = [(p1[key(o)], o) for o in p2 if p1[key(o)]["label"] == o["label"] == "correction"]
    if both:
        r = sum(a["rule"] == b["rule"] for a, b in both)
        s = sum(a["stance"] == b["stance"] for a, b in both)
        kd = sum(a["kind"] == b["kind"] for a, b in both)
        cl = sum(a["clause"] == b["clause"] for a, b in both)
        withrule = [(a, b) for a, b in both if a["rule"] or b["rule"]]
        print("both passes correction: %d; same rule id (null included) %d (%.3f); same stance %d; same kind %d; same clause %d"
              % (len(both), r, r / len(both), s, kd, cl))
        print("  of those where either pass gave a rule: %d, same rule %d" % (
            len(withrule), sum(a["rule"] == b["rule"] for a, b in withrule)))
        for a, b in both:
            if a["rule"] != b["rule"]:
                print("  rule differs:", a["rule"], "|", b["rule"])
    for a, b in ((p1[key(o)], o) for o in p2):
        if a["label"] != b["label"]:
            print("  label differs: pass1 %s (%s) | pass2 %s (%s)" % (a["label"], a["rule"], b["label"], b["rule"]))
    od = [(p1[key(o)], o) for o in p2 if p1[key(o)]["label"] == o["label"] == "ordinary"]
    same = sum(a["kind"] == b["kind"] for a, b in od)
    print("both passes ordinary: %d; same kind %d (%.3f)" % (len(od), same, same / max(1, len(od))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, help="report this sample only")
    ap.add_argument("--pass3", action="store_true", help="report the independent annotator (labels_pass3.jsonl)")
    a = ap.parse_args()
    p1 = {key(o): o for o in map(json.loads, open(os.path.join(HERE, "labels.jsonl")))}
    if a.pass3:
        import agreement3
        p3 = [json.loads(l) for l in open(os.path.join(HERE, "labels_pass3.jsonl"))]
        agreement3.report(p1, p3, key, kappa)
        return
    p2 = [json.loads(l) for l in open(os.path.join(HERE, "labels_pass2.jsonl"))]
    samples = sorted({o["sample"] for o in p2})
    if a.sample is not None and a.sample not in samples:
        ap.error("no sample %d in labels_pass2.jsonl (there are %s)" % (a.sample, samples))
    for n in samples:
        if a.sample in (None, n):
            report("sample %d" % n, p1, [o for o in p2 if o["sample"] == n])
    if a.sample is None:
        report("samples after the first", p1, [o for o in p2 if o["sample"] > 1])
        report("all samples", p1, p2)


if __name__ == "__main__":
    main()
