#!/usr/bin/env python3
"""Rebuild the prompt texts that labels.jsonl points to, and verify them.

labels.jsonl holds no text: only repo, path, commit, turn and the sha256 of
the turn's text as extract.py yields it. This script fetches each transcript
file at its commit, re-extracts the user turns and checks the hash.

Sources (first that works, per file):
  --mirrors DIR   git mirrors laid out as DIR/<owner>+<name>/repo (a bare git
                  directory; `git -C ... show COMMIT:PATH` is used). This is
                  the layout of /work/.mirror on the project's machines.
  --network       raw file at the commit from
                  https://raw.githubusercontent.com/<repo>/<commit>/<path>

Output: OUT/texts.jsonl with {"repo","path","commit","turn","sha256","ok",
"text"} per label (text only where the hash matched) and a summary on
stderr. OUT defaults to eval/realprompts/.texts/, which is gitignored: the
texts are other people's words and are never committed.

usage: rebuild.py [--labels labels.jsonl] [--mirrors DIR] [--network] [--out DIR]
Exit status 1 if any label could not be rebuilt or its hash did not match.
"""
import argparse
import json
import os
import subprocess
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract  # noqa: E402


def from_mirror(mirrors, repo, commit, path):
    g = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    if not os.path.isdir(g):
        return None
    r = subprocess.run(["git", "-C", g, "show", "%s:%s" % (commit, path)], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def from_network(repo, commit, path):
    url = "https://raw.githubusercontent.com/%s/%s/%s" % (repo, commit, urllib.parse.quote(path))
    try:
        with urllib.request.urlopen(url, timeout=60) as f:
            return f.read()
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.jsonl"))
    ap.add_argument("--mirrors", default=None)
    ap.add_argument("--network", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, ".texts"))
    a = ap.parse_args()
    if not a.mirrors and not a.network:
        ap.error("give --mirrors DIR and/or --network")
    labels = [json.loads(l) for l in open(a.labels, encoding="utf-8") if l.strip()]
    cache = {}
    os.makedirs(a.out, exist_ok=True)
    good = bad = missing = 0
    with open(os.path.join(a.out, "texts.jsonl"), "w", encoding="utf-8") as out:
        for o in labels:
            key = (o["repo"], o["commit"], o["path"], o["format"])
            if key not in cache:
                data = from_mirror(a.mirrors, o["repo"], o["commit"], o["path"]) if a.mirrors else None
                if data is None and a.network:
                    data = from_network(o["repo"], o["commit"], o["path"])
                cache[key] = None if data is None else dict(extract.user_turns(data, o["format"]))
            turns = cache[key]
            rec = {k: o[k] for k in ("repo", "path", "commit", "turn", "sha256")}
            if turns is None or o["turn"] not in turns:
                missing += 1
                rec["ok"] = False
            else:
                t = turns[o["turn"]]
                rec["ok"] = extract.sha256(t) == o["sha256"] and len(t) == o["chars"]
                if rec["ok"]:
                    rec["text"] = t
                    good += 1
                else:
                    bad += 1
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print("rebuilt %d, hash mismatch %d, unavailable %d (of %d)" % (good, bad, missing, len(labels)), file=sys.stderr)
    return 0 if bad == 0 and missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
