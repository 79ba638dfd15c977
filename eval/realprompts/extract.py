#!/usr/bin/env python3
"""Deterministic extraction of user turns from coding-agent transcript files.

Standard library only. Given a transcript file's raw bytes and its format,
user_turns() returns [(turn, text), ...] where `turn` is the 0-based index of
the user turn among ALL user turns of that file, in file order, and `text`
is the turn exactly as extracted (see below). The sha256 recorded in
labels.jsonl is sha256(text.encode("utf-8")).hexdigest().

Decoding (all formats): bytes -> str with UTF-8, errors="replace"; a leading
BOM is dropped; "\\r\\n" and then lone "\\r" become "\\n".

Formats (the `format` field of labels.jsonl):

  history_jsonl   Claude Code ~/.claude/history.jsonl (one JSON object per
                  line, prompt in "display") and Codex ~/.codex/history.jsonl
                  (prompt in "text", with "session_id"). Every line that parses
                  as a JSON object holding such a string is one user turn;
                  other lines are skipped and not counted. Text = the string
                  with surrounding whitespace stripped.
  specstory_md    SpecStory .specstory/history/*.md. A turn starts after a
                  header line _**User**_ (also "_**User (date)**_") and runs
                  to the next header line _**User..**_, _**Assistant..**_,
                  _**Agent..**_, _**Cursor..**_ or _**Model..**_ (or end of
                  file). Trailing lines that are only "---" are removed, then
                  surrounding whitespace is stripped.
  cursor_md       Cursor "Export chat" markdown (cursor_*.md). Same as
                  specstory_md with header lines **User** and **Cursor**.
  aider_input     aider .aider.input.history. An entry starts at a line
                  "# <timestamp>"; its lines start with "+". Text = those
                  lines without the "+", joined by "\\n", stripped.
  aider_chat_md   aider .aider.chat.history.md. A turn is a maximal run of
                  consecutive lines starting with "#### "; text = those lines
                  without the prefix, joined by "\\n", stripped.

Turns whose text is empty are still counted (they keep their index) but are
not eligible for labelling; see eligible().

clauses(text) is the splitter used by the "clause" field: the text is split
into lines; each line is stripped, empty lines are dropped, and each line is
split after ".", "!", "?", "。", "！" or "？" followed by whitespace; empty
pieces are dropped. The clause index is the 0-based position in that list.
"""
import hashlib
import json
import re
import sys

FORMATS = ("history_jsonl", "specstory_md", "cursor_md", "aider_input", "aider_chat_md")


def decode(data: bytes) -> str:
    s = data.decode("utf-8", errors="replace")
    if s.startswith("\ufeff"):
        s = s[1:]
    return s.replace("\r\n", "\n").replace("\r", "\n")


def detect_format(path: str) -> str:
    p = path.replace("\\", "/")
    name = p.rsplit("/", 1)[-1]
    if name.endswith("history.jsonl"):
        return "history_jsonl"
    if "/.specstory/history/" in "/" + p and name.endswith(".md"):
        return "specstory_md"
    if name == ".aider.input.history":
        return "aider_input"
    if name == ".aider.chat.history.md":
        return "aider_chat_md"
    if name.startswith("cursor_") and name.endswith(".md"):
        return "cursor_md"
    raise ValueError("unknown transcript format: " + path)


def _history_jsonl(s):
    out = []
    for line in s.split("\n"):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        t = obj.get("display")
        if not isinstance(t, str):
            t = obj.get("text") if "session_id" in obj else None
        if isinstance(t, str):
            out.append(t.strip())
    return out


_SPEC_HDR = re.compile(r"^_\*\*(User|Assistant|Agent|Cursor|Model)\b[^\n]*\*\*_\s*$")
_CURSOR_HDR = re.compile(r"^\*\*(User|Cursor)\*\*\s*$")


def _blocks(s, hdr):
    out, cur = [], None
    for line in s.split("\n"):
        m = hdr.match(line)
        if m:
            if cur is not None:
                out.append(cur)
            cur = [] if m.group(1) == "User" else None
            continue
        if cur is not None:
            cur.append(line)
    if cur is not None:
        out.append(cur)
    res = []
    for lines in out:
        while lines and lines[-1].strip() in ("", "---"):
            lines.pop()
        res.append("\n".join(lines).strip())
    return res


_AIDER_TS = re.compile(r"^# \d{4}-\d\d-\d\d")


def _aider_input(s):
    out, cur = [], None
    for line in s.split("\n"):
        if _AIDER_TS.match(line):
            if cur is not None:
                out.append("\n".join(cur).strip())
            cur = []
        elif line.startswith("+") and cur is not None:
            cur.append(line[1:])
    if cur is not None:
        out.append("\n".join(cur).strip())
    return out


def _aider_chat(s):
    out, cur = [], None
    for line in s.split("\n"):
        if line.startswith("#### "):
            if cur is None:
                cur = []
            cur.append(line[5:])
        else:
            if cur is not None:
                out.append("\n".join(cur).strip())
            cur = None
    if cur is not None:
        out.append("\n".join(cur).strip())
    return out


def user_turns(data: bytes, fmt: str):
    """Return [(turn, text)] for every user turn of the file, in file order."""
    s = decode(data)
    if fmt == "history_jsonl":
        texts = _history_jsonl(s)
    elif fmt == "specstory_md":
        texts = _blocks(s, _SPEC_HDR)
    elif fmt == "cursor_md":
        texts = _blocks(s, _CURSOR_HDR)
    elif fmt == "aider_input":
        texts = _aider_input(s)
    elif fmt == "aider_chat_md":
        texts = _aider_chat(s)
    else:
        raise ValueError("unknown format " + fmt)
    return list(enumerate(texts))


_GENERATED = ("<ide_opened_file>", "<ide_selection>", "<local-command-", "<command-name>",
              "<command-message>", "<user-prompt-submit-hook>", "<system-reminder>",
              "[Request interrupted", "Caveat: The messages below were generated by the user while running local commands")
_SLASH = re.compile(r"^/[A-Za-z][\w:.-]*$")


def eligible(turns):
    """Turn indices that are natural-language prompts, for labelling.

    Excluded: empty text; slash commands (first whitespace-separated token is
    "/word" with no further "/", e.g. "/model", "/add x.py"); shell escapes
    (text starting with "!"); text generated by the client or IDE rather than
    typed (starting with "<ide_opened_file>", "<ide_selection>",
    "<local-command-", "<command-name>", "<command-message>",
    "<user-prompt-submit-hook>", "<system-reminder>", "[Request interrupted",
    "Caveat: The messages below were generated by the user while running local
    commands");
    a turn whose text equals the previous turn's text (logging duplicates)."""
    keep, prev = [], None
    for i, t in turns:
        first = t.split(None, 1)[0] if t.strip() else ""
        ok = (bool(t) and not _SLASH.match(first) and not t.startswith("!")
              and not t.startswith(_GENERATED) and t != prev)
        prev = t
        if ok:
            keep.append(i)
    return keep


_SENT = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+")


def clauses(text: str):
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        for piece in _SENT.split(line):
            piece = piece.strip()
            if piece:
                out.append(piece)
    return out


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


if __name__ == "__main__":
    # usage: extract.py FILE [FORMAT]  -> JSON lines {turn, sha256, chars, eligible}
    path = sys.argv[1]
    fmt = sys.argv[2] if len(sys.argv) > 2 else detect_format(path)
    with open(path, "rb") as f:
        turns = user_turns(f.read(), fmt)
    el = set(eligible(turns))
    for i, t in turns:
        print(json.dumps({"turn": i, "sha256": sha256(t), "chars": len(t), "eligible": i in el}))
