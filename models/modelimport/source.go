package modelimport

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// Kinds of source, as Result.Kind and import.json name them.
const (
	KindFolder = "sentence-transformers folder" // model.safetensors + config.json + tokenizer.json (+ sentence-transformers configs)
	KindHF     = "Hugging Face cache"           // a snapshot of the hub cache (files are links into blobs/)
	KindONNX   = "onnx folder"                  // onnx/model.onnx (or model.onnx) + tokenizer files
	KindWheel  = "wheel"                        // a Python wheel (a zip) carrying one of the above
	KindJar    = "jar"                          // a Java archive (a zip) carrying one of the above
)

// acceptedSources is what an "unknown kind" error lists.
const acceptedSources = "a folder with model.safetensors (or onnx/model.onnx) and tokenizer.json, a Hugging Face cache folder, or a .whl / .jar file"

// wantedFiles are the files an import reads from the model's root, besides
// the model file and the module folders' config.json.
var wantedFiles = []string{
	"config.json", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
	"modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
}

// digest is a checksum a source carries for one of its files.
type digest struct {
	algo string // "sha256" or "git-sha1" (the sha1 of "blob <size>\x00" + content)
	hex  string
	from string // where it comes from, for messages: "the wheel's RECORD"
}

// srcFile is one file of a source.
type srcFile struct {
	name string // its path in the source, for messages
	open func() (io.ReadCloser, error)
	want digest
}

// source is a resolved SRC: its kind and the files of the model it holds,
// keyed by their path in the model folder ("model.safetensors" or
// "model.onnx", "config.json", "1_Pooling/config.json", …).
type source struct {
	path      string // SRC, absolute
	kind      string
	root      string // where the model sits in the source, for messages
	files     map[string]*srcFile
	checksums string // what carries the source's checksums ("" when none)
	notes     []string
	archive   string            // the archive's sha256 ("" for folders)
	read      map[string]string // sha256 of each file read, keyed like files
	verified  int               // how many files were checked against a carried checksum
	closer    io.Closer
}

func (s *source) Close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

// readFile returns the bytes of the model-folder file key, whether the
// source has it, and an EINVALID error when it does not match the checksum
// the source carries for it (or EUNAVAILABLE when it cannot be read).
func (s *source) readFile(key string) ([]byte, bool, error) {
	f, ok := s.files[key]
	if !ok {
		return nil, false, nil
	}
	rc, err := f.open()
	if err != nil {
		return nil, true, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", f.name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, true, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", f.name, err)
	}
	sum := sha256.Sum256(b)
	got := hex.EncodeToString(sum[:])
	if f.want.hex != "" {
		check := got
		if f.want.algo == "git-sha1" {
			h := sha1.New()
			fmt.Fprintf(h, "blob %d\x00", len(b))
			h.Write(b)
			check = hex.EncodeToString(h.Sum(nil))
		}
		if !strings.EqualFold(check, f.want.hex) {
			return nil, true, engine.Errorf(engine.EINVALID,
				"%s does not match %s (%s %s, expected %s): the source is corrupt or altered; fetch it again",
				f.name, f.want.from, f.want.algo, check, f.want.hex)
		}
		s.verified++
	}
	s.read[key] = got
	return b, true, nil
}

// identity is the source's sha256: the archive's, else the sha256 of the
// sorted list of the files read with their sha256s.
func (s *source) identity() string {
	if s.archive != "" {
		return s.archive
	}
	keys := make([]string, 0, len(s.read))
	for k := range s.read {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s %s\n", k, s.read[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// openSource resolves SRC. Errors (*engine.Error): EINVALID when SRC does
// not exist, is of no accepted kind, is not a zip although named .whl/.jar,
// or holds no model or several; EUNAVAILABLE when it cannot be read.
func openSource(src string, spec Spec) (*source, error) {
	if src == "" {
		return nil, engine.Errorf(engine.EINVALID, "no source given: pass %s", acceptedSources)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "bad source path %q: %v", src, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "no source at %s (%v): pass %s", abs, unwrapPathErr(err), acceptedSources)
	}
	if !st.IsDir() {
		switch ext := strings.ToLower(filepath.Ext(abs)); ext {
		case ".whl":
			return openZip(abs, KindWheel, st.Size())
		case ".jar":
			return openZip(abs, KindJar, st.Size())
		}
		return nil, engine.Errorf(engine.EINVALID, "%s is a file of an unknown kind: pass %s", abs, acceptedSources)
	}
	if snap, ok, err := hfSnapshot(abs, spec); err != nil {
		return nil, err
	} else if ok {
		s, err := openFolder(snap, KindHF)
		if err == nil {
			s.path = abs
		}
		return s, err
	}
	return openFolder(abs, "")
}

// openFolder lists a folder's files (down to five levels, skipping hidden
// ones) and finds the model in them. kind "" means: a sentence-transformers
// folder when the model is model.safetensors, else an ONNX folder.
func openFolder(dir, kind string) (*source, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(filepath.ToSlash(rel), "/") >= 3 {
				return filepath.SkipDir
			}
			return nil
		}
		names = append(names, filepath.ToSlash(rel))
		if len(names) > 10000 {
			return fmt.Errorf("more than 10000 files: not a model folder")
		}
		return nil
	})
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot list the source folder %s: %v", dir, err)
	}
	l, err := findLayout(names, dir)
	if err != nil {
		return nil, err
	}
	s := &source{path: dir, kind: kind, root: filepath.Join(dir, filepath.FromSlash(l.root)), files: map[string]*srcFile{}, read: map[string]string{}}
	if s.kind == "" {
		s.kind = KindONNX
		if l.weights {
			s.kind = KindFolder
		}
	}
	for key, rel := range l.files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		f := &srcFile{name: p, open: func() (io.ReadCloser, error) { return os.Open(p) }}
		if d, ok := blobDigest(p); ok {
			f.want = d
			s.checksums = "Hugging Face blob names"
		}
		s.files[key] = f
	}
	s.notes = l.notes
	return s, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
