// Package lexical is the "lexical" backend: an embedder without a model,
// from hashed words, word pairs and character n-grams weighted by a fitted
// IDF. It is what auto falls back to when no model is installed.
package lexical

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Name is the lexical embedder's Identity name. Bump the version when the
// features or their weighting change, so stored vectors are invalidated.
const Name = "lexical-v1"

// DefaultDims is the lexical embedder's default number of hashed buckets.
const DefaultDims = 4096

// Feature families and their share of a vector's squared norm: each family is
// L2-normalised on its own, scaled by the square root of its share, and the
// sum normalised again, so long words' many character n-grams cannot drown
// out the words themselves.
const (
	famWord = iota
	famBigram
	famChar
	nFamilies
)

var famShare = [nFamilies]float64{famWord: 0.5, famBigram: 0.2, famChar: 0.3}

const (
	charNMin, charNMax = 3, 5
	stopWeight         = 0.25 // stop words (and n-grams made only of them) count this much
)

// Embedder is the "lexical" backend: no model, just hashed word unigrams and
// bigrams plus word-boundary-padded character 3- to 5-grams of the
// NFKC-normalised, lower-cased text; sublinear TF (1 + ln tf) times smoothed
// IDF (ln((1+N)/(1+df)) + 1; every IDF is 1 until Fit is called), signed
// feature hashing into Dims buckets, L2 normalisation. Vectors are dense
// []float32 so the classifier can take plain dot products; they are
// deterministic for given parameters and fitted IDF. The Identity's SHA256
// covers both, so refitting on a changed corpus invalidates stored vectors.
// EmbedSparse returns the same vectors as their non-zero buckets (a text
// fills a few percent of them). It is safe for concurrent use.
type Embedder struct {
	dims int
	mu   sync.RWMutex
	df   map[uint64]uint32 // feature hash → number of fitted documents holding it
	docs int
	id   models.Identity
	// scratch holds *lexScratch buffers sized for dims, so an embedding
	// allocates only its result.
	scratch sync.Pool
}

// New returns an unfitted lexical embedder with dims buckets (DefaultDims
// when dims <= 0).
func New(dims int) *Embedder {
	if dims <= 0 {
		dims = DefaultDims
	}
	l := &Embedder{dims: dims}
	l.id = l.identity()
	return l
}

// Fit computes document frequencies over texts (the registry's texts),
// replacing any earlier fit.
func (l *Embedder) Fit(texts []string) {
	df := make(map[uint64]uint32)
	seen := make(map[uint64]struct{})
	for _, t := range texts {
		clear(seen)
		forEachFeature(t, func(_ int, key uint64, _ float64) { seen[key] = struct{}{} })
		for k := range seen {
			df[k]++
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.df, l.docs = df, len(texts)
	l.id = l.identity()
}

// identity hashes the parameters and the fitted IDF. Callers hold l.mu (or own l).
func (l *Embedder) identity() models.Identity {
	h := sha256.New()
	fmt.Fprintf(h, "%s|dims=%d|char=%d-%d|shares=%v|stop=%v/%s|docs=%d|", Name, l.dims, charNMin, charNMax, famShare, stopWeight, strings.Join(stopList, ","), l.docs)
	keys := make([]uint64, 0, len(l.df))
	for k := range l.df {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var buf [12]byte
	for _, k := range keys {
		binary.LittleEndian.PutUint64(buf[:8], k)
		binary.LittleEndian.PutUint32(buf[8:], l.df[k])
		h.Write(buf[:])
	}
	return models.Identity{Name: Name, SHA256: hex.EncodeToString(h.Sum(nil)), Dims: l.dims}
}

// Embed implements models.Embedder. An empty, blank or invisible text has no
// features: that is an EINVALID error naming its index, never a zero vector.
func (l *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", ctx.Err())
		}
		v, err := l.embedOne(t, i)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// embedOne embeds one text as Embed does: the dense form of embedSparse's
// vector, so both are the same vector bit for bit.
func (l *Embedder) embedOne(text string, index int) ([]float32, error) {
	v, err := l.embedSparse(text, index)
	if err != nil {
		return nil, err
	}
	return v.Dense(), nil
}

// embedSparse computes text's vector as its non-zero buckets. Every sum runs
// in a fixed order, so vectors are bit-for-bit deterministic: a family's
// features are sorted by hash, each bucket accumulates its features in that
// order, and the norm adds the buckets' squares in bucket order (the zero
// buckets a dense pass would add change no bit of it).
func (l *Embedder) embedSparse(text string, index int) (models.SparseVector, error) {
	s := l.getScratch()
	defer l.putScratch(s)
	for fam := range s.fams {
		s.fams[fam] = s.fams[fam][:0]
	}
	forEachFeature(text, func(fam int, key uint64, w float64) { s.fams[fam] = append(s.fams[fam], feat{key, w}) })
	for fam, fs := range s.fams {
		if len(fs) == 0 {
			continue
		}
		slices.SortFunc(fs, func(a, b feat) int { return cmp.Compare(a.key, b.key) })
		uniq := fs[:0]
		weights := s.weights[:0]
		var ss float64
		for i := 0; i < len(fs); {
			j := i
			for j < len(fs) && fs[j].key == fs[i].key {
				j++
			}
			w := fs[i].w * (1 + math.Log(float64(j-i))) * l.idf(fs[i].key)
			uniq = append(uniq, fs[i])
			weights = append(weights, w)
			ss += w * w
			i = j
		}
		s.weights = weights
		scale := math.Sqrt(famShare[fam] / ss)
		for i, f := range uniq {
			b := int(f.key % uint64(l.dims))
			s.touched[b>>6] |= 1 << (b & 63)
			if f.key>>63 == 1 {
				s.acc[b] -= weights[i] * scale
			} else {
				s.acc[b] += weights[i] * scale
			}
		}
	}
	ss := s.gather()
	if ss == 0 {
		return models.SparseVector{}, engine.Errorf(engine.EINVALID, "text %d is empty or blank: nothing to embed", index)
	}
	if math.IsNaN(ss) || math.IsInf(ss, 0) {
		return models.SparseVector{}, engine.Errorf(engine.EINTERNAL, "text %d: the embedding has NaN or Inf components", index)
	}
	return s.normalised(l.dims, 1/math.Sqrt(ss)), nil
}

func (l *Embedder) idf(key uint64) float64 {
	return math.Log(float64(1+l.docs)/float64(1+l.df[key])) + 1
}

// Identity is lexical-v1, the sha256 of the parameters and fitted IDF, and Dims.
func (l *Embedder) Identity() models.Identity {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.id
}

// Backend is "lexical".
func (l *Embedder) Backend() string { return "lexical" }

// Close does nothing: the lexical embedder holds no resources.
func (l *Embedder) Close() error { return nil }
