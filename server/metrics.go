package server

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lexsona/lexsona/models"
)

// metrics are the service's Prometheus metrics, on a private registry (so
// tests can build many servers, and nothing leaks in from other packages).
type metrics struct {
	reg        *prometheus.Registry
	latency    *prometheus.HistogramVec
	batchSize  prometheus.Histogram
	queueWait  prometheus.Histogram
	decisions  *prometheus.CounterVec
	embedTexts prometheus.Counter
}

// newMetrics builds the metrics; the rule gauges count the rules of mem, the
// default tenant's memory.
func newMetrics(mem Operation, emb models.Embedder, b *models.Batcher, a *admission) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "lexsona_http_request_duration_seconds",
		Help:    "HTTP request latency by route, method and status.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method", "status"})
	m.batchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "lexsona_embedding_batch_size",
		Help:    "Texts per coalesced model call.",
		Buckets: []float64{1, 2, 4, 8, 12, 16, 24, 32, 64},
	})
	m.queueWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "lexsona_embedding_queue_wait_seconds",
		Help:    "Time an embedding request waited before its batch started.",
		Buckets: []float64{.0001, .0005, .001, .002, .005, .01, .025, .05, .1, .25, 1},
	})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "lexsona_classifier_decisions_total",
		Help: "Classifications by decision band (auto_match, confirm, new_rule, explicit).",
	}, []string{"decision"})
	m.embedTexts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "lexsona_embeddings_texts_total",
		Help: "Texts embedded through POST /v1/embeddings.",
	})
	m.reg.MustRegister(m.latency, m.batchSize, m.queueWait, m.decisions, m.embedTexts,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if b != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lexsona_embedding_queue_length", Help: "Embedding requests waiting for a batch.",
		}, func() float64 { return float64(b.QueueLen()) }))
	}
	if a != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lexsona_embedding_texts_in_flight", Help: "Texts being embedded now (bounded: past the bound, 429).",
		}, func() float64 { return float64(a.InFlight()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "lexsona_embedding_tokens_in_flight", Help: "Tokens being embedded now (bounded by the model's measured rate: past the bound, 429).",
		}, func() float64 { return float64(a.TokensInFlight()) }))
	}
	if _, ok := models.StatsOf(emb); ok {
		stat := func(f func(models.CacheStats) float64) func() float64 {
			return func() float64 { s, _ := models.StatsOf(emb); return f(s) }
		}
		m.reg.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lexsona_embedding_cache_hits_total", Help: "Texts answered from the embedding cache."},
				stat(func(s models.CacheStats) float64 { return float64(s.Hits) })),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "lexsona_embedding_cache_misses_total", Help: "Texts the model had to embed."},
				stat(func(s models.CacheStats) float64 { return float64(s.Misses) })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "lexsona_embedding_cache_entries", Help: "Embeddings held in the cache."},
				stat(func(s models.CacheStats) float64 { return float64(s.Entries) })),
		)
	}
	if mem != nil {
		m.reg.MustRegister(&ruleCollector{mem: mem, ttl: rulesMetricTTL, now: time.Now})
	}
	return m
}

// observeBatch is the Batcher's Observe hook.
func (m *metrics) observeBatch(n int, waits []time.Duration) {
	m.batchSize.Observe(float64(n))
	for _, w := range waits {
		m.queueWait.Observe(w.Seconds())
	}
}

// observeRequest records one request's latency under its route pattern (not
// its URL, so ids do not explode the label set).
func (m *metrics) observeRequest(route, method string, status int, d time.Duration) {
	m.latency.WithLabelValues(route, method, strconv.Itoa(status)).Observe(d.Seconds())
}

// handler serves the registry in the Prometheus text format.
func (m *metrics) handler() echo.HandlerFunc {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return echo.WrapHandler(h)
}

// rulesMetricTTL is how long the rule counts of /metrics are reused: counting
// assesses every rule (tens of milliseconds at thousands of rules), which a
// scrape, or many scrapers, should not pay every time.
const rulesMetricTTL = 10 * time.Second

// ruleCollector counts rules by state (memory.RuleStates: active,
// provisional, inactive, candidate, archived, dormant, stale_weak), counted
// by memory.Service.CountRuleStates at most once per ttl.
type ruleCollector struct {
	mem Operation
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	at       time.Time      // when counts were assessed
	counts   map[string]int // nil before the first assessment
	assessed int            // assessments made (for tests)
}

var ruleCountDesc = prometheus.NewDesc("lexsona_rules", "Rules by state, assessed at most every 10 seconds.", []string{"state"}, nil)

func (rc *ruleCollector) Describe(ch chan<- *prometheus.Desc) { ch <- ruleCountDesc }

func (rc *ruleCollector) Collect(ch chan<- prometheus.Metric) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := rc.now()
	if rc.counts == nil || now.Sub(rc.at) >= rc.ttl || now.Before(rc.at) {
		counts, err := rc.assess(now)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(ruleCountDesc, err)
			return
		}
		rc.counts, rc.at = counts, now
		rc.assessed++
	}
	for state, n := range rc.counts {
		ch <- prometheus.MustNewConstMetric(ruleCountDesc, prometheus.GaugeValue, float64(n), state)
	}
}

// assess counts every rule by its state at now.
func (rc *ruleCollector) assess(now time.Time) (map[string]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return rc.mem.CountRuleStates(ctx, now)
}
