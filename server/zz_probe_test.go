package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lexsona/lexsona/models"
)

func TestProbeBatchSizes(t *testing.T) {
	ctx := context.Background()
	emb, err := models.Open(ctx, models.Options{Backend: "ort", ModelDir: benchModelDir, OrtLib: benchOrtLib, CacheSize: -1, Logger: discardLogger()})
	if err != nil {
		t.Skip(err)
	}
	defer emb.Close()
	texts := benchTexts(256)
	for _, bs := range []int{1, 4, 8, 16, 32} {
		start := time.Now()
		n := 0
		for i := 0; i+bs <= 128; i += bs {
			if _, err := emb.Embed(ctx, texts[i:i+bs]); err != nil {
				t.Fatal(err)
			}
			n += bs
		}
		fmt.Printf("batch %d: %.1f texts/s\n", bs, float64(n)/time.Since(start).Seconds())
	}
}
