#!/usr/bin/env python3
"""Prints the figures the README's "Counts" section states, from labels.jsonl.

Everything here is computed from the labels alone (no text is needed), so
the README can be checked without rebuilding the texts:

  python3 eval/realprompts/stats.py            # whole corpus
  python3 eval/realprompts/stats.py --from 2287 # only rows after the first 2,287

Sources split history_jsonl by where the file sits: a path under .codex/ is
a Codex CLI history, any other history.jsonl a Claude Code one.
"""
import argparse
import json
import os
import statistics
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def source(r):
    if r["format"] != "history_jsonl":
        return r["format"]
    return "codex_history" if "/.codex/" in "/" + r["path"] else "claude_history"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.jsonl"))
    ap.add_argument("--from", dest="start", type=int, default=0, help="skip the first N rows")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.labels, encoding="utf-8")][a.start:]
    corr = [r for r in rows if r["label"] == "correction"]
    ordi = [r for r in rows if r["label"] == "ordinary"]
    fit = [r for r in corr if r["rule"]]
    per = defaultdict(lambda: [0, 0])
    for r in rows:
        per[r["repo"]][0] += 1
        per[r["repo"]][1] += r["label"] == "correction"
    print("prompts %d, repositories %d (%d with a correction)" % (len(rows), len(per), sum(1 for v in per.values() if v[1])))
    print("corrections %d (%.1f%%): fitting a rule %d (support %d, contradict %d), fitting none %d" % (
        len(corr), 100 * len(corr) / len(rows), len(fit), sum(r["stance"] == "support" for r in fit),
        sum(r["stance"] == "contradict" for r in fit), len(corr) - len(fit)))
    print("correction kinds:", ", ".join("%s %d" % kv for kv in Counter(r["kind"] for r in corr).most_common()))
    print("ordinary kinds:", ", ".join("%s %d" % kv for kv in Counter(r["kind"] for r in ordi).most_common()))
    print("formats:", ", ".join("%s %d" % kv for kv in Counter(r["format"] for r in rows).most_common()))
    src = Counter(source(r) for r in rows)
    srepo = Counter(source(r) for r in {(r["repo"], source(r)): r for r in rows}.values())
    print("sources (prompts / repositories):", ", ".join("%s %d / %d" % (s, n, srepo[s]) for s, n in src.most_common()))
    top = max(per.items(), key=lambda kv: kv[1][0])
    print("largest repository: %s %d prompts (%.2f%%)" % (top[0], top[1][0], 100 * top[1][0] / len(rows)))
    big = [v for v in per.values() if v[0] >= 20]
    if big:
        print("repositories with >= 20 prompts: %d; median correction rate %.1f%%; %d with none; most corrections in one: %d" % (
            len(big), 100 * statistics.median(c / n for n, c in big), sum(1 for n, c in big if c == 0),
            max(c for n, c in per.values())))
    if corr and ordi:
        print("median length: corrections %g, ordinary %g characters" % (
            statistics.median(r["chars"] for r in corr), statistics.median(r["chars"] for r in ordi)))
    print("rules:", ", ".join("%s %d" % kv for kv in Counter(r["rule"] for r in fit).most_common()))
    print("contradictions:", ", ".join(sorted(r["rule"] for r in fit if r["stance"] == "contradict")))


if __name__ == "__main__":
    main()
