#!/usr/bin/env python3
"""Tests for extract.py on small invented transcripts, one per format.

Run: python3 eval/realprompts/test_extract.py
The real files were also checked end to end: rebuild.py re-extracts every
labelled turn from the git mirrors and compares its sha256.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import extract as X  # noqa: E402


class Formats(unittest.TestCase):
    def test_history_jsonl(self):
        lines = [
            {"display": "  add a dark mode toggle  ", "pastedContents": {}, "sessionId": "a"},
            "not json",
            {"display": "/model", "sessionId": "a"},
            {"session_id": "b", "ts": 1, "text": "codex style prompt"},
            {"other": 1},
            {"display": "", "sessionId": "a"},
        ]
        data = "\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines).encode()
        turns = X.user_turns(data, "history_jsonl")
        self.assertEqual(turns, [(0, "add a dark mode toggle"), (1, "/model"), (2, "codex style prompt"), (3, "")])
        self.assertEqual(X.eligible(turns), [0, 2])

    def test_specstory(self):
        md = ("# Chat\n\n_**User**_\n\nplease rename the helper\n\n---\n\n_**Assistant**_\n\nDone.\n\n---\n\n"
              "_**User (2025-01-02 10:00Z)**_\n\nwhy is the test red?\nit was green before\n\n---\n\n"
              "_**Agent (model x)**_\n\nLooking.\n")
        self.assertEqual(X.user_turns(md.encode(), "specstory_md"),
                         [(0, "please rename the helper"), (1, "why is the test red?\nit was green before")])

    def test_cursor(self):
        md = "# t\n_Exported on 1/1 from Cursor_\n\n---\n\n**User**\n\nfix the build\n\n---\n\n**Cursor**\n\nok\n\n---\n\n**User**\n\nthanks\n"
        self.assertEqual(X.user_turns(md.encode(), "cursor_md"), [(0, "fix the build"), (1, "thanks")])

    def test_aider_input(self):
        h = "\n# 2024-05-01 10:00:00.1\n+/add a.py\n\n# 2024-05-01 10:01:00.2\n+make it faster\n+and add a test\n"
        turns = X.user_turns(h.encode(), "aider_input")
        self.assertEqual(turns, [(0, "/add a.py"), (1, "make it faster\nand add a test")])
        self.assertEqual(X.eligible(turns), [1])

    def test_aider_chat(self):
        h = "# aider chat started at x\n\n#### first line\n#### second line\n\n> tool output\n\n#### y\n"
        self.assertEqual(X.user_turns(h.encode(), "aider_chat_md"), [(0, "first line\nsecond line"), (1, "y")])

    def test_crlf_and_bom(self):
        data = "\ufeff".encode() + b'{"display":"a\\r\\nb"}\r\n'
        self.assertEqual(X.user_turns(data, "history_jsonl"), [(0, "a\r\nb")])

    def test_eligible_generated_and_dupes(self):
        turns = list(enumerate(["<ide_opened_file>x</ide_opened_file>", "go on", "go on", "!ls", "/home/me/x.py is broken"]))
        self.assertEqual(X.eligible(turns), [1, 4])

    def test_clauses(self):
        t = "Fix the login. Also stop using npm!\n\n  we use pnpm here\nok? yes"
        self.assertEqual(X.clauses(t), ["Fix the login.", "Also stop using npm!", "we use pnpm here", "ok?", "yes"])
        self.assertEqual(X.clauses("先做计划。然后再写代码"), ["先做计划。然后再写代码"])
        self.assertEqual(X.clauses("先做计划。 然后"), ["先做计划。", "然后"])

    def test_detect(self):
        self.assertEqual(X.detect_format(".claude/history.jsonl"), "history_jsonl")
        self.assertEqual(X.detect_format(".specstory/history/2025-01-01_x.md"), "specstory_md")
        self.assertEqual(X.detect_format("docs/cursor_fix_build.md"), "cursor_md")
        self.assertEqual(X.detect_format(".aider.input.history"), "aider_input")


if __name__ == "__main__":
    unittest.main()
