#!/usr/bin/env python3
"""Agreement between the first labelling pass (labels.jsonl) and the blind
second pass on a stratified sample (labels_pass2.jsonl).

Prints Cohen's kappa on correction vs ordinary, raw agreement, the confusion
matrix, and among prompts both passes call a correction: agreement on the
rule id (null counts as a value) and on stance, plus agreement on kind.
Because the sample is enriched with corrections, kappa is also given with
each prompt weighted by the inverse of its stratum's sampling rate.
"""
import json
import os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
key = lambda o: (o["repo"], o["path"], o["commit"], o["turn"])
p1 = {key(o): o for o in map(json.loads, open(os.path.join(HERE, "labels.jsonl")))}
p2 = [json.loads(l) for l in open(os.path.join(HERE, "labels_pass2.jsonl"))]


def kappa(pairs, w=None):
    w = w or [1.0] * len(pairs)
    n = sum(w)
    po = sum(wi for (a, b), wi in zip(pairs, w) if a == b) / n
    ca, cb = Counter(), Counter()
    for (a, b), wi in zip(pairs, w):
        ca[a] += wi
        cb[b] += wi
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return po, (po - pe) / (1 - pe)


pairs = [(p1[key(o)]["label"], o["label"]) for o in p2]
po, k = kappa(pairs)
print("sample %d prompts (first pass: %d corrections)" % (len(p2), sum(a == "correction" for a, _ in pairs)))
print("correction vs ordinary: agreement %.3f, Cohen's kappa %.3f" % (po, k))
# stratum weights: first-pass label decides the stratum
tot = Counter(o["label"] for o in p1.values())
smp = Counter(a for a, _ in pairs)
w = [tot[a] / smp[a] for a, _ in pairs]
po_w, k_w = kappa(pairs, w)
print("  reweighted to the corpus mix: agreement %.3f, kappa %.3f" % (po_w, k_w))
print("confusion (pass1 -> pass2):", dict(Counter(pairs)))
both = [(p1[key(o)], o) for o in p2 if p1[key(o)]["label"] == o["label"] == "correction"]
if both:
    r = sum(a["rule"] == b["rule"] for a, b in both)
    s = sum(a["stance"] == b["stance"] for a, b in both)
    kd = sum(a["kind"] == b["kind"] for a, b in both)
    withrule = [(a, b) for a, b in both if a["rule"] or b["rule"]]
    print("both passes correction: %d; same rule id (null included) %d (%.3f); same stance %d; same kind %d"
          % (len(both), r, r / len(both), s, kd))
    print("  of those where either pass gave a rule: %d, same rule %d" % (len(withrule), sum(a["rule"] == b["rule"] for a, b in withrule)))
    for a, b in both:
        if a["rule"] != b["rule"]:
            print("  rule differs:", a["rule"], "|", b["rule"])
od = [(p1[key(o)], o) for o in p2 if p1[key(o)]["label"] == o["label"] == "ordinary"]
print("both passes ordinary: %d; same kind %d (%.3f)" % (len(od), sum(a["kind"] == b["kind"] for a, b in od),
                                                          sum(a["kind"] == b["kind"] for a, b in od) / max(1, len(od))))
