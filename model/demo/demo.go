package demo

import (
	"errors"
	"fmt"
	"math"
	"time"

	"simrun/internal/trace"
	"simrun/sim"
	"simrun/sim/stats"
)

// Config is the [workload.demo] section of a scenario.
type Config struct {
	ArrivalRate sim.Count    `toml:"arrival_rate" unit:"1/s" doc:"mean job arrivals per second, Poisson (λ); assumption: a 75 % load on the default servers"`
	Service     sim.DistSpec `toml:"service" unit:"duration" doc:"service time of one job (1/μ); exponential makes the model M/M/c"`
	Servers     int          `toml:"servers" unit:"servers" doc:"identical servers taking jobs in FIFO order (c)"`
}

// DefaultConfig returns λ = 3000/s, exponential service with mean 1 ms and
// 4 servers: an offered load of 3 erlangs, 75 % utilisation.
func DefaultConfig() Config {
	return Config{
		ArrivalRate: 3000,
		Service:     sim.ExponentialDist(sim.Duration(time.Millisecond)),
		Servers:     4,
	}
}

// Limits that keep a run bounded in memory and time.
const (
	MaxServers     = 100_000
	MinArrivalRate = 1e-3 // one job per 1000 s
	MaxArrivalRate = 1e8
	// maxDelay clips sampled service times and inter-arrival gaps: a
	// heavy-tailed distribution can yield values beyond int64 nanoseconds,
	// and anything longer than this outlasts every run anyway.
	maxDelay = 100 * 24 * time.Hour
)

// Validate checks the configuration. The queue must be stable (offered load
// below capacity): an unstable queue grows without bound and its
// statistics would only measure the run length.
func (c Config) Validate() error {
	var errs []error
	if !(c.ArrivalRate >= MinArrivalRate && c.ArrivalRate <= MaxArrivalRate) {
		errs = append(errs, fmt.Errorf("arrival_rate: must be between %g and %g per second, got %v", MinArrivalRate, MaxArrivalRate, c.ArrivalRate))
	}
	if c.Servers < 1 || c.Servers > MaxServers {
		errs = append(errs, fmt.Errorf("servers: must be between 1 and %d, got %d", MaxServers, c.Servers))
	}
	if err := c.Service.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("service: %w", err))
	} else if len(errs) == 0 {
		mean := float64(c.Service.MeanDuration())
		if load := float64(c.ArrivalRate) * mean / 1e9; load >= float64(c.Servers) {
			errs = append(errs, fmt.Errorf("arrival_rate: offered load %.4g erlangs (arrival_rate × mean service %v) must be below servers = %d, or the queue grows without bound",
				load, sim.Duration(mean), c.Servers))
		}
	}
	return errors.Join(errs...)
}

// job is one customer; jobs are recycled through a free list so that the
// steady state allocates nothing.
type job struct {
	arrived sim.Time
	service time.Duration
}

// Model is an M/G/c queue wired to an Env.
type Model struct {
	env      *sim.Env
	cfg      Config
	station  *sim.Station
	service  sim.Dist
	arrivals *sim.Stream
	services *sim.Stream
	meanGap  float64 // ns
	free     []*job
	arrive   func()
	done     func(any)

	rec     *trace.Recorder // nil unless traced
	queue   trace.TrackID
	servers trace.TrackID
	traced  int64 // jobs recorded, numbering them in the trace

	response stats.Histogram // ns, arrival to departure
	wait     stats.Histogram // ns, arrival to start of service
	since    sim.Time
}

// New builds the model on env. The configuration must be valid.
func New(env *sim.Env, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := cfg.Service.Dist()
	if err != nil {
		return nil, err
	}
	m := &Model{
		env:      env,
		cfg:      cfg,
		station:  sim.NewStation(env, cfg.Servers),
		service:  d,
		arrivals: env.Stream("demo/arrivals"),
		services: env.Stream("demo/service"),
		meanGap:  1e9 / float64(cfg.ArrivalRate),
	}
	m.arrive = m.onArrive
	m.done = m.onDone
	return m, nil
}

// SetTrace records each job on rec: its wait in the queue on the queue
// track (one lane per waiting job), its service on the servers track (one
// lane per busy server; job numbers match), and the queue length. Spans
// are recorded when the job leaves, so a job still waiting or in service
// at the window's end is not shown.
// Call it before Start.
func (m *Model) SetTrace(rec *trace.Recorder) {
	if rec == nil {
		return
	}
	m.rec = rec
	m.queue = rec.Track("demo/queue")
	m.servers = rec.Track("demo/servers")
}

// Start schedules the first arrival.
func (m *Model) Start() { m.scheduleArrival() }

func (m *Model) scheduleArrival() {
	gap := min(m.arrivals.Exp()*m.meanGap, float64(maxDelay))
	m.env.After(time.Duration(math.Round(gap)), m.arrive)
}

func (m *Model) onArrive() {
	var j *job
	if n := len(m.free); n > 0 {
		j = m.free[n-1]
		m.free = m.free[:n-1]
	} else {
		j = new(job)
	}
	j.arrived = m.env.Now()
	j.service = min(sim.SampleDuration(m.service, m.services), maxDelay)
	m.station.Submit(j.service, m.done, j)
	if m.rec != nil {
		m.rec.Counter("demo/queue length", j.arrived, float64(m.station.QueueLen()))
	}
	m.scheduleArrival()
}

func (m *Model) onDone(a any) {
	j := a.(*job)
	resp := int64(m.env.Now() - j.arrived)
	m.response.Record(resp)
	m.wait.Record(max(resp-int64(j.service), 0))
	if m.rec != nil {
		m.traceJob(j)
	}
	m.free = append(m.free, j)
}

func (m *Model) traceJob(j *job) {
	now := m.env.Now()
	began := now - sim.Time(j.service)
	m.traced++
	if began > j.arrived {
		m.rec.Span(m.queue, "wait", j.arrived, began, trace.Int("job", m.traced))
	}
	m.rec.Span(m.servers, "service", began, now, trace.Int("job", m.traced),
		trace.Float("wait_us", float64(began-j.arrived)/1e3))
	m.rec.Counter("demo/queue length", now, float64(m.station.QueueLen()))
}

// ResetStats starts the measured window now (the end of warm-up).
func (m *Model) ResetStats() {
	m.station.ResetStats()
	m.response.Reset()
	m.wait.Reset()
	m.since = m.env.Now()
}

// Stats is the model's report for the measured window. Response and wait
// times count jobs that completed in the window.
type Stats struct {
	Elapsed     time.Duration
	Arrived     int64
	Completed   int64
	Utilization float64 // 0..1
	MeanQueue   float64 // jobs waiting, time-averaged
	MaxQueue    int
	Response    stats.HistogramSummary // ns
	Wait        stats.HistogramSummary // ns
}

// Stats returns the statistics since the last ResetStats.
func (m *Model) Stats() Stats {
	st := m.station.Stats()
	return Stats{
		Elapsed:     st.Elapsed,
		Arrived:     st.Arrived,
		Completed:   int64(m.response.Count()),
		Utilization: st.Utilization,
		MeanQueue:   st.MeanQueue,
		MaxQueue:    st.MaxQueue,
		Response:    m.response.Summary(),
		Wait:        m.wait.Summary(),
	}
}

// ErlangC returns the probability that an arriving job waits in an M/M/c
// queue with c servers and offered load a = λ/μ erlangs (a < c), computed
// with the numerically stable Erlang B recursion.
func ErlangC(c int, a float64) float64 {
	b := 1.0 // Erlang B with 0 servers
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho + rho*b)
}

// Theory is the M/M/c prediction for a configuration with exponential
// service; ok is false for other service distributions.
type Theory struct {
	WaitProbability float64
	MeanWait        time.Duration
	MeanResponse    time.Duration
	Utilization     float64
}

// MMC returns the Erlang C prediction for cfg.
func MMC(cfg Config) (Theory, bool) {
	if cfg.Service.Kind != "exponential" || cfg.Service.Mean <= 0 {
		return Theory{}, false
	}
	lambda := float64(cfg.ArrivalRate) / 1e9 // per ns
	mu := 1 / float64(cfg.Service.Mean)      // per ns
	a := lambda / mu
	c := cfg.Servers
	if a >= float64(c) {
		return Theory{}, false
	}
	pw := ErlangC(c, a)
	wq := pw / (float64(c)*mu - lambda)
	return Theory{
		WaitProbability: pw,
		MeanWait:        time.Duration(math.Round(wq)),
		MeanResponse:    time.Duration(math.Round(wq + 1/mu)),
		Utilization:     a / float64(c),
	}, true
}
