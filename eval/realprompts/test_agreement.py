#!/usr/bin/env python3
"""Tests for the kappa arithmetic of agreement.py, the strata, figures and
bootstrap of agreement3.py, and the source split of stats.py, on invented
label pairs and rows.

Run: python3 eval/realprompts/test_agreement.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agreement  # noqa: E402
import agreement3  # noqa: E402
import stats  # noqa: E402

C, O = "correction", "ordinary"


class Kappa(unittest.TestCase):
    def test_table(self):
        # (pairs, weights, raw agreement, kappa)
        cases = [
            ("perfect agreement", [(C, C)] * 3 + [(O, O)] * 7, None, 1.0, 1.0),
            ("textbook 2x2: po 0.7, pe 0.5", [(C, C)] * 20 + [(C, O)] * 5 + [(O, C)] * 10 + [(O, O)] * 15, None, 0.7, 0.4),
            ("no agreement beyond chance", [(C, C), (C, O), (O, C), (O, O)], None, 0.5, 0.0),
            ("one label only on both sides: kappa undefined", [(O, O)] * 4, None, 1.0, None),
            ("equal weights change nothing", [(C, C)] * 20 + [(C, O)] * 5 + [(O, C)] * 10 + [(O, O)] * 15, [2.0] * 50, 0.7, 0.4),
        ]
        for name, pairs, w, po, k in cases:
            with self.subTest(name):
                got_po, got_k = agreement.kappa(pairs, w)
                self.assertAlmostEqual(got_po, po)
                if k is None:
                    self.assertIsNone(got_k)
                else:
                    self.assertAlmostEqual(got_k, k)

    def test_weights_move_the_mix(self):
        # the disagreement sits in the ordinary stratum; counting that stratum
        # ten times over lowers raw agreement from 0.9 to about 0.84
        pairs = [(C, C)] * 5 + [(O, O)] * 4 + [(O, C)]
        w = [1.0] * 5 + [10.0] * 5
        po, _ = agreement.kappa(pairs, w)
        self.assertAlmostEqual(po, (5 + 40) / 55)


def row(n, label, rule=None, stance=None, kind="task"):
    return {"repo": "r", "path": "p", "commit": "c", "turn": n, "sha256": "%064d" % n,
            "label": label, "rule": rule, "stance": stance, "kind": kind}


class Pass3(unittest.TestCase):
    def first_pass(self):
        # 2 corrections and 8 ordinary prompts in the invented corpus
        return {agreement.key(r): r for r in
                [row(0, C, "a", "support"), row(1, C)] + [row(n, O) for n in range(2, 10)]}

    def test_strata_weights(self):
        p1 = self.first_pass()
        got = agreement3.strata(p1, [row(0, C), row(1, O), row(2, O), row(3, C)], agreement.key)
        self.assertEqual([(r["stratum"], r["weight"]) for r in got],
                         [(C, 1.0), (C, 1.0), (O, 4.0), (O, 4.0)])

    def test_strata_errors(self):
        p1 = self.first_pass()
        cases = [
            ("a correction left out of the sample", [row(0, C), row(2, O)]),
            ("a row the first pass does not hold", [row(0, C), row(1, C), row(99, O)]),
        ]
        for name, rows in cases:
            with self.subTest(name):
                with self.assertRaises(ValueError):
                    agreement3.strata(p1, rows, agreement.key)

    def pairs(self, p3):
        p1 = self.first_pass()
        rows = agreement3.strata(p1, p3, agreement.key)
        return [(p1[agreement.key(r)], r) for r in rows]

    def test_figures(self):
        pairs = self.pairs([row(0, C, "a", "contradict"), row(1, C, "b", "support"), row(2, C), row(3, O)])
        f = agreement3.figures(pairs, agreement.kappa)
        cases = [
            ("agreement", 0.75),
            # rule a on both sides, then null against b
            ("same rule | both correction", 0.5),
            ("same stance | both correction", 0.0),
            ("same stance | same non-null rule", 0.0),
            ("pass 3 correction | pass 1 correction", 1.0),
            ("pass 1 correction | pass 3 correction", 2 / 3),
            # weights 1, 1, 4, 4: the ordinary stratum counts four times over
            ("agreement (weighted)", 6 / 10),
            ("correction share, pass 3 (weighted)", 6 / 10),
        ]
        for name, want in cases:
            with self.subTest(name):
                self.assertAlmostEqual(f[name], want)
        none = agreement3.figures(self.pairs([row(0, O), row(1, O), row(2, O)]), agreement.kappa)
        self.assertIsNone(none["same rule | both correction"])

    def test_bootstrap(self):
        agree = self.pairs([row(0, C, "a", "support"), row(1, C), row(2, O), row(3, O)])
        ci = agreement3.bootstrap(agree, agreement.kappa, rounds=200, seed=1)
        self.assertEqual(ci["agreement"], (1.0, 1.0))
        mixed = self.pairs([row(0, C, "a", "support"), row(1, O), row(2, O), row(3, C)])
        a = agreement3.bootstrap(mixed, agreement.kappa, rounds=200, seed=1)
        self.assertEqual(a, agreement3.bootstrap(mixed, agreement.kappa, rounds=200, seed=1))
        lo, hi = a["agreement"]
        self.assertLessEqual(lo, 0.5)
        self.assertGreaterEqual(hi, 0.5)
        self.assertLess(lo, hi)


class Source(unittest.TestCase):
    def test_table(self):
        cases = [
            ({"format": "history_jsonl", "path": ".claude/history.jsonl"}, "claude_history"),
            ({"format": "history_jsonl", "path": "claude/history.jsonl"}, "claude_history"),
            ({"format": "history_jsonl", "path": ".codex/history.jsonl"}, "codex_history"),
            ({"format": "history_jsonl", "path": ".agents/.codex/history.jsonl"}, "codex_history"),
            ({"format": "aider_input", "path": ".aider.input.history"}, "aider_input"),
        ]
        for row, want in cases:
            with self.subTest(row["path"]):
                self.assertEqual(stats.source(row), want)


if __name__ == "__main__":
    unittest.main()
