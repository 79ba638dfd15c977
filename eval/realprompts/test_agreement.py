#!/usr/bin/env python3
"""Tests for the kappa arithmetic of agreement.py and the source split of
stats.py, on invented label pairs and rows.

Run: python3 eval/realprompts/test_agreement.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agreement  # noqa: E402
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
